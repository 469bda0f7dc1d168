// Command adaptcost measures what `mm hooks adapt` adds to a hook run: a
// hook command `"$MM_BIN" hooks adapt claude-code -- true` against a bare
// `sh -c true`, both spawned with the same preToolCall input on stdin, and
// `"$MM_BIN" version` beside them, which is mm's start-up alone. The
// adapter's cost is one more mm start per hook run; what it does once
// started (decode, translate, spawn the command, translate back) is the
// difference between the adapter and mm version.
//
// The three run interleaved, in an order that rotates run by run, so that
// drift in the machine's load reaches all of them alike.
//
//	go run ./bench/adaptcost [-mm PATH] [-rounds 10] [-n 30] [-warmup 10]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

func main() {
	mm := flag.String("mm", "", "the mm binary (default: build ./cmd/mm into a temporary directory)")
	rounds := flag.Int("rounds", 10, "interleaved rounds")
	n := flag.Int("n", 30, "runs of each command per round")
	warmup := flag.Int("warmup", 10, "untimed runs of each command before the first round")
	flag.Parse()
	if *rounds < 1 || *n < 1 {
		fail(fmt.Errorf("-rounds and -n must be >= 1"))
	}
	if *mm == "" {
		dir, err := os.MkdirTemp("", "adaptcost-")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
		*mm = filepath.Join(dir, "mm")
		build := exec.Command("go", "build", "-o", *mm, "./cmd/mm")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fail(fmt.Errorf("build mm (run from the repository root, or give -mm): %v", err))
		}
	}
	bin, err := filepath.Abs(*mm)
	if err != nil {
		fail(err)
	}
	cwd, _ := os.Getwd()
	stdin := []byte(`{"event":"preToolCall","cwd":"` + cwd + `","model":"llmman/hf.co/unsloth/gemma-4-E4B-it-GGUF:Q4_K_M","tool":{"id":"call_9f2c1ab7e4","name":"bash","input":{"command":"cd internal/tools && go test -run 'TestBash|TestEdit' ./... > /tmp/test.log 2>&1 && tail -n 40 /tmp/test.log"}}}` + "\n")
	env := append(os.Environ(), "MM_BIN="+bin, "MM_HOOK_EVENT=preToolCall")

	sides := []struct {
		name, command string
		want          string // stdout, "" for any
	}{
		{"bare sh -c true", "true", ""},
		{"mm version (start-up)", `"$MM_BIN" version >/dev/null`, ""},
		{"mm hooks adapt claude-code -- true", `"$MM_BIN" hooks adapt claude-code -- true`, "{}\n"},
	}
	var out bytes.Buffer
	run := func(i int) time.Duration {
		out.Reset()
		cmd := exec.Command("sh", "-c", sides[i].command)
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(stdin)
		cmd.Stdout = &out
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if err != nil || sides[i].want != "" && out.String() != sides[i].want {
			fail(fmt.Errorf("%s: %v, stdout %q", sides[i].name, err, out.String()))
		}
		return d
	}
	for range *warmup {
		for i := range sides {
			run(i)
		}
	}
	all := make([][]time.Duration, len(sides))
	for round := range *rounds {
		for j := range *n {
			for k := range sides {
				i := (round + j + k) % len(sides)
				all[i] = append(all[i], run(i))
			}
		}
	}
	med := make([]time.Duration, len(sides))
	for i, s := range sides {
		med[i] = median(all[i])
		fmt.Printf("%-36s %8s median (p90 %s)\n", s.name, ms(med[i]), ms(percentile(all[i], 0.9)))
	}
	fmt.Printf("the adapter adds %s to a hook run: mm's start-up %s, the adapter's own work %s\n",
		ms(med[2]-med[0]), ms(med[1]-med[0]), ms(med[2]-med[1]))
	fmt.Printf("  %d rounds x %d runs of each, interleaved\n", *rounds, *n)
}

func median(ds []time.Duration) time.Duration { return percentile(ds, 0.5) }

func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "adaptcost:", err)
	os.Exit(1)
}
