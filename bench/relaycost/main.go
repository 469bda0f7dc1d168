// Command relaycost measures what a relay costs mm itself, the model's
// time excluded: a first ask (the asked agent's process start, go-plugin
// handshake and one turn) and a later ask to the same warm child, each
// against a bare `mm version` run measured in the same rounds (these
// machines are noisy). The asked agent's model is the scripted server on
// loopback answering at once; its round trip is measured too and taken off.
//
//	go run ./bench/relaycost [-rounds 20]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mm-agent/mm/agentproc"
	"github.com/mm-agent/mm/internal/mockmodel"
	"github.com/mm-agent/mm/relay"
)

func main() {
	rounds := flag.Int("rounds", 20, "measurement rounds")
	flag.Parse()
	if err := run(*rounds); err != nil {
		fmt.Fprintln(os.Stderr, "relaycost:", err)
		os.Exit(1)
	}
}

func run(rounds int) error {
	dir, err := os.MkdirTemp("", "relaycost-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "mm")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/mm").CombinedOutput(); err != nil {
		return fmt.Errorf("build mm (run from the repository root): %v\n%s", err, out)
	}
	script, err := mockmodel.ParseScript([]byte("replies:\n  - repeat: true\n    text: ok\n"))
	if err != nil {
		return err
	}
	srv := mockmodel.New(script, "")
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		return err
	}
	defer srv.Close()
	os.Setenv("LLMMAN_HOST", srv.Addr())
	expert := filepath.Join(dir, "agent.expert.yaml")
	if err := os.WriteFile(expert, []byte("model: llmman/expert\n"), 0o644); err != nil {
		return err
	}

	var cold, warm, version, modelRT []time.Duration
	for range rounds {
		t := time.Now()
		if err := exec.Command(bin, "version").Run(); err != nil {
			return err
		}
		version = append(version, time.Since(t))

		t = time.Now()
		if err := chat(base); err != nil {
			return err
		}
		modelRT = append(modelRT, time.Since(t))

		sup := &agentproc.Supervisor{Bin: bin, Dir: dir}
		req := relay.AskRequest{Agent: "expert", Config: expert, Depth: 1, Prompt: "hello"}
		t = time.Now()
		if r := sup.Ask(context.Background(), req); r.Status != relay.Answered {
			return fmt.Errorf("cold ask: %s", r.Error)
		}
		cold = append(cold, time.Since(t))
		for range 10 {
			t = time.Now()
			if r := sup.Ask(context.Background(), req); r.Status != relay.Answered {
				return fmt.Errorf("warm ask: %s", r.Error)
			}
			warm = append(warm, time.Since(t))
		}
		sup.Close()
	}
	m, v := median(modelRT), median(version)
	c, w := median(cold)-m, median(warm)-m
	fmt.Printf("mm version (baseline): %s median\n", ms(v))
	fmt.Printf("model round trip (taken off): %s median\n", ms(m))
	fmt.Printf("cold ask: %s median, %.2fx mm version (target <= 40ms)\n", ms(c), float64(c)/float64(v))
	fmt.Printf("warm ask: %s median, %.3fx mm version (target <= 2ms)\n", ms(w), float64(w)/float64(v))
	return nil
}

// chat is one request like the asked agent's turn makes.
func chat(base string) error {
	body := `{"model":"expert","stream":true,"messages":[{"role":"user","content":"hello"}]}`
	resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }
