// Command hookturn measures what a command hook costs in a real turn of
// the real mm binary, end to end: one `mm -p` turn with N `true`
// preGeneration hooks against the same turn with none, the difference per
// hook against a bare `sh -c true` spawn, all interleaved in one run, and
// prints the ratio. The project's target is at most 1.10×.
//
// bench/hookcost times hooks.Runner.Run alone; this one also counts what
// mm does around the runs of a turn — the process warden the first hook
// starts, the display, the turn's events — which hookcost cannot see.
// With -base, a second mm binary (say, one built from an older commit) is
// timed in the same interleaving, so that two builds compare in one run.
//
//	go run ./bench/hookturn [-hooks 20] [-rounds 10] [-n 10] [-warmup 3] [-mm PATH] [-base PATH]
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
	base := flag.String("base", "", "a second mm binary to time beside it, in the same run")
	flag.Parse()
	if *rounds < 1 || *n < 1 || *nHooks < 1 {
		fail(fmt.Errorf("-hooks, -rounds and -n must be >= 1"))
	}
	bins, err := runs.Build(".", false)
	if err != nil {
		fail(err)
	}
	defer bins.Close()
	mms := []string{bins.MM}
	if *mmPath != "" {
		mms[0] = *mmPath
	}
	if *base != "" {
		mms = append(mms, *base)
	}
	r, err := measure(mms, bins.Dir, *nHooks, *rounds, *n, *warmup)
	if err != nil {
		bins.Close()
		fail(err)
	}
	r.print(*base != "")
}

type result struct {
	hooks, rounds, n int
	with, without    []time.Duration // the turn's medians, by binary
	bare             time.Duration   // one bare spawn, median
}

// perHook is what one hook adds to binary i's turn.
func (r result) perHook(i int) time.Duration {
	return (r.with[i] - r.without[i]) / time.Duration(r.hooks)
}

func (r result) ratio(i int) float64 { return float64(r.perHook(i)) / float64(r.bare) }

func (r result) print(withBase bool) {
	fmt.Printf("mm -p with %d hooks: %s median; with none: %s; per hook %s\n", r.hooks, runs.MS(r.with[0]), runs.MS(r.without[0]), runs.MS(r.perHook(0)))
	fmt.Printf("bare sh -c spawn: %s median; mm's share %.2fx (target <= %.2fx)\n", runs.MS(r.bare), r.ratio(0), Target)
	if withBase {
		fmt.Printf("base mm -p with %d hooks: %s median; with none: %s; per hook %s, share %.2fx\n", r.hooks, runs.MS(r.with[1]), runs.MS(r.without[1]), runs.MS(r.perHook(1)), r.ratio(1))
	}
	fmt.Printf("  %d rounds x %d runs of each case, interleaved\n", r.rounds, r.n)
}

const command = "true"

func measure(mms []string, dir string, nHooks, rounds, n, warmup int) (result, error) {
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
	turn := func(mm, config string) func() error {
		return func() error {
			cmd := exec.Command(mm, "-c", config, "-p", "hello")
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.Output()
			if err != nil || !strings.Contains(string(out), "ok") {
				return fmt.Errorf("%s -p: %v: %q", mm, err, out)
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
	cases := []runs.Case{{Name: "bare", Run: bare}}
	for _, mm := range mms {
		cases = append(cases,
			runs.Case{Name: mm + " with hooks", Run: runs.Timed(turn(mm, withCfg))},
			runs.Case{Name: mm + " without", Run: runs.Timed(turn(mm, noneCfg))})
	}
	ds, err := runs.Interleave(cases, rounds, n, warmup)
	if err != nil {
		return result{}, err
	}
	r := result{hooks: nHooks, rounds: rounds, n: n, bare: runs.Median(ds[0])}
	for i := range mms {
		r.with = append(r.with, runs.Median(ds[1+2*i]))
		r.without = append(r.without, runs.Median(ds[2+2*i]))
	}
	return r, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hookturn:", err)
	os.Exit(1)
}
