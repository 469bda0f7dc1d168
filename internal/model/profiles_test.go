package model

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mm-agent/mm/internal/mockmodel"
)

// profileServer serves script as the named real server writes.
func profileServer(t *testing.T, profile, script string) string {
	t.Helper()
	s, err := mockmodel.ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv := mockmodel.New(s, "")
	if err := srv.SetProfile(profile); err != nil {
		t.Fatal(err)
	}
	url, err := srv.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return url
}

const profileScript = `
replies:
  - match: '^text$'
    text: "Hello <b>you</b> & wörld."
    repeat: true
  - match: '^tool$'
    text: ""
    toolCalls:
      - {name: bash, args: {command: "ls -la | head"}}
      - {name: read_file, args: {path: "a b.txt"}}
    repeat: true
  - match: '^reason$'
    reasoning: "The user <greets>; I should answer briefly."
    text: "Hi."
    repeat: true
  - match: '^tags$'
    reasoning: "The user <greets>; I should answer briefly."
    thinkTags: true
    text: "Hi."
    repeat: true
  - match: '^only reasoning$'
    reasoning: "Thinking and thinking."
    repeat: true
  - match: '^length$'
    text: "This answer runs until the output token limit cuts it"
    finishReason: length
    repeat: true
  - match: '^missing$'
    serverError: modelNotFound
    repeat: true
  - match: '^long$'
    serverError: contextExceeded
    repeat: true
`

// TestProfiles runs every behaviour against every real server's wire.
func TestProfiles(t *testing.T) {
	type check func(t *testing.T, profile string, rep Reply, text, reasoning string, err error)
	noErr := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("error: %v", err)
		}
	}
	cases := []struct {
		prompt string
		check  check
	}{
		{"text", func(t *testing.T, _ string, rep Reply, text, reasoning string, err error) {
			noErr(t, err)
			if rep.Content != "Hello <b>you</b> & wörld." || text != rep.Content || rep.FinishReason != "stop" || reasoning != "" {
				t.Fatalf("reply %+v, onText %q, reasoning %q", rep, text, reasoning)
			}
			if rep.Usage == nil || rep.Usage.PromptTokens == 0 || rep.Usage.TotalTokens != rep.Usage.PromptTokens+rep.Usage.CompletionTokens {
				t.Fatalf("usage %+v", rep.Usage)
			}
		}},
		{"tool", func(t *testing.T, _ string, rep Reply, text, _ string, err error) {
			noErr(t, err)
			if len(rep.ToolCalls) != 2 || rep.ToolCalls[0].Function.Name != "bash" ||
				rep.ToolCalls[0].Function.Arguments != `{"command":"ls -la | head"}` ||
				rep.ToolCalls[1].Function.Arguments != `{"path":"a b.txt"}` || rep.ToolCalls[0].ID == "" ||
				rep.ToolCalls[0].ID == rep.ToolCalls[1].ID || rep.FinishReason != "tool_calls" || rep.Content != "" || text != "" {
				t.Fatalf("reply %+v", rep)
			}
		}},
		{"reason", reasoned},
		{"tags", reasoned},
		{"only reasoning", func(t *testing.T, _ string, rep Reply, text, reasoning string, err error) {
			noErr(t, err)
			if rep.Content != "" || text != "" || rep.Reasoning != "Thinking and thinking." || reasoning != rep.Reasoning {
				t.Fatalf("reply %+v, onText %q", rep, text)
			}
		}},
		{"length", func(t *testing.T, _ string, rep Reply, text, _ string, err error) {
			noErr(t, err)
			if rep.FinishReason != "length" || !strings.HasPrefix(rep.Content, "This answer runs") {
				t.Fatalf("reply %+v", rep)
			}
		}},
		{"missing", func(t *testing.T, profile string, _ Reply, _, _ string, err error) {
			var me *Error
			if !errors.As(err, &me) || me.Kind != ErrModelNotFound || !strings.Contains(me.Msg, `does not have the model "qwen3:8b"`) {
				t.Fatalf("error %v", err)
			}
			if pull := strings.Contains(me.Msg, "ollama pull qwen3:8b"); pull != (profile == "ollama") {
				t.Fatalf("error %v", err)
			}
		}},
		{"long", func(t *testing.T, profile string, _ Reply, _, _ string, err error) {
			var me *Error
			if profile == "ollama" { // Ollama shortens a long prompt: no such error
				if !errors.As(err, &me) || me.Status != 500 {
					t.Fatalf("error %v", err)
				}
				return
			}
			if !errors.As(err, &me) || me.Kind != ErrContextLength ||
				!strings.HasPrefix(me.Msg, "the conversation is longer than the model's context (") ||
				!strings.Contains(me.Msg, "contextBudget") || !strings.Contains(me.Msg, "/compact") {
				t.Fatalf("error %v", err)
			}
		}},
	}
	for _, profile := range mockmodel.ProfileNames() {
		url := profileServer(t, profile, profileScript)
		for _, stream := range []bool{true, false} {
			for _, tc := range cases {
				name := profile + "/" + tc.prompt
				if !stream {
					name += "/whole"
				}
				t.Run(name, func(t *testing.T) {
					c := &Client{BaseURL: url, Stream: stream, Provider: profile}
					var text, reasoning strings.Builder
					rep, err := c.Chat(context.Background(), Request{Model: "qwen3:8b",
						Messages:    []Message{{Role: "user", Content: tc.prompt}},
						OnReasoning: func(s string) { reasoning.WriteString(s) },
					}, func(s string) { text.WriteString(s) })
					tc.check(t, profile, rep, text.String(), reasoning.String(), err)
				})
			}
		}
	}
}

func reasoned(t *testing.T, _ string, rep Reply, text, reasoning string, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	const want = "The user <greets>; I should answer briefly."
	if rep.Content != "Hi." || text != "Hi." || strings.TrimSpace(rep.Reasoning) != want || reasoning != rep.Reasoning {
		t.Fatalf("reply %+v, onText %q, reasoning %q", rep, text, reasoning)
	}
}

// TestProfilesRetry: a server that answers 503 (or 429) is tried again,
// each retry told, and the answer arrives.
func TestProfilesRetry(t *testing.T) {
	for _, profile := range mockmodel.ProfileNames() {
		t.Run(profile, func(t *testing.T) {
			url := profileServer(t, profile, `
replies:
  - {serverError: loading, retryAfter: "0"}
  - {status: 429, errorMessage: slow down, retryAfter: "0"}
  - {text: "Loaded."}
`)
			var retries []Retry
			rep, err := (&Client{BaseURL: url, Stream: true}).Chat(context.Background(), Request{Model: "m", Messages: []Message{{Role: "user", Content: "hi"}},
				OnRetry: func(r Retry) { retries = append(retries, r) }}, nil)
			if err != nil || rep.Content != "Loaded." {
				t.Fatalf("reply %+v, error %v", rep, err)
			}
			if len(retries) != 2 || retries[0].Status != 503 || retries[1].Status != 429 || retries[1].Message != "slow down" ||
				retries[0].Attempt != 1 || retries[1].Attempt != 2 || retries[0].Wait != 0 {
				t.Fatalf("retries %+v", retries)
			}
		})
	}
}

// TestProfilesRefuse: each profile refuses what its server refuses, so the
// end-to-end tests prove mm's histories are accepted.
func TestProfilesRefuse(t *testing.T) {
	call := func(args string) []ToolCall {
		return []ToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "bash", Arguments: args}}}
	}
	cases := []struct {
		profile string
		msgs    []Message
		want    string
	}{
		{"ollama", []Message{{Role: "user", Content: "x"}, {Role: "assistant", ToolCalls: call(`"ls"`)}, {Role: "tool", ToolCallID: "c1", Content: "ok"}},
			"invalid tool call arguments"},
		{"llamacpp", []Message{{Role: "user", Content: "a"}, {Role: "user", Content: "b"}}, "roles must alternate"},
		{"llamacpp", []Message{{Role: "user", Content: "a"}, {Role: "assistant", Content: "b"}, {Role: "assistant", Content: "c"}, {Role: "user", Content: "d"}},
			"roles must alternate"},
		{"lmstudio", []Message{{Role: "user", Content: "x"}, {Role: "tool", ToolCallID: "c9", Content: "ok"}}, "must be a response to a preceding message"},
		{"vllm", []Message{{Role: "user", Content: "x"}, {Role: "assistant", ToolCalls: call("{}")}, {Role: "tool", Content: "ok"}}, "tool_call_id Field required"},
	}
	for _, tc := range cases {
		t.Run(tc.profile, func(t *testing.T) {
			url := profileServer(t, tc.profile, "replies: [{text: fine, repeat: true}]")
			_, err := (&Client{BaseURL: url, Stream: true}).Chat(context.Background(), Request{Model: "m", Messages: tc.msgs}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
