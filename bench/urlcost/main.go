// Command urlcost measures what a URL hook run costs against a command
// hook's `sh -c` spawn, in the same run, and prints the ratio of the
// medians. The contract's target is at most one third: a URL hook on a
// kept-alive connection costs a request, not a process.
//
// The URL hook is run through hooks.Runner.Run against a policy server in
// this process on loopback, which reads the input and answers
// {"action":"continue"}; the spawn is os/exec running `sh -c 'cat
// >/dev/null'` with the same input on stdin, as bench/hookcost's bare
// side. A command hook run through the runner is timed beside them, for
// scale. The three alternate run by run, in an order that rotates.
//
//	go run ./bench/urlcost [-rounds 20] [-n 50] [-warmup 20]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"

	"github.com/mm-agent/mm/bench/internal/runs"
	"github.com/mm-agent/mm/hooks"
)

// Target is the ceiling of a URL hook run's cost, as a share of a spawn.
const Target = 1.0 / 3

func main() {
	rounds := flag.Int("rounds", 20, "interleaved rounds")
	n := flag.Int("n", 50, "runs of each case per round")
	warmup := flag.Int("warmup", 20, "untimed runs of each case before the first round")
	flag.Parse()
	if *rounds < 1 || *n < 1 {
		fail(fmt.Errorf("-rounds and -n must be >= 1"))
	}
	cwd, err := os.Getwd()
	if err != nil {
		fail(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in hooks.Input
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&in); err != nil || in.Event != hooks.PreToolCall {
			http.Error(w, "bad input", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"action":"continue"}`)
	})}
	go srv.Serve(ln)
	defer srv.Close()

	const command = "cat >/dev/null"
	hook := func(h hooks.Hook) *hooks.Runner {
		h.Timeout, h.OnError, h.ConfigDir = hooks.DefaultTimeout, hooks.Fail, cwd
		return &hooks.Runner{Hooks: hooks.Set{hooks.PreToolCall: {h}}, Cwd: cwd, Model: "llmman/hf.co/unsloth/gemma-4-E4B-it-GGUF:Q4_K_M"}
	}
	urlHook := hook(hooks.Hook{URL: "http://" + ln.Addr().String() + "/hooks"})
	cmdHook := hook(hooks.Hook{Command: command})
	in := hooks.Input{
		Event: hooks.PreToolCall,
		Tool: &hooks.Tool{
			ID:    "call_9f2c1ab7e4",
			Name:  "bash",
			Input: json.RawMessage(`{"command":"cd internal/tools && go test -run 'TestBash|TestEdit' ./... > /tmp/test.log 2>&1 && tail -n 40 /tmp/test.log"}`),
		},
	}
	full := urlHook.Complete(in)
	stdin, err := json.Marshal(full)
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	via := func(r *hooks.Runner) func() error {
		return func() error {
			res := r.Run(ctx, in, "bash")
			if len(res.Runs) != 1 || res.Runs[0].Failure != "" || res.Deny {
				return fmt.Errorf("hook run failed: %+v", res.Runs)
			}
			return nil
		}
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		fail(err)
	}
	var out bytes.Buffer
	spawn := func() error {
		out.Reset()
		cmd := exec.Command(sh, "-c", command)
		cmd.Dir = cwd
		cmd.Stdin = bytes.NewReader(stdin)
		cmd.Stdout = &out
		return cmd.Run()
	}
	cases := []runs.Case{
		{Name: "url hook", Run: runs.Timed(via(urlHook))},
		{Name: "bare spawn", Run: runs.Timed(spawn)},
		{Name: "command hook", Run: runs.Timed(via(cmdHook))},
	}
	ds, err := runs.Interleave(cases, *rounds, *n, *warmup)
	if err != nil {
		fail(err)
	}
	u, b, c := runs.Median(ds[0]), runs.Median(ds[1]), runs.Median(ds[2])
	ratio := float64(u) / float64(b)
	fmt.Printf("url hook on loopback: %s median; bare sh -c spawn: %s median; ratio %.2fx (target <= %.2fx)\n", runs.MS(u), runs.MS(b), ratio, Target)
	fmt.Printf("  command hook through mm: %s median; %d rounds x %d runs of each case, interleaved\n", runs.MS(c), *rounds, *n)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "urlcost:", err)
	os.Exit(1)
}
