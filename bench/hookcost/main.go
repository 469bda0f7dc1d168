// Command hookcost measures what running a hook through mm costs against a
// bare `sh -c` spawn of the same command, in the same run, and prints the
// ratio of the medians. The project's target is at most 1.10×.
//
// The two are run in interleaved rounds; within a round they alternate run
// by run (mm then bare, then bare then mm, …), so that drift in the
// machine's load reaches both sides alike.
//
//	go run ./bench/hookcost [-rounds 20] [-n 50] [-warmup 20] [-command 'cat >/dev/null']
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/mm-agent/mm/hooks"
)

func main() {
	rounds := flag.Int("rounds", 20, "interleaved rounds")
	n := flag.Int("n", 50, "runs of each side per round")
	warmup := flag.Int("warmup", 20, "untimed runs of each side before the first round")
	command := flag.String("command", "cat >/dev/null", "the hook command both sides run")
	verbose := flag.Bool("v", false, "print each round's medians")
	flag.Parse()
	if *rounds < 1 || *n < 1 {
		fail(fmt.Errorf("-rounds and -n must be >= 1"))
	}

	cwd, err := os.Getwd()
	if err != nil {
		fail(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		fail(err)
	}
	r := &hooks.Runner{
		Hooks: hooks.Set{hooks.PreToolCall: {{Command: *command, Timeout: hooks.DefaultTimeout, OnError: hooks.Warn, ConfigDir: cwd}}},
		Cwd:   cwd,
		Model: "llmman/hf.co/unsloth/gemma-4-E4B-it-GGUF:Q4_K_M",
	}
	in := hooks.Input{
		Event: hooks.PreToolCall,
		Tool: &hooks.Tool{
			ID:    "call_9f2c1ab7e4",
			Name:  "bash",
			Input: json.RawMessage(`{"command":"cd internal/tools && go test -run 'TestBash|TestEdit' ./... > /tmp/test.log 2>&1 && tail -n 40 /tmp/test.log"}`),
		},
	}
	// The bare side gets the very bytes mm writes on the hook's stdin.
	full := in
	full.Cwd, full.Model = r.Cwd, r.Model
	var stdin bytes.Buffer
	enc := json.NewEncoder(&stdin)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(full); err != nil {
		fail(err)
	}

	ctx := context.Background()
	viaMM := func() {
		res := r.Run(ctx, in, "bash")
		if len(res.Runs) != 1 || res.Runs[0].Failure != "" {
			fail(fmt.Errorf("hook run failed: %+v", res.Runs))
		}
	}
	var out bytes.Buffer
	bare := func() {
		out.Reset()
		cmd := exec.Command(sh, "-c", *command)
		cmd.Dir = cwd
		cmd.Stdin = bytes.NewReader(stdin.Bytes())
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			fail(fmt.Errorf("bare spawn: %v", err))
		}
	}

	for range *warmup {
		viaMM()
		bare()
	}
	var mmAll, bareAll []time.Duration
	var ratios []float64
	timed := func(f func()) time.Duration {
		start := time.Now()
		f()
		return time.Since(start)
	}
	for round := range *rounds {
		// Within a round the two alternate run by run, the one going first
		// switching at every run, so a burst of load lands on both sides.
		m, b := make([]time.Duration, *n), make([]time.Duration, *n)
		for i := range *n {
			if (round+i)%2 == 0 {
				m[i] = timed(viaMM)
				b[i] = timed(bare)
			} else {
				b[i] = timed(bare)
				m[i] = timed(viaMM)
			}
		}
		mmAll, bareAll = append(mmAll, m...), append(bareAll, b...)
		ratios = append(ratios, float64(median(m))/float64(median(b)))
		if *verbose {
			fmt.Printf("round %2d: mm %v, bare %v, ratio %.2fx\n", round+1, ms(median(m)), ms(median(b)), ratios[len(ratios)-1])
		}
	}
	mmMed, bareMed := median(mmAll), median(bareAll)
	slices.Sort(ratios)
	fmt.Printf("hook run via mm: %s median; bare sh -c spawn: %s median; ratio %.2fx (target <= 1.10x)\n",
		ms(mmMed), ms(bareMed), float64(mmMed)/float64(bareMed))
	fmt.Printf("  %d rounds x %d runs each; per-round ratio min %.2fx, median %.2fx, max %.2fx\n",
		*rounds, *n, ratios[0], ratios[len(ratios)/2], ratios[len(ratios)-1])
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hookcost:", err)
	os.Exit(1)
}
