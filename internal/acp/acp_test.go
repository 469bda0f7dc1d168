package acp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/coder/acp-go-sdk"

	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/model"
	"github.com/mm-agent/mm/internal/sessionfile"
	"github.com/mm-agent/mm/orchestrator"
)

func TestHookTitles(t *testing.T) {
	tests := []struct{ got, want string }{
		{hookTitle(hooks.Run{Event: hooks.PreToolCall, Target: "bash", Command: "guard.sh", Decision: "deny"}),
			"🪝 preToolCall [bash] · guard.sh → deny"},
		{hookTitle(hooks.Run{Event: hooks.PreGeneration, Command: "ctx.sh", Decision: "context (8 chars)"}),
			"🪝 preGeneration · ctx.sh → context (8 chars)"},
		// A hook's decision carries its reason: the title draws no escape.
		{hookTitle(hooks.Run{Event: hooks.PreToolCall, Target: "bash", Command: "guard.sh", Decision: "deny: \x1b]0;pwned\x07no\u202e"}),
			"🪝 preToolCall [bash] · guard.sh → deny: no"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// An asked agent's call has one id whether it comes as an event or as a
// consent question: both carry the agents' path as a list.
func TestCallIDOfAskedAgents(t *testing.T) {
	v := &view{prefix: "t2/"}
	parent := v.callID("", nil, "call_1")
	if parent != "t2/call_1" {
		t.Fatalf("parent id %q", parent)
	}
	if got := v.callID(parent, orchestrator.Path{"expert", "librarian"}, "call_7"); got != "t2/call_1/expert/librarian/call_7" {
		t.Errorf("id %q", got)
	}
	if got := v.callID("", orchestrator.Path{"expert"}, "call_2"); got != "t2/expert/call_2" {
		t.Errorf("id without a parent %q", got)
	}
}

func TestFailed(t *testing.T) {
	for out, want := range map[string]bool{
		"error: cancelled":          true,
		orchestrator.NoConsent:      true,
		orchestrator.UserRefused:    true,
		"[exit status 1]":           false,
		"Forty-two.":                false,
		"the error: is in the text": false,
	} {
		if got := failedInHistory(out); got != want {
			t.Errorf("failedInHistory(%q) = %v", out, got)
		}
	}
}

func TestPromptText(t *testing.T) {
	tests := []struct {
		name   string
		blocks []acp.ContentBlock
		want   string
	}{
		{"text", []acp.ContentBlock{acp.TextBlock("hello")}, "hello"},
		{"a mention is an @path line",
			[]acp.ContentBlock{acp.TextBlock("look at "), acp.ResourceLinkBlock("a.go", "file:///src/a.go"), acp.TextBlock(" please")},
			"look at \n@/src/a.go\n please"},
		{"another URI as it is",
			[]acp.ContentBlock{acp.ResourceLinkBlock("x", "https://example.com/x")},
			"https://example.com/x"},
		{"images are left out", []acp.ContentBlock{acp.TextBlock("hi"), acp.ImageBlock("AAAA", "image/png")}, "hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := promptText(tt.blocks); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReplay(t *testing.T) {
	history := []model.Message{
		{Role: "user", Content: "read it"},
		{Role: "assistant", Content: "Reading.", ToolCalls: []model.ToolCall{
			{ID: "call_1_1", Type: "function", Function: model.FunctionCall{Name: "read_file", Arguments: `{"path":"a.txt"}`}},
			{ID: "call_1_2", Type: "function", Function: model.FunctionCall{Name: "bash", Arguments: `{}`}},
		}},
		{Role: "tool", ToolCallID: "call_1_1", Content: "A"},
		{Role: "tool", ToolCallID: "call_1_2", Content: "error: missing \"command\""},
		{Role: "assistant", Content: "It says A."},
	}
	var got []string
	for _, u := range replay(history, nil, "/work") {
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, canonical(t, b))
	}
	want := []string{
		`{"content":{"text":"read it","type":"text"},"sessionUpdate":"user_message_chunk"}`,
		`{"content":{"text":"Reading.","type":"text"},"sessionUpdate":"agent_message_chunk"}`,
		`{"toolCallId":"h1/call_1_1","title":"read_file: a.txt","kind":"read","status":"completed","content":[{"content":{"text":"A","type":"text"},"type":"content"}],"locations":[{"path":"/work/a.txt"}],"rawInput":{"path":"a.txt"},"sessionUpdate":"tool_call"}`,
		`{"toolCallId":"h1/call_1_2","title":"bash","kind":"execute","status":"failed","content":[{"content":{"text":"error: missing \"command\"","type":"text"},"type":"content"}],"rawInput":{},"sessionUpdate":"tool_call"}`,
		`{"content":{"text":"It says A.","type":"text"},"sessionUpdate":"agent_message_chunk"}`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d updates, want %d:\n%v", len(got), len(want), got)
	}
	for i := range want {
		if want[i] = canonical(t, []byte(want[i])); got[i] != want[i] {
			t.Errorf("update %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// A call with what was shown kept replays that, not the output the model
// read; the others replay from the history.
func TestReplayShown(t *testing.T) {
	history := []model.Message{
		{Role: "user", Content: "ask"},
		{Role: "assistant", ToolCalls: []model.ToolCall{
			{ID: "c1", Type: "function", Function: model.FunctionCall{Name: "ask_agent", Arguments: `{"agent":"expert","question":"q"}`}},
			{ID: "c2", Type: "function", Function: model.FunctionCall{Name: "bash", Arguments: `{"command":"ls"}`}},
		}},
		{Role: "tool", ToolCallID: "c1", Content: "REPLACED\n\n[context added by a hook]\nsecret"},
		{Role: "tool", ToolCallID: "c2", Content: "a.txt"},
	}
	shown := []*sessionfile.Shown{nil, nil, {Title: "expert answered", Content: []string{"Forty-two.", "🪝 notice"}}, nil}
	var got []string
	for _, u := range replay(history, shown, "/work") {
		if u.ToolCall != nil {
			b, _ := json.Marshal(u.ToolCall.Content)
			got = append(got, u.ToolCall.Title+" "+string(u.ToolCall.Status)+" "+string(b))
		}
	}
	want := []string{
		`expert answered completed [{"content":{"text":"Forty-two.","type":"text"},"type":"content"},{"content":{"text":"🪝 notice","type":"text"},"type":"content"}]`,
		`bash: ls completed [{"content":{"text":"a.txt","type":"text"},"type":"content"}]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// canonical is JSON with its keys sorted, to compare messages.
func canonical(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}
