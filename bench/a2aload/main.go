// Command a2aload measures relays across machines (A2A) on loopback, the
// model being the scripted server answering at once:
//
//   - load: a served agent (mm -a2a, a real process) answering N concurrent
//     tasks from the A2A JavaScript SDK's client (message/send), and from
//     mm's own asking side (remote.Agent, message/stream) — tasks per
//     second, every answer checked, nothing left running;
//
//   - overhead: one warm remote ask (remote.Agent → mm -a2a) against one
//     warm local ask (agentproc.Supervisor → a child mm), interleaved in the
//     same rounds (these machines are noisy).
//
//     go run ./bench/a2aload [-n 50] [-rounds 5] [-asks 20]
//
// Run from the repository root, with the npm test packages installed
// (npm ci --prefix cmd/mm/testdata/npm); -node=false skips the JS client.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mm-agent/mm/agentproc"
	"github.com/mm-agent/mm/bench/internal/runs"
	"github.com/mm-agent/mm/internal/mockmodel"
	"github.com/mm-agent/mm/relay"
	"github.com/mm-agent/mm/remote"
)

func main() {
	n := flag.Int("n", 50, "concurrent tasks per load round")
	rounds := flag.Int("rounds", 5, "load rounds, and overhead rounds")
	asks := flag.Int("asks", 20, "asks of each kind per overhead round")
	node := flag.Bool("node", true, "run the JavaScript SDK's client too")
	flag.Parse()
	if err := run(*n, *rounds, *asks, *node); err != nil {
		fmt.Fprintln(os.Stderr, "a2aload:", err)
		os.Exit(1)
	}
}

func run(n, rounds, asks int, node bool) error {
	repo, _ := os.Getwd()
	client := filepath.Join(repo, "cmd/mm/testdata/a2a/client.mjs")
	modules := filepath.Join(repo, "cmd/mm/testdata/npm/node_modules")
	if node {
		if _, err := os.Stat(filepath.Join(modules, "@a2a-js", "sdk")); err != nil {
			return errors.New("the npm test packages are missing: npm ci --prefix cmd/mm/testdata/npm (or -node=false)")
		}
	}
	dir, err := os.MkdirTemp("", "a2aload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "mm")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/mm").CombinedOutput(); err != nil {
		return fmt.Errorf("build mm (run from the repository root): %v\n%s", err, out)
	}
	script, err := mockmodel.ParseScript([]byte("replies:\n  - repeat: true\n    text: 'The answer to {{.Last}} is here.'\n"))
	if err != nil {
		return err
	}
	model := mockmodel.New(script, "")
	if _, err := model.Start("127.0.0.1:0"); err != nil {
		return err
	}
	defer model.Close()
	// The served mm and the local children read the scripted model's
	// address from their environment.
	env := append(os.Environ(), "LLMMAN_HOST="+model.Addr())
	served := filepath.Join(dir, "served.yaml")
	if err := os.WriteFile(served, []byte("model: llmman/served\nyolo: true\n"), 0o644); err != nil {
		return err
	}

	addr, err := runs.FreeAddr()
	if err != nil {
		return err
	}
	srv := exec.Command(bin, "-c", served, "-a2a", addr)
	srv.Dir, srv.Env = dir, env
	srvErr, _ := srv.StderrPipe()
	if err := srv.Start(); err != nil {
		return err
	}
	var logMu sync.Mutex
	var answered, other int
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(srvErr)
		for sc.Scan() {
			logMu.Lock()
			switch {
			case strings.Contains(sc.Text(), ": answered in "):
				answered++
			case strings.Contains(sc.Text(), ": task "):
				other++
			}
			logMu.Unlock()
		}
	}()
	defer srv.Process.Kill()
	if err := runs.WaitPort(addr, "mm -a2a"); err != nil {
		return err
	}
	url := "http://" + addr

	// Load from the JavaScript SDK's client.
	var jsRates []float64
	if node {
		scenario := filepath.Join(dir, "load.json")
		os.WriteFile(scenario, []byte(fmt.Sprintf(`{"steps":[{"load":%d,"prefix":"question"}]}`, n)), 0o644)
		for range rounds {
			cmd := exec.Command("node", client, url, scenario)
			cmd.Env = append(os.Environ(), "NODE_MODULES="+modules)
			out, err := cmd.Output()
			if err != nil {
				return fmt.Errorf("js client: %v", err)
			}
			var r struct {
				Load, Right, Wrong, Failed int
				PerSecond                  float64
			}
			if err := json.Unmarshal(out, &r); err != nil {
				return fmt.Errorf("js client printed %q", out)
			}
			if r.Right != n {
				return fmt.Errorf("js client: %d of %d answers right (%d wrong, %d failed)", r.Right, n, r.Wrong, r.Failed)
			}
			jsRates = append(jsRates, r.PerSecond)
		}
	}

	// Load from mm's own asking side.
	agent := &remote.Agent{Name: "served", URL: url}
	var goRates []float64
	for round := range rounds {
		start := time.Now()
		var wg sync.WaitGroup
		var mu sync.Mutex
		var bad []string
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				q := fmt.Sprintf("question %d-%d", round, i)
				r := agent.Ask(context.Background(), relay.AskRequest{Agent: "served", Prompt: q, Depth: 1})
				if r.Status != relay.Answered || !strings.Contains(r.Answer, q+" ") {
					mu.Lock()
					bad = append(bad, fmt.Sprintf("%s: %+v", q, r))
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(bad) > 0 {
			return fmt.Errorf("%d of %d answers wrong, e.g. %s", len(bad), n, bad[0])
		}
		goRates = append(goRates, float64(n)/time.Since(start).Seconds())
	}

	// One warm remote ask against one warm local ask.
	sup := &agentproc.Supervisor{Bin: bin, Dir: dir, Env: func(depth int) []string {
		return append(env[:len(env):len(env)], "MM_ASK_DEPTH="+strconv.Itoa(depth))
	}}
	defer sup.Close()
	local := relay.AskRequest{Agent: "local", Config: served, Depth: 1, Prompt: "hello"}
	if r := sup.Ask(context.Background(), local); r.Status != relay.Answered {
		return fmt.Errorf("local ask: %s", r.Error)
	}
	var remoteT, localT []time.Duration
	for range rounds {
		for i := range asks {
			first, second := askRemote, askLocal
			if i%2 == 1 {
				first, second = askLocal, askRemote
			}
			for _, f := range []askFunc{first, second} {
				d, isRemote, err := f(agent, sup, local)
				if err != nil {
					return err
				}
				if isRemote {
					remoteT = append(remoteT, d)
				} else {
					localT = append(localT, d)
				}
			}
		}
	}

	// SIGTERM: the server stops with nothing running.
	srv.Process.Signal(syscall.SIGTERM)
	waitErr := srv.Wait()
	<-logDone
	if waitErr != nil {
		return fmt.Errorf("mm -a2a after SIGTERM: %v", waitErr)
	}
	total := rounds * n * 2
	if !node {
		total = rounds * n
	}
	total += rounds * asks
	logMu.Lock()
	defer logMu.Unlock()
	if answered != total || other != 0 {
		return fmt.Errorf("the server logged %d answered tasks and %d others, want %d answered", answered, other, total)
	}

	if node {
		fmt.Printf("load, JS SDK client (message/send): %d concurrent tasks, %.0f tasks/s median of %d rounds (min %.0f, max %.0f)\n",
			n, medianF(jsRates), rounds, slices.Min(jsRates), slices.Max(jsRates))
	}
	fmt.Printf("load, mm's asking side (message/stream): %d concurrent tasks, %.0f tasks/s median of %d rounds (min %.0f, max %.0f)\n",
		n, medianF(goRates), rounds, slices.Min(goRates), slices.Max(goRates))
	r, l := median(remoteT), median(localT)
	fmt.Printf("one warm ask: remote (A2A, loopback) %s median, local child %s median: overhead %s (%.2fx)\n",
		ms(r), ms(l), ms(r-l), float64(r)/float64(l))
	fmt.Printf("all %d tasks answered right; mm -a2a stopped on SIGTERM with exit 0\n", total)
	return nil
}

type askFunc = func(*remote.Agent, *agentproc.Supervisor, relay.AskRequest) (time.Duration, bool, error)

var (
	askRemote askFunc = func(a *remote.Agent, _ *agentproc.Supervisor, req relay.AskRequest) (time.Duration, bool, error) {
		t := time.Now()
		r := a.Ask(context.Background(), relay.AskRequest{Agent: "served", Prompt: req.Prompt, Depth: 1})
		if r.Status != relay.Answered {
			return 0, true, fmt.Errorf("remote ask: %s", r.Error)
		}
		return time.Since(t), true, nil
	}
	askLocal askFunc = func(_ *remote.Agent, s *agentproc.Supervisor, req relay.AskRequest) (time.Duration, bool, error) {
		t := time.Now()
		r := s.Ask(context.Background(), req)
		if r.Status != relay.Answered {
			return 0, false, fmt.Errorf("local ask: %s", r.Error)
		}
		return time.Since(t), false, nil
	}
)

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianF(f []float64) float64 {
	s := slices.Clone(f)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }
