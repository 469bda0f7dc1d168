package procs

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTaggedFindsByEnvironment(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	cmd.Env = append(os.Environ(), TagEnv+"=someone.1 testtok.7")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	if got := tagged(func(tags string) bool { return hasTag(tags, "testtok.7") }); !slices.Contains(got, cmd.Process.Pid) {
		t.Errorf("tagged = %v, want %d among them", got, cmd.Process.Pid)
	}
	if got := tagged(func(tags string) bool { return hasTag(tags, "testtok.8") }); slices.Contains(got, cmd.Process.Pid) {
		t.Errorf("found by another tag")
	}
}

func TestLookupEnv(t *testing.T) {
	block := []byte("A=1\x00" + TagEnv + "=x.1 y.2\x00B=\x00")
	if v, ok := lookupEnv(block, TagEnv); !ok || v != "x.1 y.2" {
		t.Errorf("got %q, %v", v, ok)
	}
	if _, ok := lookupEnv(block, "C"); ok {
		t.Error("found C")
	}
	if v, ok := lookupEnv([]byte("B=last"), "B"); !ok || v != "last" {
		t.Errorf("got %q, %v", v, ok)
	}
}

func TestParentDeathSignal(t *testing.T) {
	cmd := exec.Command("true")
	PrepareServer(cmd)
	if cmd.SysProcAttr.Pdeathsig != syscall.SIGKILL || !cmd.SysProcAttr.Setpgid {
		t.Errorf("a server: %+v", cmd.SysProcAttr)
	}
	agent := exec.Command("true")
	Prepare(agent)
	l, err := NewLifeline(agent)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if agent.SysProcAttr.Pdeathsig != syscall.SIGTERM || len(agent.ExtraFiles) != 1 {
		t.Errorf("a child mm: %+v", agent.SysProcAttr)
	}
}

// TestTiedStartsNoWarden: on Linux a child mm (a lifeline, the parent-death
// signal) starts no warden — the kernel and the lifeline end it with mm —
// but the warden a later process starts is told of its group: a kill -9 of
// the mm still takes a child deaf to SIGTERM.
func TestTiedStartsNoWarden(t *testing.T) {
	owner := helperCmd(t, "tied")
	out, _ := owner.StdoutPipe()
	owner.Stderr = os.Stderr
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	if pids := readPids(t, r); len(pids) != 1 || pids[0] != 0 {
		t.Fatalf("a warden (%v) was started for a child tied to its parent's life", pids)
	}
	pids := readPids(t, r)
	if len(pids) != 2 || pids[1] == 0 {
		t.Fatalf("owner printed %v: no warden for an ordinary group", pids)
	}
	owner.Process.Signal(syscall.SIGKILL)
	owner.Wait()
	gone(t, 2*time.Second, pids...)
}

// TestWardenIgnoresPoliteSignals: the warden outlives a Ctrl-C, a hang-up
// or a plain kill sent to it (on Linux it ignores them from its earliest
// init, package earlywarden), and still ends when mm's pipe does.
func TestWardenIgnoresPoliteSignals(t *testing.T) {
	if err := ready(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	pid := warden.pid
	mu.Unlock()
	time.Sleep(100 * time.Millisecond) // past its init
	for _, s := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		syscall.Kill(pid, s)
	}
	time.Sleep(100 * time.Millisecond)
	if st := procState(pid); st == "Z" || st == "" {
		t.Fatalf("the warden (%d) died of a polite signal (state %q)", pid, st)
	}
}

// TestShutdown: an mm that ends cleanly tells its warden, which is not its
// child, that nothing is left when nothing is — it then exits without a
// hunt — and kills a daemon of its own that got away itself. A daemon
// with its environment cleared carries no tag: mm cannot tell it from a
// process it did not start, leaves it, and says so.
func TestShutdown(t *testing.T) {
	for _, c := range []struct {
		name, command string
		clean         bool // and the process printed is gone
	}{
		{"nothing left", `sleep 30 & echo $!`, true},
		// (The run lasts until the daemon has left its session — field 6
		// of its stat is its own pid —: the group's kill would take it
		// otherwise.)
		{"a daemon", `setsid sleep 30 </dev/null >/dev/null 2>&1 & d=$!; echo $d; ` + untilLeft, true},
		{"a daemon with no environment", `env -i setsid sleep 30 </dev/null >/dev/null 2>&1 & d=$!; echo $d; ` + untilLeft, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			owner := helperCmd(t, "shutdown", c.command)
			owner.Stderr = os.Stderr
			out, err := owner.Output()
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(lines) != 2 {
				t.Fatalf("owner printed %q", out)
			}
			pids := readPids(t, strings.NewReader(lines[0]+"\n"))
			if len(pids) != 2 || pids[1] == 0 {
				t.Fatalf("owner printed %q", out)
			}
			if got := lines[1] == "true"; got != c.clean {
				t.Errorf("Shutdown() = %s, want %v", lines[1], c.clean)
			}
			if ppid := parentOf(pids[1]); ppid == owner.Process.Pid {
				t.Errorf("the warden (%d) is the owner's child", pids[1])
			}
			if c.clean {
				gone(t, 2*time.Second, pids...)
				return
			}
			gone(t, 2*time.Second, pids[1]) // the warden, after its hunt
			defer syscall.Kill(pids[0], syscall.SIGKILL)
			if !running(pids[0]) {
				t.Errorf("%d, with no tag, was killed", pids[0])
			}
		})
	}
}

// untilLeft waits, in sh, until the process $d leads a session of its own.
const untilLeft = `i=0; until [ "$(cut -d' ' -f6 /proc/$d/stat)" = "$d" ] || [ $i -ge 500 ]; do sleep 0.01; i=$((i+1)); done`

// TestShutdownSparesInherited: a process mm did not start — one the shell
// that exec'd mm left running, mm's child from the start — is not killed
// at mm's orderly end (mm cannot say nothing is left: the warden hunts by
// tag, which it does not carry).
func TestShutdownSparesInherited(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	owner := exec.Command("sh", "-c", `sleep 30 >/dev/null 2>&1 & echo $!; exec "$0" "$1"`, exe, `sleep 30 & echo $!`)
	owner.Env = append(os.Environ(), "PROCS_TEST_HELPER=shutdown")
	owner.Stderr = os.Stderr
	out, err := owner.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || lines[2] != "false" {
		t.Fatalf("owner printed %q, want the inherited pid, the run's and the warden's, and false", out)
	}
	inherited, _ := strconv.Atoi(lines[0])
	defer syscall.Kill(inherited, syscall.SIGKILL)
	time.Sleep(300 * time.Millisecond) // past the warden's hunt
	if !running(inherited) {
		t.Fatalf("%d, which mm did not start, was killed at its end", inherited)
	}
}

// parentOf is pid's parent as /proc says (0 once it is gone).
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	n, _ := strconv.Atoi(f[1])
	return n
}

// TestLateStart: a process handed over after Shutdown (a start still in
// flight as mm ends) is refused and killed, as no warden would see it.
func TestLateStart(t *testing.T) {
	out, err := helperCmd(t, "late").Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || lines[1] != "mm is ending" {
		t.Fatalf("owner printed %q", out)
	}
	pid, _ := strconv.Atoi(lines[0])
	gone(t, 2*time.Second, pid)
}

// TestOrphansReaped: what mm inherits as a subreaper — a daemon killed by
// its run's owner, a group's background child killed with it — is reaped
// as runs are released, not kept as a zombie for the session; also after
// an ended child that is not an orphan (a `timeout`, a group of its own in
// mm's session) stands first in the kernel's list, where only it is left.
func TestOrphansReaped(t *testing.T) {
	for mode, want := range map[string]string{"": "0", "blocked": "1"} {
		out, err := helperCmd(t, "orphans", mode).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out)); got != want {
			t.Errorf("%q: zombie children left: %s, want %s", mode, got, want)
		}
	}
}

// platformHelper plays the parts of the tests of this file (see helper).
func platformHelper(part string) int {
	switch part {
	case "shutdown":
		// An mm at its clean end: run a group the way a hook's owner does,
		// with what its command leaves behind, then print the pids it
		// printed, the warden's, and what Shutdown found.
		cmd := exec.Command("sh", "-c", os.Args[1])
		out, err := cmd.StdoutPipe()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		g := mustStart(cmd)
		left, _ := bufio.NewReader(out).ReadString('\n')
		cmd.Wait()
		g.Kill()
		g.Release()
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		w := warden.pid
		mu.Unlock()
		fmt.Printf("%s %d\n", strings.TrimSpace(string(left)), w)
		fmt.Println(Shutdown())
		return 0
	case "late":
		// An mm whose last process comes in as it ends: started, then
		// Shutdown, then handed over. It must not outlive mm: it is
		// refused and killed. Print its pid and the error.
		cmd := exec.Command("sleep", "30")
		Prepare(cmd)
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		Shutdown()
		_, err := Adopt(cmd)
		fmt.Println(cmd.Process.Pid)
		fmt.Println(err)
		cmd.Wait()
		return 0
	case "orphans":
		// Daemons that left their group, killed by their run's owner, and a
		// group's background child killed with it: as a subreaper this mm
		// inherits them; print how many are left as zombies once a later
		// run has been released. With "blocked", a run first leaves a
		// `timeout` (a group of its own in mm's session: no orphan to reap)
		// that ends before the others, and mm reads /proc at each look.
		if len(os.Args) > 1 && os.Args[1] == "blocked" {
			scanEvery = 0
			// (Until timeout has made its group: the run's kill would take
			// it otherwise.)
			cmd := exec.Command("sh", "-c", `timeout 0.3 sleep 30 & t=$!; i=0; until [ "$(cut -d' ' -f5 /proc/$t/stat)" = "$t" ] || [ $i -ge 500 ]; do sleep 0.01; i=$((i+1)); done`)
			g := mustStart(cmd)
			cmd.Wait()
			g.Kill()
			g.Release()
			time.Sleep(700 * time.Millisecond) // timeout has ended
		}
		for range 3 {
			cmd := exec.Command("sh", "-c", `setsid sleep 30 </dev/null >/dev/null 2>&1 & sleep 30 & echo $!; sleep 0.1`)
			out, _ := cmd.StdoutPipe()
			g := mustStart(cmd)
			bufio.NewReader(out).ReadString('\n')
			cmd.Wait() // the daemon has left the group
			g.Kill()
			g.KillEscaped()
			g.Release()
		}
		time.Sleep(200 * time.Millisecond)
		cmd := exec.Command("true")
		g := mustStart(cmd)
		cmd.Wait()
		g.Release()
		fmt.Println(len(zombieChildren()))
		return 0
	}
	return 2
}

// mustStart prepares and starts cmd in a helper, which ends at once when
// it cannot.
func mustStart(cmd *exec.Cmd) *Group {
	Prepare(cmd)
	g, err := Start(cmd)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return g
}

// zombieChildren lists this process's children that have ended and are
// not reaped.
func zombieChildren() []int {
	var pids []int
	for _, c := range children() {
		if c.zombie {
			pids = append(pids, c.pid)
		}
	}
	return pids
}
