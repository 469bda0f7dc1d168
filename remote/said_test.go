package remote

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// conversationalPeer is an A2A agent over HTTP that streams events as
// Google's Gemini CLI A2A server does: the Task, then status updates; it
// records the JSON-RPC methods it was called with.
func conversationalPeer(t *testing.T, events []map[string]any) (base string, methods func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	base = fakePeer(t, func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		seen = append(seen, req.Method)
		mu.Unlock()
		if req.Method != "message/stream" {
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"kind": "task", "id": "t1", "contextId": "c1", "status": map[string]any{"state": "canceled"}}})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		sseEvent(w, req.ID, map[string]any{"kind": "task", "id": "t1", "contextId": "c1", "status": map[string]any{"state": "submitted"}})
		for _, ev := range events {
			sseEvent(w, req.ID, ev)
		}
	})
	return base, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// statusEv is a status update; text "" sends no message.
func statusEv(state, text string, final bool, meta map[string]any) map[string]any {
	st := map[string]any{"state": state}
	if text != "" {
		st["message"] = map[string]any{"kind": "message", "role": "agent", "messageId": "m-" + text, "taskId": "t1", "contextId": "c1",
			"parts": []any{map[string]any{"kind": "text", "text": text}}}
	}
	return map[string]any{"kind": "status-update", "taskId": "t1", "contextId": "c1", "status": st, "final": final, "metadata": meta}
}

// dataStatusEv is a working status update whose message is one data part.
func dataStatusEv(data map[string]any, meta map[string]any) map[string]any {
	ev := statusEv("working", "x", false, meta)
	ev["status"].(map[string]any)["message"].(map[string]any)["parts"] = []any{map[string]any{"kind": "data", "data": data}}
	return ev
}

func artifactEv(text string, appendTo bool) map[string]any {
	return map[string]any{"kind": "artifact-update", "taskId": "t1", "contextId": "c1", "append": appendTo,
		"artifact": map[string]any{"artifactId": "a1", "parts": []any{map[string]any{"kind": "text", "text": text}}}}
}

// A conversational agent's answer is the text of its working status
// messages when it sends no artifact, and a final input-required with no
// question after it ends the relay as answered; the pieces are shown as
// text, as a local child's, not as notices. An agent that sends progress
// in status messages and its answer as artifacts is answered by the
// artifacts, its progress a notice, as before.
func TestConversationalAgent(t *testing.T) {
	geminiMeta := func(kind string) map[string]any {
		return map[string]any{"coderAgent": map[string]any{"kind": kind}, "model": "gemini-2.5-pro"}
	}
	for _, c := range []struct {
		name   string
		events []map[string]any
		want   relay.AskResponse // {Error: "…URL…"}: the URL is the peer's
		shown  string            // each event shown: "T:text" or "N:notice", joined by "|"
	}{
		{"Gemini CLI", []map[string]any{
			statusEv("working", "", false, geminiMeta("state-change")),
			statusEv("working", "Paris is", false, geminiMeta("text-content")),
			statusEv("working", " the capital", false, geminiMeta("text-content")),
			statusEv("working", " of France.", false, geminiMeta("text-content")),
			statusEv("input-required", "", true, geminiMeta("state-change")),
		}, relay.AskResponse{Status: relay.Answered, Answer: "Paris is the capital of France."}, "T:Paris is the capital|T: of France."},
		{"one piece", []map[string]any{
			statusEv("working", "Paris.", false, nil),
			statusEv("input-required", "", true, nil),
		}, relay.AskResponse{Status: relay.Answered, Answer: "Paris."}, "T:Paris."},
		{"progress, then artifacts", []map[string]any{
			statusEv("working", "thinking", false, nil),
			artifactEv("The answer", false),
			artifactEv(" is 42.", true),
			statusEv("completed", "", true, nil),
		}, relay.AskResponse{Status: relay.Answered, Answer: "The answer is 42."}, "N:thinking|T:The answer|T: is 42."},
		{"streamed, then the same as an artifact (ADK)", []map[string]any{
			statusEv("working", "Hello", false, nil),
			statusEv("working", " world", false, nil),
			artifactEv("Hello world", false),
			statusEv("completed", "", true, nil),
		}, relay.AskResponse{Status: relay.Answered, Answer: "Hello world"}, "T:Hello world"},
		{"streamed, then a final message", []map[string]any{
			statusEv("working", "Hel", false, nil),
			statusEv("working", "lo", false, nil),
			statusEv("completed", "Hello!", true, nil),
		}, relay.AskResponse{Status: relay.Answered, Answer: "Hello!"}, "T:Hello|T:!"},
		{"progress, then a final message", []map[string]any{
			statusEv("working", "looking", false, nil),
			statusEv("completed", "Found it.", true, nil),
		}, relay.AskResponse{Status: relay.Answered, Answer: "Found it."}, "N:looking|T:Found it."},
		{"progress, then a message", []map[string]any{
			statusEv("working", "looking", false, nil),
			{"kind": "message", "role": "agent", "messageId": "m1", "parts": []any{map[string]any{"kind": "text", "text": "Found it."}}},
		}, relay.AskResponse{Status: relay.Answered, Answer: "Found it."}, "N:looking|T:Found it."},
		{"a model error", []map[string]any{
			statusEv("working", "Agent Error, unknown agent message: quota", false, map[string]any{"error": "[API Error: quota exceeded]"}),
			statusEv("input-required", "", true, nil),
		}, relay.AskResponse{Status: relay.Failed, Error: "the agent at URL failed: [API Error: quota exceeded]"}, ""},
		{"a tool call waiting for approval after text", []map[string]any{
			statusEv("working", "I will list", false, geminiMeta("text-content")),
			statusEv("working", " the files.", false, geminiMeta("text-content")),
			dataStatusEv(map[string]any{"status": "awaiting_approval", "request": map[string]any{"name": "run_shell_command"}}, geminiMeta("tool-call-confirmation")),
			statusEv("input-required", "", true, geminiMeta("state-change")),
		}, relay.AskResponse{Status: relay.Failed, Answer: "I will list the files.", Error: "the agent at URL asks for input mm cannot give"}, "T:I will list the files."},
		{"thoughts, then text", []map[string]any{
			dataStatusEv(map[string]any{"subject": "Capitals", "description": "France"}, geminiMeta("thought")),
			statusEv("working", "Paris.", false, geminiMeta("text-content")),
			statusEv("input-required", "", true, geminiMeta("state-change")),
		}, relay.AskResponse{Status: relay.Answered, Answer: "Paris."}, "T:Paris."},
		{"nothing said", []map[string]any{
			statusEv("working", "", false, nil),
			statusEv("input-required", "", true, nil),
		}, relay.AskResponse{Status: relay.Failed, Error: "the agent at URL asks for input mm cannot give"}, ""},
		{"a question after text", []map[string]any{
			statusEv("working", "Let me see.", false, nil),
			statusEv("input-required", "Which branch?", true, nil),
		}, relay.AskResponse{Status: relay.Failed, Answer: "Let me see.", Error: "the agent at URL asks for input mm cannot give: Which branch?"}, "N:Let me see."},
	} {
		t.Run(c.name, func(t *testing.T) {
			base, methods := conversationalPeer(t, c.events)
			var shown []string
			show := func(ev orchestrator.Event) {
				switch ev.Kind {
				case orchestrator.Text:
					shown = append(shown, "T:"+ev.Text)
				case orchestrator.Notice:
					shown = append(shown, "N:"+ev.Text)
				}
			}
			a := &Agent{Name: "gem", URL: base}
			resp := a.Ask(context.Background(), relay.AskRequest{Agent: "gem", Prompt: "What is the capital of France?", Depth: 1, Show: show})
			want := c.want
			want.Error = strings.ReplaceAll(want.Error, "URL", base)
			if resp != want {
				t.Errorf("resp = %+v\nwant   %+v", resp, want)
			}
			if got := strings.Join(shown, "|"); got != c.shown {
				t.Errorf("shown %q, want %q", got, c.shown)
			}
			// An answered turn leaves the conversation open: nothing is
			// cancelled; a question mm cannot answer is cancelled.
			wantMethods := "message/stream"
			if want.Status == relay.Failed && strings.Contains(want.Error, "cannot give") {
				wantMethods += " tasks/cancel"
			}
			if got := strings.Join(methods(), " "); got != wantMethods {
				t.Errorf("methods %q, want %q", got, wantMethods)
			}
		})
	}
}
func TestSaidFormIsAQuestion(t *testing.T) {
	q := statusEv("input-required", "x", true, nil)
	q["status"].(map[string]any)["message"].(map[string]any)["parts"] = []any{map[string]any{"kind": "data", "data": map[string]any{"type": "form", "fields": []any{"branch"}}}}
	base, _ := conversationalPeer(t, []map[string]any{
		statusEv("working", "I need to know", false, nil),
		statusEv("working", " which branch.", false, nil),
		q,
	})
	a := &Agent{Name: "x", URL: base}
	resp := a.Ask(context.Background(), relay.AskRequest{Agent: "x", Prompt: "deploy", Depth: 1})
	if resp.Status == relay.Answered {
		t.Errorf("a question with a data part became an answer: %+v", resp)
	}
}

// The Gemini CLI's model error (metadata "error") followed by a completed
// task: the error must not vanish.
func TestSaidErrorThenCompleted(t *testing.T) {
	base, _ := conversationalPeer(t, []map[string]any{
		statusEv("working", "Partial", false, nil),
		statusEv("working", " text", false, nil),
		statusEv("working", "Agent Error", false, map[string]any{"error": "[API Error: quota exceeded]"}),
		statusEv("completed", "", true, nil),
	})
	a := &Agent{Name: "x", URL: base}
	resp := a.Ask(context.Background(), relay.AskRequest{Agent: "x", Prompt: "q", Depth: 1})
	if resp.Status == relay.Answered {
		t.Errorf("an error reported in metadata became an answer: %+v", resp)
	}
}

// A finished tool call's update (a data part, Gemini CLI "tool-call-update"
// status success) after the text: the turn is over, nothing waits.
func TestSaidFinishedToolCallWaitsOnNothing(t *testing.T) {
	meta := func(kind string) map[string]any { return map[string]any{"coderAgent": map[string]any{"kind": kind}} }
	base, _ := conversationalPeer(t, []map[string]any{
		statusEv("working", "The tests", false, meta("text-content")),
		statusEv("working", " pass.", false, meta("text-content")),
		dataStatusEv(map[string]any{"status": "success", "request": map[string]any{"name": "run_shell_command"}}, meta("tool-call-update")),
		statusEv("input-required", "", true, meta("state-change")),
	})
	a := &Agent{Name: "x", URL: base}
	resp := a.Ask(context.Background(), relay.AskRequest{Agent: "x", Prompt: "q", Depth: 1})
	if resp.Status != relay.Answered {
		t.Errorf("a finished tool call's data part made the end of the turn a question: %+v", resp)
	}
}
