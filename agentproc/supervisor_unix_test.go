//go:build unix

package agentproc

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mm-agent/mm/relay"
)

// hungChild is an "mm" that never completes its handshake: it writes its
// pid and sleeps, as a child stuck before plugin.Serve would.
func hungChild(t *testing.T) (s *Supervisor, pidFile string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "mm")
	pidFile = filepath.Join(dir, "pid")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho $$ > \"$PIDFILE\"\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s = &Supervisor{Bin: bin, Dir: dir, Env: func(depth int) []string {
		return append(os.Environ(), "PIDFILE="+pidFile, "MM_ASK_DEPTH="+strconv.Itoa(depth))
	}}
	t.Cleanup(s.Close)
	return s, pidFile
}

// gone waits for the process whose pid is in file to be gone (or a zombie).
func gone(t *testing.T, file string) {
	t.Helper()
	var pid int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		if pid, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
			continue
		}
		if syscall.Kill(pid, 0) != nil {
			return
		}
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(st), ") Z") {
			return
		}
	}
	t.Fatalf("the child (pid %d, from %s) is still running", pid, file)
}

// Ctrl-C (the ask's context) interrupts a child that never completes its
// handshake at once, instead of go-plugin's minute; its process is gone.
func TestStartInterrupted(t *testing.T) {
	s, pidFile := hungChild(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	resp := s.Ask(ctx, relay.AskRequest{Agent: "expert", Config: "/x/agent.yaml", Depth: 1, Prompt: "q"})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the ask took %v to end after its cancel", took)
	}
	if resp.Status != relay.Cancelled || !errors.Is(resp.Err(), context.Canceled) {
		t.Errorf("resp %+v", resp)
	}
	gone(t, pidFile)
}

// An ask waiting for another's child to start stops waiting when its own
// context ends; the start goes on for the other.
func TestWaiterCancels(t *testing.T) {
	s, _ := hungChild(t)
	s.StartTimeout = time.Second
	req := relay.AskRequest{Agent: "expert", Config: "/x/agent.yaml", Depth: 1, Prompt: "q"}
	first := make(chan relay.AskResponse, 1)
	go func() { first <- s.Ask(context.Background(), req) }()
	// Wait until the first ask has registered the child it starts.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		s.mu.Lock()
		n := len(s.children)
		s.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first ask did not start its child")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if resp := s.Ask(ctx, req); resp.Status != relay.Cancelled {
		t.Errorf("the waiter: %+v", resp)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the waiter waited %v after its context ended", took)
	}
	select {
	case resp := <-first:
		t.Fatalf("the first ask ended with the waiter: %+v", resp)
	default:
	}
	if resp := <-first; resp.Status != relay.Failed {
		t.Errorf("the first ask, after its start timeout: %+v", resp)
	}
}

// A child that does not complete its handshake in time fails the ask with
// one line; the log, when there is one, has go-plugin's account of it.
func TestStartTimeoutLogged(t *testing.T) {
	s, pidFile := hungChild(t)
	var buf syncBuffer
	s.Log = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s.StartTimeout = 300 * time.Millisecond
	resp := s.Ask(context.Background(), relay.AskRequest{Agent: "expert", Config: "/x/agent.yaml", Depth: 1, Prompt: "q"})
	if resp.Status != relay.Failed || resp.Error != "start expert: timeout while waiting for plugin to start" {
		t.Errorf("resp %+v", resp)
	}
	gone(t, pidFile)
	log := buf.String()
	for _, want := range []string{`msg="starting child"`, `agent=expert`, `msg="child did not start"`, "timeout while waiting for plugin to start", "from=go-plugin"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}

// syncBuffer is a bytes.Buffer for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
