package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These use setsid(1) (util-linux), to leave the hook's process group the
// way a daemon does.

func readPidFile(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still running", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A daemon holding the hook's stdout is found by its tag and killed: the
// reply applies at once, not at the timeout.
func TestExecuteDaemonHoldingPipes(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	out, err := execute(context.Background(), `setsid sleep 30 & echo $! > daemon.pid; sleep 0.2; echo '{}'`, dir, os.Environ(), 5*time.Second, nil)
	if err != nil || string(out) != "{}\n" {
		t.Fatalf("got %q, %v", out, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
	waitGone(t, readPidFile(t, filepath.Join(dir, "daemon.pid")))
}

// A daemon that also cleared its environment cannot be told from anyone
// else's: the timeout still bounds the run, pipes included.
func TestExecuteUntaggedDaemon(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	_, err := execute(context.Background(), `env -i setsid sleep 30 & echo $! > daemon.pid; sleep 0.2; echo '{}'`, dir, os.Environ(), 500*time.Millisecond, nil)
	defer syscall.Kill(readPidFile(t, filepath.Join(dir, "daemon.pid")), syscall.SIGKILL)
	if err == nil || err.Error() != "timed out after 500ms" {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
}

// Cancel ends a run whose daemon holds the pipes, at once.
func TestExecuteCancelWithDaemon(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := execute(ctx, `setsid sleep 30 & echo $! > daemon.pid; sleep 30`, dir, os.Environ(), time.Minute, nil)
	if err == nil || err.Error() != "cancelled" {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
	waitGone(t, readPidFile(t, filepath.Join(dir, "daemon.pid")))
}

// TestExecuteLoop runs the cases the run's loop must tell apart, with the
// shell's pidfd and, as on a kernel without one, with a waiter's pipe.
func TestExecuteLoop(t *testing.T) {
	big := strings.Repeat("x", 200<<10) // past the pipe: written as the hook reads
	cases := []struct {
		name, command string
		stdin         string
		timeout       time.Duration
		out, failure  string
	}{
		{"reply", `cat >/dev/null; echo '{"action":"continue"}'`, "{}", time.Second, `{"action":"continue"}` + "\n", ""},
		{"stdin read whole", `wc -c`, big, 5 * time.Second, strconv.Itoa(len(big)) + "\n", ""},
		{"stdin not read", `echo '{}'`, big, 5 * time.Second, "{}\n", ""},
		{"exit status", `echo nope >&2; exit 3`, "", time.Second, "", "exit status 3: nope"},
		{"background child holding stdout", `sleep 30 & echo '{}'`, "", 5 * time.Second, "{}\n", ""},
		{"timeout", `sleep 30`, "", 200 * time.Millisecond, "", "timed out after 200ms"},
		{"flood", `yes`, "", 5 * time.Second, "", "stdout larger than 1048576 bytes"},
	}
	for _, without := range []bool{false, true} {
		for _, c := range cases {
			name := c.name
			if without {
				name += " without pidfd"
			}
			t.Run(name, func(t *testing.T) {
				noPidfd = without
				defer func() { noPidfd = false }()
				start := time.Now()
				out, err := execute(context.Background(), c.command, t.TempDir(), os.Environ(), c.timeout, []byte(c.stdin))
				got := ""
				if err != nil {
					got = err.Error()
				}
				if got != c.failure || (c.failure == "" && string(out) != c.out) {
					t.Fatalf("got %q, %q; want %q, %q", out, got, c.out, c.failure)
				}
				if d := time.Since(start); d > c.timeout+2*time.Second || (c.name == "background child holding stdout" && d > 2*time.Second) {
					t.Errorf("took %s", d)
				}
			})
		}
	}
	t.Run("cancel", func(t *testing.T) {
		for _, without := range []bool{false, true} {
			noPidfd = without
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			start := time.Now()
			_, err := execute(ctx, `sleep 30`, t.TempDir(), os.Environ(), time.Minute, nil)
			noPidfd = false
			if err == nil || err.Error() != "cancelled" || time.Since(start) > 2*time.Second {
				t.Fatalf("without pidfd %v: %v after %s", without, err, time.Since(start))
			}
		}
	})
}

// TestExecuteSmallStdinPipe: an input larger than the pipe, to a hook that
// does not read it, does not hold the run past its timeout (a blocking
// write of it did, until the hook exited).
func TestExecuteSmallStdinPipe(t *testing.T) {
	stdinPipeSize = 4096
	defer func() { stdinPipeSize = 0 }()
	start := time.Now()
	_, err := execute(context.Background(), `sleep 5`, t.TempDir(), os.Environ(), 300*time.Millisecond, []byte(strings.Repeat("x", 20<<10)))
	if err == nil || err.Error() != "timed out after 300ms" {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("a 300ms timeout took %s", d)
	}
	out, err := execute(context.Background(), `wc -c`, t.TempDir(), os.Environ(), 5*time.Second, []byte(strings.Repeat("x", 20<<10)))
	if err != nil || strings.TrimSpace(string(out)) != strconv.Itoa(20<<10) {
		t.Fatalf("a hook reading it got %q, %v", out, err)
	}
}
