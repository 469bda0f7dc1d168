package procs

import (
	"bufio"
	"bytes"
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
// hunt — and otherwise kills what got away itself (its environment
// cleared: no tag finds it), or leaves it to the warden's hunt.
func TestShutdown(t *testing.T) {
	for _, c := range []struct {
		name, command string
		clean         bool
	}{
		{"nothing left", `sleep 30 & echo $!`, true},
		{"a daemon", `setsid sleep 30 </dev/null >/dev/null 2>&1 & echo $!`, true},
		{"a daemon with no environment", `env -i setsid sleep 30 </dev/null >/dev/null 2>&1 & echo $!`, true},
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
			gone(t, 2*time.Second, pids...)
		})
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
// as runs are released, not kept as a zombie for the session.
func TestOrphansReaped(t *testing.T) {
	out, err := helperCmd(t, "orphans").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "0" {
		t.Fatalf("zombie children left: %s", got)
	}
}
