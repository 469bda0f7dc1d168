package hooks

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestURLHookConcurrentShareClient: concurrent runs (parallel tool calls)
// share the process's client, and later runs reuse its connections rather
// than open new ones.
func TestURLHookConcurrentShareClient(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(5 * time.Millisecond) // so the first wave overlaps
		w.Write([]byte(`{"action":"continue"}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	r := &Runner{Hooks: Set{PreToolCall: {{URL: srv.URL, Timeout: time.Second, OnError: Fail}}}, Cwd: t.TempDir()}
	const parallel, rounds = 6, 5
	for range rounds {
		var wg sync.WaitGroup
		for range parallel {
			wg.Go(func() {
				res := r.Run(context.Background(), Input{Event: PreToolCall, Tool: &Tool{Name: "bash"}}, "bash")
				if len(res.Runs) != 1 || res.Runs[0].Failure != "" || res.Deny {
					t.Errorf("run: %+v", res)
				}
			})
		}
		wg.Wait()
	}
	if n := conns.Load(); n > parallel {
		t.Fatalf("%d runs opened %d connections, want at most %d", parallel*rounds, n, parallel)
	}
}

func TestLoopback(t *testing.T) {
	for u, want := range map[string]bool{
		"http://127.0.0.1:7700/hooks":  true,
		"http://127.8.0.1/hooks":       true,
		"http://[::1]:7700/":           true,
		"http://localhost:7700/":       true,
		"http://LOCALHOST/":            true,
		"http://policy.localhost/":     true,
		"http://policy.example.com/":   false,
		"http://10.0.0.1/":             false,
		"http://localhost.example.com": false,
		"http://[::ffff:127.0.0.1]/":   true,
	} {
		if got := Loopback(u); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", u, got, want)
		}
	}
}
