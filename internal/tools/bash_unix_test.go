//go:build unix

package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestBash(t *testing.T) {
	tests := []struct {
		name, command, want string
	}{
		{"exit 0", "echo hello", "hello\n[exit status 0]"},
		{"no output", "true", "[exit status 0]"},
		{"no final newline", "printf abc", "abc\n[exit status 0]"},
		{"exit status", "echo oops; exit 3", "oops\n[exit status 3]"},
		{"stderr merged in order", "echo one; echo two >&2; echo three", "one\ntwo\nthree\n[exit status 0]"},
		{"runs in dir", "cat marker.txt", "here\n[exit status 0]"},
		{"stdin is empty", "cat; echo done", "done\n[exit status 0]"},
		{"signal", "kill -TERM $$", "[killed by signal SIGTERM]"},
		{"env passed", "echo $MM_TOOLS_TEST", "inherited\n[exit status 0]"},
	}
	t.Setenv("MM_TOOLS_TEST", "inherited")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "marker.txt"), []byte("here\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			got := tool(t, "bash", dir).Run(context.Background(), args(map[string]string{"command": tc.command})).Output
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBashOutputCap(t *testing.T) {
	tests := []struct {
		name    string
		command string
		size    int // bytes the command writes
		cut     bool
	}{
		{"exactly at cap", "head -c 65536 /dev/zero | tr '\\0' a", 65536, false},
		{"over cap", "head -c 200000 /dev/zero | tr '\\0' a; echo; echo END", 200005, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tool(t, "bash", t.TempDir()).Run(context.Background(), args(map[string]string{"command": tc.command})).Output
			if !strings.HasSuffix(got, "[exit status 0]") {
				t.Fatalf("no exit status at end: %q", got[max(0, len(got)-100):])
			}
			if !tc.cut {
				if strings.Contains(got, "cut") || len(got) != tc.size+len("\n[exit status 0]") {
					t.Errorf("len = %d, want all %d bytes", len(got), tc.size)
				}
				return
			}
			line := fmt.Sprintf("\n[… %d bytes cut …]\n", tc.size-bashCap)
			i := strings.Index(got, line)
			if i != bashHalf {
				t.Fatalf("cut line %q at %d, want at %d", line, i, bashHalf)
			}
			if tail := got[i+len(line):]; len(tail) != bashHalf+len("[exit status 0]") || !strings.HasSuffix(tail, "\nEND\n[exit status 0]") {
				t.Errorf("tail is %d bytes, ends %q", len(tail), tail[max(0, len(tail)-40):])
			}
		})
	}
}

func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	state, _, ok := procStat(pid)
	return ok && state != "Z"
}

// groupAlive reports whether the process group pgid has a live member, as
// kill -0 sees it, zombies again counting as dead.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true // cannot tell zombies apart: trust kill -0
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, pg, ok := procStat(pid); ok && pg == pgid && state != "Z" {
			return true
		}
	}
	return false
}

// procStat returns the state and process group of pid from /proc.
func procStat(pid int) (state string, pgid int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0, false
	}
	// After the ")" that closes the command name: state ppid pgrp …
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 3 {
		return "", 0, false
	}
	pgid, err = strconv.Atoi(f[2])
	return f[0], pgid, err == nil
}

// eventually waits up to a second for cond.
func eventually(cond func() bool) bool {
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

func TestBashBackgroundChild(t *testing.T) {
	start := time.Now()
	got := tool(t, "bash", t.TempDir()).Run(context.Background(),
		args(map[string]string{"command": "sleep 30 & echo $!; echo started"})).Output
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Fatalf("took %v: the background child held the call", d)
	}
	lines := strings.Split(got, "\n")
	if len(lines) != 3 || lines[1] != "started" || lines[2] != "[exit status 0]" {
		t.Fatalf("got %q", got)
	}
	pid, err := strconv.Atoi(lines[0])
	if err != nil {
		t.Fatal(err)
	}
	if !eventually(func() bool { return !alive(pid) }) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("background sleep %d outlived the call", pid)
	}
}

func TestBashBackgroundChildQuietOutput(t *testing.T) {
	// A child that does not hold the output pipe is killed all the same.
	got := tool(t, "bash", t.TempDir()).Run(context.Background(),
		args(map[string]string{"command": "sleep 30 >/dev/null 2>&1 & echo $!"})).Output
	pid, err := strconv.Atoi(strings.Split(got, "\n")[0])
	if err != nil {
		t.Fatalf("got %q", got)
	}
	if !eventually(func() bool { return !alive(pid) }) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("background sleep %d outlived the call", pid)
	}
}

func TestBashCancel(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pgid")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once bash has started and recorded its pid (its group id).
		eventually(func() bool { _, err := os.Stat(pidFile); return err == nil })
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	defer cancel()
	cancelled := make(chan time.Time, 1)
	go func() { <-ctx.Done(); cancelled <- time.Now() }()

	cmd := fmt.Sprintf("echo $$ > %s; echo started; sleep 30 & sleep 30", pidFile)
	got := tool(t, "bash", dir).Run(ctx, args(map[string]string{"command": cmd})).Output
	returned := time.Now()

	if !strings.HasPrefix(got, "error: cancelled") || !strings.Contains(got, "started") {
		t.Errorf("got %q", got)
	}
	var cancelledAt time.Time
	select {
	case cancelledAt = <-cancelled:
	case <-time.After(time.Second):
		t.Fatal("returned before cancel")
	}
	if d := returned.Sub(cancelledAt); d > time.Second {
		t.Errorf("returned %v after cancel", d)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if !eventually(func() bool { return !groupAlive(pgid) }) {
		syscall.Kill(-pgid, syscall.SIGKILL)
		t.Errorf("process group %d still alive", pgid)
	}
}

func TestBashAlreadyCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := tool(t, "bash", t.TempDir()).Run(ctx, args(map[string]string{"command": "echo hi"})).Output
	if got != "error: cancelled" {
		t.Errorf("got %q", got)
	}
}

func TestBashBadDir(t *testing.T) {
	got := tool(t, "bash", filepath.Join(t.TempDir(), "gone")).Run(context.Background(),
		args(map[string]string{"command": "true"})).Output
	if !strings.HasPrefix(got, "error: ") || !strings.Contains(got, "no such file or directory") {
		t.Errorf("got %q", got)
	}
}
