package jsonevents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/model"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// Each orchestrator event becomes the stream's, "type" first, from typed
// values only.
func TestFromEvent(t *testing.T) {
	run := hooks.Run{Event: hooks.PreToolCall, Target: "bash", Command: "guard.sh", Decision: "failed",
		Failure: "exit status 1", OnError: hooks.Warn, Duration: 12 * time.Millisecond}
	maxSteps := relay.AskResponse{Status: relay.MaxSteps, Error: "maxSteps reached (3)"}.Err()
	tests := []struct {
		name string
		ev   orchestrator.Event
		want string // "" for no event
	}{
		{"text", orchestrator.Event{Kind: orchestrator.Text, Text: "Hi"}, `{"type":"text","text":"Hi"}`},
		{"asked text", orchestrator.Event{Kind: orchestrator.Text, Text: "Hi", Agent: orchestrator.Path{"expert", "librarian"}},
			`{"type":"text","text":"Hi","agent":["expert","librarian"]}`},
		{"empty text", orchestrator.Event{Kind: orchestrator.Text}, ""},
		{"reasoning hidden", orchestrator.Event{Kind: orchestrator.Reasoning, Text: "hmm"}, ""},
		{"tool start", orchestrator.Event{Kind: orchestrator.ToolStart, Call: orchestrator.Call{ID: "c1", Tool: "bash", Input: json.RawMessage(`{"command":"a && b < c"}`)}},
			`{"type":"tool_start","id":"c1","name":"bash","input":{"command":"a && b < c"}}`},
		{"tool start, input not JSON", orchestrator.Event{Kind: orchestrator.ToolStart, Call: orchestrator.Call{ID: "c1", Tool: "bash", Input: json.RawMessage(`{oops`)}},
			`{"type":"tool_start","id":"c1","name":"bash","input":"{oops"}`},
		{"tool end refused", orchestrator.Event{Kind: orchestrator.ToolEnd, Call: orchestrator.Call{ID: "c1", Tool: "bash"}, Status: orchestrator.NoOneToAsk, Output: orchestrator.NoConsent},
			`{"type":"tool_end","id":"c1","name":"bash","status":"no_one_to_ask","output":"[denied: no one to ask for consent; set yolo: true to allow]"}`},
		{"tool end cancelled", orchestrator.Event{Kind: orchestrator.ToolEnd, Call: orchestrator.Call{ID: "c1", Tool: "bash"}, Status: orchestrator.Cancelled, Output: orchestrator.CancelledOutput},
			`{"type":"tool_end","id":"c1","name":"bash","status":"cancelled","output":"` + orchestrator.CancelledOutput + `"}`},
		{"denied", orchestrator.Event{Kind: orchestrator.ToolDenied, Call: orchestrator.Call{ID: "c2", Tool: "rm", Input: json.RawMessage(`{}`)}, Reason: "no", Output: "[denied by a hook: no]", Status: orchestrator.Denied},
			`{"type":"tool_denied","id":"c2","name":"rm","input":{},"reason":"no","output":"[denied by a hook: no]"}`},
		{"hook run", orchestrator.Event{Kind: orchestrator.HookRun, Run: run},
			`{"type":"hook","event":"preToolCall","tool":"bash","command":"guard.sh","decision":"failed","durationMs":12,"failure":"exit status 1","onError":"warn"}`},
		{"preAsk run", orchestrator.Event{Kind: orchestrator.HookRun, Run: hooks.Run{Event: hooks.PreAsk, Target: "expert", Command: "cat", Decision: "continue"}}, `{"type":"hook","event":"preAsk","askedAgent":"expert","command":"cat","decision":"continue","durationMs":0}`},
		{"asked agent's run", orchestrator.Event{Kind: orchestrator.HookRun, Agent: orchestrator.Path{"expert"}}, ""},
		{"failure line", orchestrator.Event{Kind: orchestrator.HookFailure, Text: run.FailureLine(), Run: run},
			`{"type":"hook_failure","text":"🪝 preToolCall hook ` + "`guard.sh`" + `: exit status 1","event":"preToolCall","command":"guard.sh","failure":"exit status 1"}`},
		{"asked failure line", orchestrator.Event{Kind: orchestrator.HookFailure, Text: "🪝 x", Agent: orchestrator.Path{"expert"}},
			`{"type":"hook_failure","text":"🪝 x","agent":["expert"]}`},
		{"relay start", orchestrator.Event{Kind: orchestrator.AskStart, Agent: orchestrator.Path{"expert#2"}, Ask: &orchestrator.AskInfo{Via: "tool", WithContext: true}},
			`{"type":"relay_start","agent":["expert#2"],"via":"tool","withContext":true}`},
		{"relay end at maxSteps", orchestrator.Event{Kind: orchestrator.AskEnd, Agent: orchestrator.Path{"expert"}, Ask: &orchestrator.AskInfo{Via: "tool", Err: maxSteps}},
			`{"type":"relay_end","agent":["expert"],"status":"maxSteps","error":"maxSteps reached (3)"}`},
		{"relay end answered", orchestrator.Event{Kind: orchestrator.AskEnd, Agent: orchestrator.Path{"expert"}, Ask: &orchestrator.AskInfo{Via: "command"}},
			`{"type":"relay_end","agent":["expert"],"status":"answered"}`},
		{"a relay further down", orchestrator.Event{Kind: orchestrator.AskEnd, Agent: orchestrator.Path{"expert", "librarian"}}, ""},
		{"warning", orchestrator.Event{Kind: orchestrator.Warning, Text: "mm: retry"}, `{"type":"warning","text":"mm: retry"}`},
		{"notice", orchestrator.Event{Kind: orchestrator.Notice, Text: "🪝 postAsk: …"}, `{"type":"notice","text":"🪝 postAsk: …"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, ok := FromEvent(tt.ev, false)
			if tt.want == "" {
				if ok {
					t.Fatalf("got %#v, want no event", ev)
				}
				return
			}
			if !ok {
				t.Fatal("no event")
			}
			b, err := Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got  %s\nwant %s", b, tt.want)
			}
		})
	}
	if ev, ok := FromEvent(orchestrator.Event{Kind: orchestrator.Reasoning, Text: "hmm"}, true); !ok || ev.(Reasoning).Text != "hmm" {
		t.Errorf("reasoning with showReasoning: %v %v", ev, ok)
	}
}

// The result says what the exit code says.
func TestResultOf(t *testing.T) {
	tests := []struct {
		name       string
		res        orchestrator.TurnResult
		structured bool
		want       string
	}{
		{"answered", orchestrator.TurnResult{Answer: "Hi", Ran: make([]orchestrator.Call, 2), Usage: model.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}},
			false, `{"type":"result","status":"answered","answer":"Hi","commands":2,"usage":{"promptTokens":10,"completionTokens":2,"totalTokens":12}}`},
		{"cancelled", orchestrator.TurnResult{Answer: "Thin", Err: context.Canceled}, false,
			`{"type":"result","status":"cancelled","answer":"Thin","commands":0,"error":"cancelled"}`},
		{"maxSteps", orchestrator.TurnResult{Err: fmt.Errorf("%w (3): the turn stopped", orchestrator.ErrMaxSteps)}, false,
			`{"type":"result","status":"failed","answer":"","commands":0,"error":"maxSteps reached (3): the turn stopped","maxSteps":true}`},
		{"cut off", orchestrator.TurnResult{Answer: "Here", CutOff: orchestrator.OutputLimit}, false,
			`{"type":"result","status":"failed","answer":"Here","commands":0,"error":"answer cut off: output token limit","cutOff":"output token limit"}`},
		{"stopped", orchestrator.TurnResult{Answer: "not today", Stopped: true}, false,
			`{"type":"result","status":"stopped","answer":"not today","commands":0}`},
		{"document", orchestrator.TurnResult{Answer: "{\"sky\": \"blue\"}\n"}, true,
			`{"type":"result","status":"answered","answer":"{\"sky\": \"blue\"}\n","document":{"sky":"blue"},"commands":0}`},
		{"no document when failed", orchestrator.TurnResult{Answer: "{", Err: orchestrator.ErrInvalidAnswer}, true,
			`{"type":"result","status":"failed","answer":"{","commands":0,"error":"the answer does not match structuredOutput"}`},
		{"session file", orchestrator.TurnResult{Answer: "Hi", SaveErr: errors.New("disk full"), Empty: true}, false,
			`{"type":"result","status":"answered","answer":"Hi","commands":0,"empty":true,"sessionError":"disk full"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Marshal(ResultOf(tt.res, tt.structured))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got  %s\nwant %s", b, tt.want)
			}
		})
	}
}

// A Writer writes each event whole, with one Write, on a line of its own.
func TestWriterOneWritePerLine(t *testing.T) {
	var w countingWriter
	jw := NewWriter(&w)
	jw.Write(Text{Text: "a\nb"})
	jw.Write(Notice{Text: "n"})
	if w.writes != 2 || w.buf.String() != "{\"type\":\"text\",\"text\":\"a\\nb\"}\n{\"type\":\"notice\",\"text\":\"n\"}\n" {
		t.Errorf("%d writes: %q", w.writes, w.buf.String())
	}
}

type countingWriter struct {
	buf    bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.buf.Write(p)
}
