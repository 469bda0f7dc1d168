package remote

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mm-agent/mm/relay"
)

// The asking side's default idle timeout is the contract's 90 s, and an
// mmConfigs entry without idleTimeout gets it.
func TestIdleDefault(t *testing.T) {
	if DefaultIdleTimeout != 90*time.Second {
		t.Errorf("DefaultIdleTimeout = %s, want 90s", DefaultIdleTimeout)
	}
	for _, c := range []struct {
		set, want time.Duration
	}{{0, 90 * time.Second}, {10 * time.Minute, 10 * time.Minute}} {
		a := &Agent{Name: "rev", URL: "http://127.0.0.1:9", IdleTimeout: c.set}
		var got time.Duration
		if wt, ok := a.httpClient().Transport.(*watchedTransport); ok {
			got = wt.idle
		}
		if got != c.want {
			t.Errorf("IdleTimeout %s: the client waits %s, want %s", c.set, got, c.want)
		}
	}
}

// Keep-alive comments are bytes: a remote silent but for them for longer
// than the idle timeout is still answered.
func TestKeepAliveIsNotSilence(t *testing.T) {
	base := fakePeer(t, func(w http.ResponseWriter, r *http.Request) {
		id := rpcID(r)
		w.Header().Set("Content-Type", "text/event-stream")
		sseEvent(w, id, map[string]any{"kind": "status-update", "taskId": "t1", "contextId": "c1", "status": map[string]any{"state": "working"}})
		for range 8 { // 800 ms of keep-alives, against an idle timeout of 300 ms
			time.Sleep(100 * time.Millisecond)
			fmt.Fprint(w, ": keep-alive\n\n")
			w.(http.Flusher).Flush()
		}
		sseEvent(w, id, map[string]any{"kind": "status-update", "taskId": "t1", "contextId": "c1", "final": true,
			"status": map[string]any{"state": "completed", "message": map[string]any{"kind": "message", "messageId": "m", "role": "agent", "parts": []any{map[string]any{"kind": "text", "text": "thought"}}}}})
	})
	a := &Agent{Name: "rev", URL: base, IdleTimeout: 300 * time.Millisecond}
	resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "hi", Depth: 1})
	if resp.Status != relay.Answered || resp.Answer != "thought" {
		t.Errorf("resp = %+v", resp)
	}
}
