//go:build unix

// Command startup measures how fast mm starts, against a hello-world Go
// binary built in the same run (the floor of any Go process start), and
// prints each as a ratio of that floor:
//
//   - mm version: the process start every mm pays, and nothing else;
//   - mm -p against the scripted model: a one-shot turn, the model's round
//     trip measured apart;
//   - a child's start to handshake: an asked agent's process (the hidden
//     subcommand the asking mm starts), from exec to the go-plugin
//     handshake line on its stdout — what a cold relay waits for.
//
// The cases run interleaved, one after the other, the first changing at
// every run, so that the machine's load reaches them all alike.
//
//	go run ./bench/startup [-rounds 20] [-n 10] [-json]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mm-agent/mm/agentproc"
	"github.com/mm-agent/mm/bench/internal/runs"
)

// VersionTarget is the project's bound on `mm version` against the
// hello-world binary (issue 17).
const VersionTarget = 4.0

func main() {
	rounds := flag.Int("rounds", 20, "interleaved rounds")
	n := flag.Int("n", 10, "runs of each case per round")
	warmup := flag.Int("warmup", 5, "untimed runs of each case before the first round")
	asJSON := flag.Bool("json", false, "print the figures as one JSON object")
	cgo := flag.Bool("cgo", false, "build mm with cgo, as a plain go install does where a C compiler is found (default: as releases are, CGO_ENABLED=0)")
	check := flag.Bool("check", false, "exit 1 when mm version misses its target")
	flag.Parse()
	if *rounds < 1 || *n < 1 {
		fail(fmt.Errorf("-rounds and -n must be >= 1"))
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
	if r := res.ratio(res.version); *check && r > VersionTarget {
		fmt.Fprintf(os.Stderr, "startup: missed: mm version %.2fx > %.0fx\n", r, VersionTarget)
		bins.Close() // os.Exit runs no deferred call
		os.Exit(1)
	}
}

// Figures are a run's medians, in milliseconds, and their ratios to the
// hello-world binary's start: -json prints them.
type Figures struct {
	HelloMS, VersionMS, OnceMS, ModelRTMS, HandshakeMS float64
	VersionRatio, OnceRatio, HandshakeRatio            float64
}

func (r result) figures() Figures {
	return Figures{
		HelloMS: runs.MSOf(r.hello), VersionMS: runs.MSOf(r.version), OnceMS: runs.MSOf(r.once),
		ModelRTMS: runs.MSOf(r.modelRT), HandshakeMS: runs.MSOf(r.handshake),
		VersionRatio: r.ratio(r.version), OnceRatio: r.ratio(r.once), HandshakeRatio: r.ratio(r.handshake),
	}
}

// result holds the medians of one run of the benchmark.
type result struct {
	rounds, n  int
	hello      time.Duration
	version    time.Duration
	once       time.Duration // mm -p, whole
	modelRT    time.Duration // the scripted model's round trip, measured alone
	handshake  time.Duration
	helloBytes int64
	mmBytes    int64
}

func (r result) ratio(d time.Duration) float64 { return float64(d) / float64(r.hello) }

func (r result) print(w io.Writer) {
	fmt.Fprintf(w, "hello-world Go binary:     %s median (%.1f MB)\n", runs.MS(r.hello), float64(r.helloBytes)/1e6)
	fmt.Fprintf(w, "mm version:                %s median, %.2fx (target <= %.0fx; %.1f MB)\n", runs.MS(r.version), r.ratio(r.version), VersionTarget, float64(r.mmBytes)/1e6)
	fmt.Fprintf(w, "mm -p (scripted model):    %s median, %.2fx; the model's round trip %s of it\n", runs.MS(r.once), r.ratio(r.once), runs.MS(r.modelRT))
	fmt.Fprintf(w, "child start to handshake:  %s median, %.2fx\n", runs.MS(r.handshake), r.ratio(r.handshake))
	fmt.Fprintf(w, "  %d rounds x %d runs of each case, interleaved\n", r.rounds, r.n)
}

func measure(bins *runs.Binaries, rounds, n, warmup int) (result, error) {
	srv, err := runs.StartModel()
	if err != nil {
		return result{}, err
	}
	defer srv.Close()
	dir := bins.Dir
	expert := filepath.Join(dir, "agent.expert.yaml")
	if err := os.WriteFile(expert, []byte("model: llmman/expert\n"), 0o644); err != nil {
		return result{}, err
	}
	env := append(os.Environ(), "LLMMAN_HOST="+srv.Addr(), "NO_COLOR=1")
	// A start is timed as a benchmark tool times it: spawned with its
	// output to /dev/null, waited for. mm -p's answer is read and checked.
	run := func(name string, args ...string) func() error {
		return func() error {
			cmd := exec.Command(name, args...)
			cmd.Dir, cmd.Env = dir, env
			return cmd.Run()
		}
	}
	once := func() error {
		cmd := exec.Command(bins.MM, "-c", expert, "-p", "hello")
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.Output()
		if err != nil || !strings.Contains(string(out), "ok") {
			return fmt.Errorf("mm -p: %v: %q", err, out)
		}
		return nil
	}
	cases := []runs.Case{
		{Name: "hello", Run: runs.Timed(run(bins.Hello))},
		{Name: "mm version", Run: runs.Timed(run(bins.MM, "version"))},
		{Name: "mm -p", Run: runs.Timed(once)},
		{Name: "model round trip", Run: runs.Timed(srv.Chat)},
		{Name: "child handshake", Run: func() (time.Duration, error) { return handshake(bins.MM, dir, env, expert) }},
	}
	ds, err := runs.Interleave(cases, rounds, n, warmup)
	if err != nil {
		return result{}, err
	}
	r := result{
		rounds: rounds, n: n,
		hello: runs.Median(ds[0]), version: runs.Median(ds[1]),
		once: runs.Median(ds[2]), modelRT: runs.Median(ds[3]), handshake: runs.Median(ds[4]),
	}
	if st, err := os.Stat(bins.Hello); err == nil {
		r.helloBytes = st.Size()
	}
	if st, err := os.Stat(bins.MM); err == nil {
		r.mmBytes = st.Size()
	}
	return r, nil
}

// handshake starts an asked agent's process as the asking mm does and
// times it from exec to its go-plugin handshake line; then stops it.
func handshake(mm, dir string, env []string, config string) (time.Duration, error) {
	cmd := exec.Command(mm, agentproc.ServeCommand, "--config", config)
	cmd.Dir = dir
	cmd.Env = append(env, agentproc.Handshake.MagicCookieKey+"="+agentproc.Handshake.MagicCookieValue, "MM_ASK_DEPTH=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	t := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	d := time.Since(t)
	if err != nil {
		return 0, fmt.Errorf("no handshake line: %v", err)
	}
	if !strings.HasPrefix(line, fmt.Sprintf("1|%d|unix|", agentproc.Handshake.ProtocolVersion)) {
		return 0, fmt.Errorf("not a handshake line: %q", line)
	}
	return d, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "startup:", err)
	os.Exit(1)
}
