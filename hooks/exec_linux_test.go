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
