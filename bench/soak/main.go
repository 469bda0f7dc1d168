// Command soak drives one long line-mode mm session and watches what a
// session must not accumulate: "nothing lost, nothing left behind, nothing
// leaked". It builds mm, serves the scripted model in-process, and pipes
// into ONE `mm` process a long run of turns — each makes the model call
// bash once, so the four turn hooks (preGeneration, preToolCall,
// postToolCall, postGeneration) all fire — interleaved with /ask relays to
// two asked agents, alternating.
//
// mm's goroutines are not visible from outside, so it samples what is:
// mm's open file descriptors, threads and resident memory, its child
// processes (the asked agents; zombies listed apart) and theirs, at the
// start, at regular points and at the end. Afterwards it checks that the
// hooksLog audit file holds every run of every turn (counted per event) and
// that no process is left running in the session's directory once mm has
// exited. It prints a table and a verdict.
//
//	go run ./bench/soak [-turns 1000] [-relays 200] [-samples 10]
//
// The driver paces the session with a marker after every step: an unknown
// command (/mark-<n>) that mm answers on stdout only once the step before it
// is over, so a sample is always taken between steps, when mm runs nothing.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mm-agent/mm/internal/mockmodel"
)

func main() {
	turns := flag.Int("turns", 1000, "turns in the session (each calls bash once)")
	relays := flag.Int("relays", 200, "/ask relays, alternating between agents a and b")
	samples := flag.Int("samples", 10, "samples between the start and the end")
	stepTimeout := flag.Duration("step-timeout", 60*time.Second, "longest a single step may take")
	keep := flag.Bool("keep", false, "keep the session directory")
	flag.Parse()
	ok, err := run(*turns, *relays, *samples, *stepTimeout, *keep)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(2)
	}
}

// The scripted model: the main agent calls bash once per turn and answers
// after the tool's output; each asked agent answers at once.
const script = `replies:
  - model: '^agent-a$'
    repeat: true
    text: "a says: {{.LastUser}}"
  - model: '^agent-b$'
    repeat: true
    text: "b says: {{.LastUser}}"
  - model: '^main$'
    match: '^turn \d+$'
    repeat: true
    toolCalls:
      - {name: bash, args: {command: 'true'}}
  - model: '^main$'
    match: 'exit status 0'
    repeat: true
    text: ok
`

// The four turn events, one cheap hook each, and every run in audit.jsonl.
const agentYAML = `model: llmman/main
yolo: true
hooksLog: audit.jsonl
mmConfigs:
  a: ./agent.a.yaml
  b: ./agent.b.yaml
hooks:
  preGeneration:
    - command: cat > /dev/null
  preToolCall:
    - command: cat > /dev/null
  postToolCall:
    - command: cat > /dev/null
  postGeneration:
    - command: cat > /dev/null
`

var turnEvents = []string{"preGeneration", "preToolCall", "postToolCall", "postGeneration"}

func run(turns, relays, samples int, stepTimeout time.Duration, keep bool) (bool, error) {
	dir, err := os.MkdirTemp("", "mm-soak-")
	if err != nil {
		return false, err
	}
	if keep {
		fmt.Println("session directory:", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	bin := filepath.Join(dir, "mm")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/mm").CombinedOutput(); err != nil {
		return false, fmt.Errorf("build mm (run from the repository root): %v\n%s", err, out)
	}
	files := map[string]string{
		"agent.yaml":   agentYAML,
		"agent.a.yaml": "model: llmman/agent-a\n",
		"agent.b.yaml": "model: llmman/agent-b\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return false, err
		}
	}

	sc, err := mockmodel.ParseScript([]byte(script))
	if err != nil {
		return false, err
	}
	// (The in-process server keeps every request it received; that memory
	// is the driver's, not mm's.)
	srv := mockmodel.New(sc, "")
	if _, err := srv.Start("127.0.0.1:0"); err != nil {
		return false, err
	}
	defer srv.Close()

	cmd := exec.Command(bin, "-c", "agent.yaml")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LLMMAN_HOST="+srv.Addr(), "NO_COLOR=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return false, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return false, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return false, err
	}
	pid := cmd.Process.Pid
	defer cmd.Process.Kill() // only if we return early; a no-op after Wait

	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()

	// out counts what mm printed, step by step.
	var out struct{ banner, footers, answers, relayAnswers, other int }
	var otherLines []string
	marker := 0
	// mark sends a marker and reads stdout up to mm's answer to it.
	mark := func() error {
		marker++
		want := fmt.Sprintf("unknown command /mark-%d;", marker)
		if _, err := fmt.Fprintf(stdin, "/mark-%d\n", marker); err != nil {
			return fmt.Errorf("write to mm: %w", err)
		}
		deadline := time.After(stepTimeout)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					return fmt.Errorf("mm closed its stdout (stderr: %s)", lastLines(stderr.String(), 5))
				}
				switch {
				case strings.HasPrefix(l, want):
					return nil
				case strings.HasPrefix(l, "mm v"):
					out.banner++
				case l == "⚙ 1 command(s)":
					out.footers++
				case l == "🤖 ok":
					out.answers++
				case strings.HasPrefix(l, "[a] 🤖 a says: ") || strings.HasPrefix(l, "[b] 🤖 b says: "):
					out.relayAnswers++
				case l == "🔧 bash: true":
				default:
					out.other++
					if len(otherLines) < 10 {
						otherLines = append(otherLines, l)
					}
				}
			case <-deadline:
				return fmt.Errorf("step %d: no answer from mm within %s", marker, stepTimeout)
			}
		}
	}

	// The steps: the turns, with a relay after every few of them.
	type step struct {
		line  string
		relay bool
	}
	var steps []step
	every := 0
	if relays > 0 {
		every = max(turns/relays, 1)
	}
	r := 0
	for t := 1; t <= turns; t++ {
		steps = append(steps, step{line: fmt.Sprintf("turn %d", t)})
		if every > 0 && t%every == 0 && r < relays {
			agent := "ab"[r%2 : r%2+1]
			steps = append(steps, step{line: fmt.Sprintf("/ask %s question %d", agent, r+1), relay: true})
			r++
		}
	}
	for ; r < relays; r++ {
		agent := "ab"[r%2 : r%2+1]
		steps = append(steps, step{line: fmt.Sprintf("/ask %s question %d", agent, r+1), relay: true})
	}

	var table []sample
	take := func(label string, turnsDone, relaysDone int) {
		s := measure(pid)
		s.label, s.turns, s.relays, s.elapsed = label, turnsDone, relaysDone, time.Since(start)
		table = append(table, s)
	}

	if err := mark(); err != nil {
		return false, err
	}
	take("start", 0, 0)
	every = max(len(steps)/max(samples, 1), 1)
	turnsDone, relaysDone := 0, 0
	for i, st := range steps {
		if _, err := fmt.Fprintln(stdin, st.line); err != nil {
			return false, fmt.Errorf("write to mm: %w", err)
		}
		if err := mark(); err != nil {
			return false, err
		}
		if st.relay {
			relaysDone++
		} else {
			turnsDone++
		}
		if (i+1)%every == 0 && i+1 < len(steps) {
			take(fmt.Sprintf("step %d", i+1), turnsDone, relaysDone)
		}
	}
	take("end", turnsDone, relaysDone)
	agents := table[len(table)-1].childPIDs

	fmt.Fprintln(stdin, "/exit")
	stdin.Close()
	for range lines {
	}
	waitErr := cmd.Wait()
	total := time.Since(start)

	// Nothing left behind: the asked agents are gone, and no process runs
	// in the session's directory (hooks, tools and agents all start there).
	time.Sleep(200 * time.Millisecond)
	var leftovers []string
	deadline := time.Now().Add(5 * time.Second)
	for {
		leftovers = leftovers[:0]
		for _, p := range agents {
			if alive(p) {
				leftovers = append(leftovers, fmt.Sprintf("asked agent pid %d", p))
			}
		}
		leftovers = append(leftovers, processesIn(dir)...)
		if len(leftovers) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}

	audit, auditBad, err := countAudit(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		return false, err
	}

	// The report.
	fmt.Printf("mm soak: one line-mode session, %d turns (4 hooks each) and %d relays (/ask a, /ask b), %s in all (%.1f steps/s)\n",
		turnsDone, relaysDone, total.Round(time.Second), float64(len(steps))/total.Seconds())
	fmt.Println()
	fmt.Printf("%-10s %6s %6s %8s %5s %8s %9s %8s %9s %11s %10s\n",
		"sample", "turns", "relays", "elapsed", "fds", "threads", "children", "zombies", "RSS MiB", "child fds", "child RSS")
	for _, s := range table {
		fmt.Printf("%-10s %6d %6d %7.0fs %5d %8d %9d %8d %9.1f %11d %9.1fM\n",
			s.label, s.turns, s.relays, s.elapsed.Seconds(), s.fds, s.threads, len(s.childPIDs), len(s.zombies),
			float64(s.rssKB)/1024, s.childFDs, float64(s.childRSSKB)/1024)
	}
	fmt.Println()
	fmt.Printf("stdout: %d answers, %d tool footers, %d relay answers, %d other lines\n", out.answers, out.footers, out.relayAnswers, out.other)
	for _, l := range otherLines {
		fmt.Printf("  other: %q\n", l)
	}
	fmt.Printf("stderr: %d bytes", stderr.Len())
	if stderr.Len() > 0 {
		fmt.Printf(": %s", lastLines(stderr.String(), 5))
	}
	fmt.Println()
	fmt.Printf("exit: %v\n", exitText(waitErr))
	fmt.Print("audit.jsonl:")
	for _, e := range turnEvents {
		fmt.Printf(" %s %d", e, audit[e])
	}
	fmt.Printf("; lines not `continue` or not JSON: %d\n", auditBad)
	if len(leftovers) == 0 {
		fmt.Println("after exit: no asked agent and no process left in the session directory")
	} else {
		fmt.Printf("after exit, still running: %s\n", strings.Join(leftovers, ", "))
	}

	// The verdict: compare the end with the first sample taken once both
	// asked agents were running (their start is growth by design).
	var problems []string
	base := table[0]
	for _, s := range table {
		if len(s.childPIDs) >= 2 {
			base = s
			break
		}
	}
	end := table[len(table)-1]
	growth := func(what string, from, to, allowed int64, unit string) {
		if to-from > allowed {
			problems = append(problems, fmt.Sprintf("%s grew from %d to %d %s (%s → end)", what, from, to, unit, base.label))
		}
	}
	growth("mm's file descriptors", int64(base.fds), int64(end.fds), 2, "")
	growth("mm's threads", int64(base.threads), int64(end.threads), 4, "")
	growth("mm's child processes", int64(len(base.childPIDs)), int64(len(end.childPIDs)), 0, "")
	// The history itself grows with every turn (the model reads it all):
	// allow 16 MiB of it, far beyond what 4,400 short messages take.
	growth("mm's RSS", base.rssKB, end.rssKB, 16<<10, "KiB")
	growth("the asked agents' file descriptors", int64(base.childFDs), int64(end.childFDs), 4, "")
	growth("the asked agents' RSS", base.childRSSKB, end.childRSSKB, 16<<10, "KiB")
	for _, s := range table {
		if len(s.zombies) > 0 {
			problems = append(problems, fmt.Sprintf("zombies at %s: %s", s.label, strings.Join(s.zombies, ", ")))
		}
	}
	for _, e := range turnEvents {
		if audit[e] != turnsDone {
			problems = append(problems, fmt.Sprintf("audit.jsonl has %d %s lines for %d turns", audit[e], e, turnsDone))
		}
	}
	if auditBad > 0 {
		problems = append(problems, fmt.Sprintf("%d audit lines are not JSON or not `continue`", auditBad))
	}
	if out.answers != turnsDone || out.footers != turnsDone {
		problems = append(problems, fmt.Sprintf("%d turns answered and %d footers for %d turns", out.answers, out.footers, turnsDone))
	}
	if out.relayAnswers != relaysDone {
		problems = append(problems, fmt.Sprintf("%d relay answers for %d relays", out.relayAnswers, relaysDone))
	}
	if out.banner != 1 || out.other > 0 {
		problems = append(problems, fmt.Sprintf("unexpected stdout: %d banners, %d other lines", out.banner, out.other))
	}
	if stderr.Len() > 0 {
		problems = append(problems, "mm wrote to stderr")
	}
	if waitErr != nil {
		problems = append(problems, "mm exited with "+exitText(waitErr))
	}
	if len(leftovers) > 0 {
		problems = append(problems, "processes left behind")
	}
	fmt.Println()
	if len(problems) == 0 {
		fmt.Printf("verdict: no growth beyond noise (%s → end: fds %+d, threads %+d, children %+d, RSS %+.1f MiB, asked agents' RSS %+.1f MiB), every audit line present, nothing left behind\n",
			base.label, end.fds-base.fds, end.threads-base.threads, len(end.childPIDs)-len(base.childPIDs),
			float64(end.rssKB-base.rssKB)/1024, float64(end.childRSSKB-base.childRSSKB)/1024)
		return true, nil
	}
	fmt.Println("verdict: FAILED")
	for _, p := range problems {
		fmt.Println("  - " + p)
	}
	return false, nil
}

// sample is what could be seen of mm from outside at one moment.
type sample struct {
	label         string
	turns, relays int
	elapsed       time.Duration
	fds, threads  int
	rssKB         int64
	childPIDs     []int    // live children (the asked agents)
	zombies       []string // "pid (comm)" of children that exited and were not reaped
	childFDs      int      // file descriptors of the live children, summed
	childRSSKB    int64    // their RSS, summed
}

func measure(pid int) sample {
	s := sample{fds: countFDs(pid)}
	st := status(pid)
	s.threads = int(st["Threads"])
	s.rssKB = st["VmRSS"]
	for _, c := range children(pid) {
		if c.state == 'Z' || c.state == 'X' {
			s.zombies = append(s.zombies, fmt.Sprintf("%d (%s)", c.pid, c.comm))
			continue
		}
		s.childPIDs = append(s.childPIDs, c.pid)
		s.childFDs += countFDs(c.pid)
		s.childRSSKB += status(c.pid)["VmRSS"]
	}
	return s
}

func countFDs(pid int) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return -1
	}
	return len(ents)
}

// status reads the numeric fields of /proc/<pid>/status (kB for sizes).
func status(pid int) map[string]int64 {
	m := map[string]int64{}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			m[k] = n
		}
	}
	return m
}

type proc struct {
	pid   int
	comm  string
	state byte
	ppid  int
}

// procs lists every process from /proc/*/stat.
func procs() []proc {
	ents, _ := os.ReadDir("/proc")
	var out []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(data)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < 0 || close+4 > len(s) {
			continue
		}
		f := strings.Fields(s[close+2:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		out = append(out, proc{pid: pid, comm: s[open+1 : close], state: f[0][0], ppid: ppid})
	}
	return out
}

func children(pid int) []proc {
	var out []proc
	for _, p := range procs() {
		if p.ppid == pid {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pid < out[j].pid })
	return out
}

func alive(pid int) bool {
	for _, p := range procs() {
		if p.pid == pid {
			return p.state != 'Z' && p.state != 'X'
		}
	}
	return false
}

// processesIn lists the live processes whose working directory is dir.
func processesIn(dir string) []string {
	var out []string
	for _, p := range procs() {
		if p.pid == os.Getpid() || p.state == 'Z' || p.state == 'X' {
			continue
		}
		cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", p.pid))
		if err == nil && (cwd == dir || strings.HasPrefix(cwd, dir+"/")) {
			out = append(out, fmt.Sprintf("pid %d (%s)", p.pid, p.comm))
		}
	}
	return out
}

// countAudit counts the audit lines per event, and those that are not
// well-formed JSON or whose decision is not "continue".
func countAudit(path string) (map[string]int, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	counts := map[string]int{}
	bad := 0
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var l struct {
				Event    string `json:"event"`
				Decision string `json:"decision"`
			}
			if json.Unmarshal(line, &l) != nil || l.Decision != "continue" {
				bad++
			} else {
				counts[l.Event]++
			}
		}
		if errors.Is(err, io.EOF) {
			return counts, bad, nil
		}
		if err != nil {
			return nil, 0, err
		}
	}
}

func exitText(err error) string {
	if err == nil {
		return "status 0"
	}
	return err.Error()
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, " | ")
}
