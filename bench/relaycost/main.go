// Command relaycost measures what a relay costs mm itself, the model's
// time excluded, against what the same work costs without a relay, in the
// same interleaved rounds (these machines are noisy):
//
//   - cold: an `mm --ask expert …` process, minus an `mm -p …` process of
//     the asked agent's config (the same turn, asked directly): the asking
//     mm's start, the child's start and go-plugin handshake, the gRPC
//     stream, the child's exit;
//   - warm: a later ask to the same running child (agentproc.Supervisor),
//     minus the model's round trip;
//   - the asked agent's resident memory after its first answer.
//
// The asked agent's model is the scripted server on loopback, answering at
// once.
//
//	go run ./bench/relaycost [-rounds 10] [-n 5] [-json]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mm-agent/mm/agentproc"
	"github.com/mm-agent/mm/bench/internal/runs"
	"github.com/mm-agent/mm/relay"
)

// The project's targets (issue 17).
const (
	ColdTarget = 10 * time.Millisecond
	WarmTarget = time.Millisecond
	RSSTarget  = 25_000_000 // bytes
)

func main() {
	rounds := flag.Int("rounds", 10, "interleaved rounds")
	n := flag.Int("n", 5, "runs of each case per round")
	warmup := flag.Int("warmup", 3, "untimed runs of each case before the first round")
	asJSON := flag.Bool("json", false, "print the figures as one JSON object")
	cgo := flag.Bool("cgo", false, "build mm with cgo, as a plain go install does where a C compiler is found (default: as releases are, CGO_ENABLED=0)")
	check := flag.Bool("check", false, "exit 1 when a target is missed")
	flag.Parse()
	if *rounds < 1 || *n < 1 {
		fail(errors.New("-rounds and -n must be >= 1"))
	}
	bins, err := runs.Build(".", *cgo)
	if err != nil {
		fail(err)
	}
	defer bins.Close()
	res, err := measure(bins, *rounds, *n, *warmup)
	if err != nil {
		fail(err)
	}
	if *asJSON {
		json.NewEncoder(os.Stdout).Encode(res.figures())
	} else {
		res.print(os.Stdout)
	}
	if missed := res.missed(); *check && len(missed) > 0 {
		fmt.Fprintf(os.Stderr, "relaycost: missed: %s\n", strings.Join(missed, "; "))
		bins.Close() // os.Exit runs no deferred call
		os.Exit(1)
	}
}

// missed names the targets this run did not meet.
func (r result) missed() []string {
	var m []string
	if r.Cold() > ColdTarget {
		m = append(m, fmt.Sprintf("cold relay %s > %s", runs.MS(r.Cold()), runs.MS(ColdTarget)))
	}
	if r.Warm() > WarmTarget {
		m = append(m, fmt.Sprintf("warm ask %s > %s", runs.MS(r.Warm()), runs.MS(WarmTarget)))
	}
	if r.RSS() > RSSTarget {
		m = append(m, fmt.Sprintf("asked agent's RSS %.1f MB > %.0f MB", float64(r.RSS())/1e6, float64(RSSTarget)/1e6))
	}
	return m
}

// Figures are a run's medians in milliseconds and the asked agent's
// largest RSS: -json prints them.
type Figures struct {
	VersionMS, OnceMS, AskMS, ColdMS, FirstAskMS, CloseMS, WarmMS, ModelRTMS float64
	RSSBytes                                                                 int64
}

func (r result) figures() Figures {
	return Figures{
		VersionMS: runs.MSOf(r.version), OnceMS: runs.MSOf(r.once), AskMS: runs.MSOf(r.ask),
		ColdMS: runs.MSOf(r.Cold()), FirstAskMS: runs.MSOf(r.firstAsk - r.modelRT), CloseMS: runs.MSOf(r.close),
		WarmMS: runs.MSOf(r.Warm()), ModelRTMS: runs.MSOf(r.modelRT), RSSBytes: r.RSS(),
	}
}

// result holds the medians of one run of the benchmark.
type result struct {
	rounds, n int
	version   time.Duration // mm version, for scale
	once      time.Duration // mm -p of the asked agent's config
	ask       time.Duration // mm --ask of that agent
	firstAsk  time.Duration // Supervisor.Ask to a child not yet running
	warmAsk   time.Duration // Supervisor.Ask to a running child
	close     time.Duration // Supervisor.Close: the child's orderly exit
	modelRT   time.Duration
	rss       []int64 // the child's RSS after its first answer, one per start
}

// Cold is the relay's cost to a one-shot ask: --ask minus -p.
func (r result) Cold() time.Duration { return r.ask - r.once }

// Warm is a later ask's cost, the model's round trip taken off.
func (r result) Warm() time.Duration { return r.warmAsk - r.modelRT }

// RSS is the largest RSS an asked agent had after its first answer.
func (r result) RSS() int64 { return slices.Max(r.rss) }

func (r result) print(w io.Writer) {
	fmt.Fprintf(w, "mm version (for scale):        %s median\n", runs.MS(r.version))
	fmt.Fprintf(w, "mm -p, the asked config:       %s median\n", runs.MS(r.once))
	fmt.Fprintf(w, "mm --ask, the same turn:       %s median\n", runs.MS(r.ask))
	fmt.Fprintf(w, "cold relay (--ask minus -p):   %s (target <= %s)\n", runs.MS(r.Cold()), runs.MS(ColdTarget))
	fmt.Fprintf(w, "first ask, in process:         %s median (child start, handshake, one turn; model round trip %s taken off)\n",
		runs.MS(r.firstAsk-r.modelRT), runs.MS(r.modelRT))
	fmt.Fprintf(w, "closing the child:             %s median (the end of a one-shot ask; part of cold)\n", runs.MS(r.close))
	fmt.Fprintf(w, "warm ask:                      %s median (target <= %s)\n", runs.MS(r.Warm()), runs.MS(WarmTarget))
	sorted := slices.Sorted(slices.Values(r.rss))
	fmt.Fprintf(w, "asked agent's RSS after its first answer: %.1f MB median, %.1f MB max (target <= %.0f MB)\n",
		float64(sorted[len(sorted)/2])/1e6, float64(r.RSS())/1e6, float64(RSSTarget)/1e6)
	fmt.Fprintf(w, "  %d rounds x %d runs of each case, interleaved; 10 warm asks per child\n", r.rounds, r.n)
}

func measure(bins *runs.Binaries, rounds, n, warmup int) (result, error) {
	srv, err := runs.StartModel()
	if err != nil {
		return result{}, err
	}
	defer srv.Close()
	dir := bins.Dir
	expert := filepath.Join(dir, "agent.expert.yaml")
	asking := filepath.Join(dir, "agent.yaml")
	for path, text := range map[string]string{
		expert: "model: llmman/expert\n",
		asking: "model: llmman/main\nmmConfigs:\n  expert: ./agent.expert.yaml\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return result{}, err
		}
	}
	env := append(os.Environ(), "LLMMAN_HOST="+srv.Addr(), "NO_COLOR=1")
	// Each process's answer is read and checked, the same way for -p and
	// --ask; mm version's output goes to /dev/null.
	run := func(args ...string) func() error {
		return func() error {
			cmd := exec.Command(bins.MM, args...)
			cmd.Dir, cmd.Env = dir, env
			if args[0] == "version" {
				return cmd.Run()
			}
			out, err := cmd.Output()
			if err != nil || !strings.Contains(string(out), "ok") {
				return fmt.Errorf("mm %s: %v: %q", strings.Join(args, " "), err, out)
			}
			return nil
		}
	}
	var warm, closing []time.Duration
	var rss []int64
	supervised := func() (time.Duration, error) {
		sup := &agentproc.Supervisor{Bin: bins.MM, Dir: dir, Env: func(depth int) []string {
			return append(env[:len(env):len(env)], "MM_ASK_DEPTH="+strconv.Itoa(depth))
		}}
		closed := false
		defer func() {
			if !closed {
				sup.Close()
			}
		}()
		req := relay.AskRequest{Agent: "expert", Config: expert, Depth: 1, Prompt: "hello"}
		t := time.Now()
		if r := sup.Ask(context.Background(), req); r.Status != relay.Answered {
			return 0, fmt.Errorf("first ask: %s", r.Error)
		}
		first := time.Since(t)
		size, err := childRSS()
		if err != nil {
			return 0, err
		}
		rss = append(rss, size)
		for range 10 {
			t = time.Now()
			if r := sup.Ask(context.Background(), req); r.Status != relay.Answered {
				return 0, fmt.Errorf("warm ask: %s", r.Error)
			}
			warm = append(warm, time.Since(t))
		}
		t = time.Now()
		sup.Close()
		closing, closed = append(closing, time.Since(t)), true
		return first, nil
	}
	cases := []runs.Case{
		{Name: "mm version", Run: runs.Timed(run("version"))},
		{Name: "mm -p", Run: runs.Timed(run("-c", expert, "-p", "hello"))},
		{Name: "mm --ask", Run: runs.Timed(run("-c", asking, "--ask", "expert", "hello"))},
		{Name: "model round trip", Run: runs.Timed(srv.Chat)},
		{Name: "asks to a supervised child", Run: supervised},
	}
	ds, err := runs.Interleave(cases, rounds, n, warmup)
	if err != nil {
		return result{}, err
	}
	warm = warm[warmup*10:] // the warm-up's
	rss, closing = rss[warmup:], closing[warmup:]
	return result{
		rounds: rounds, n: n,
		version: runs.Median(ds[0]), once: runs.Median(ds[1]), ask: runs.Median(ds[2]),
		modelRT: runs.Median(ds[3]), firstAsk: runs.Median(ds[4]), warmAsk: runs.Median(warm),
		close: runs.Median(closing), rss: rss,
	}, nil
}

// childRSS is the resident memory of this process's one asked agent.
func childRSS() (int64, error) {
	self := strconv.Itoa(os.Getpid())
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		status, err := os.ReadFile(filepath.Join("/proc", p.Name(), "status"))
		if err != nil || !strings.Contains(string(status), "\nPPid:\t"+self+"\n") {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if !strings.Contains(string(cmdline), agentproc.ServeCommand) {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			if kb, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
				return n * 1024, err
			}
		}
	}
	return 0, errors.New("no asked agent's process found under /proc")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "relaycost:", err)
	os.Exit(1)
}
