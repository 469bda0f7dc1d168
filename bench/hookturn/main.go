// Command hookturn measures what a command hook costs in a real turn of
// the real mm binary, end to end: one `mm -p` turn with N `true`
// preGeneration hooks against the same turn with none, the difference per
// hook against a bare `sh -c true` spawn, all interleaved in one run, and
// prints the ratio. The project's target is at most 1.10×.
//
// bench/hookcost times hooks.Runner.Run alone; this one also counts what
// the rest of mm does around each run (the display, the audit log, the
// events of the turn, …), which hookcost cannot see.
//
//	go run ./bench/hookturn [-hooks 20] [-rounds 10] [-n 10] [-warmup 3] [-mm PATH]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mm-agent/mm/bench/internal/runs"
)

// Target is the ceiling of mm's share of a hook run.
const Target = 1.10

func main() {
	nHooks := flag.Int("hooks", 20, "preGeneration hooks in the timed turn")
	rounds := flag.Int("rounds", 10, "interleaved rounds")
	n := flag.Int("n", 10, "runs of each case per round")
	warmup := flag.Int("warmup", 3, "untimed runs of each case before the first round")
	mmPath := flag.String("mm", "", "the mm binary to time (default: build ./cmd/mm)")
	command := flag.String("command", "true", "the hook command, and what the bare spawn runs")
	flag.Parse()
	if *rounds < 1 || *n < 1 || *nHooks < 1 {
		fail(fmt.Errorf("-hooks, -rounds and -n must be >= 1"))
	}
	bins, err := runs.Build(".", false)
	if err != nil {
		fail(err)
	}
	defer bins.Close()
	mm := bins.MM
	if *mmPath != "" {
		mm = *mmPath
	}
	r, err := measure(mm, bins.Dir, *nHooks, *command, *rounds, *n, *warmup)
	if err != nil {
		bins.Close()
		fail(err)
	}
	r.print()
}

type result struct {
	hooks, rounds, n int
	with, without    time.Duration // the turn, medians
	bare             time.Duration // one bare spawn, median
}

// perHook is what one hook adds to the turn.
func (r result) perHook() time.Duration { return (r.with - r.without) / time.Duration(r.hooks) }

func (r result) ratio() float64 { return float64(r.perHook()) / float64(r.bare) }

func (r result) print() {
	fmt.Printf("mm -p with %d hooks: %s median; with none: %s; per hook %s\n", r.hooks, runs.MS(r.with), runs.MS(r.without), runs.MS(r.perHook()))
	fmt.Printf("bare sh -c spawn: %s median; mm's share %.2fx (target <= %.2fx)\n", runs.MS(r.bare), r.ratio(), Target)
	fmt.Printf("  %d rounds x %d runs of each case, interleaved\n", r.rounds, r.n)
}

func measure(mm, dir string, nHooks int, command string, rounds, n, warmup int) (result, error) {
	srv, err := runs.StartModel()
	if err != nil {
		return result{}, err
	}
	defer srv.Close()
	var hooked strings.Builder
	hooked.WriteString("model: llmman/bench\nhooks:\n  preGeneration:\n")
	for range nHooks {
		fmt.Fprintf(&hooked, "    - command: %q\n", command)
	}
	withCfg, noneCfg := filepath.Join(dir, "agent.hooks.yaml"), filepath.Join(dir, "agent.none.yaml")
	if err := os.WriteFile(withCfg, []byte(hooked.String()), 0o644); err != nil {
		return result{}, err
	}
	if err := os.WriteFile(noneCfg, []byte("model: llmman/bench\n"), 0o644); err != nil {
		return result{}, err
	}
	// XDG_STATE_HOME in the temporary directory: the user's state
	// directory is left alone whatever this mm version keeps there.
	env := append(os.Environ(), "LLMMAN_HOST="+srv.Addr(), "NO_COLOR=1", "XDG_STATE_HOME="+filepath.Join(dir, "state"))
	turn := func(config string) func() error {
		return func() error {
			cmd := exec.Command(mm, "-c", config, "-p", "hello")
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.Output()
			if err != nil || !strings.Contains(string(out), "ok") {
				return fmt.Errorf("mm -p: %v: %q", err, out)
			}
			return nil
		}
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		return result{}, err
	}
	// The bare side spawns N times in a row, as the turn does, and counts
	// the mean of the N: one spawn timed alone would leave out the same
	// back-to-back effects (caches, the scheduler) that the turn's N see.
	bare := func() (time.Duration, error) {
		start := time.Now()
		for range nHooks {
			cmd := exec.Command(sh, "-c", command)
			cmd.Dir, cmd.Env = dir, env
			cmd.Stdin = strings.NewReader(`{"event":"preGeneration","prompt":"hello"}` + "\n")
			if err := cmd.Run(); err != nil {
				return 0, fmt.Errorf("sh -c %s: %w", command, err)
			}
		}
		return time.Since(start) / time.Duration(nHooks), nil
	}
	cases := []runs.Case{
		{Name: "with hooks", Run: runs.Timed(turn(withCfg))},
		{Name: "without", Run: runs.Timed(turn(noneCfg))},
		{Name: "bare", Run: bare},
	}
	ds, err := runs.Interleave(cases, rounds, n, warmup)
	if err != nil {
		return result{}, err
	}
	return result{hooks: nHooks, rounds: rounds, n: n,
		with: runs.Median(ds[0]), without: runs.Median(ds[1]), bare: runs.Median(ds[2])}, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hookturn:", err)
	os.Exit(1)
}
