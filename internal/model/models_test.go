package model

import (
	"context"
	"errors"
	"strings"
	"testing"
)

const modelsScript = `
models:
  - {id: qwen3:8b, contextLength: 40960, arch: qwen3}
  - {id: tiny, contextLength: 2048, window: 512, noTools: true}
replies:
  - text: Hello.
    repeat: true
`

// TestModels lists the models of every profile's server, and Ollama's
// context lengths and tool support from its own API.
func TestModels(t *testing.T) {
	for _, p := range []struct {
		profile string
		ctx     [2]int // what /v1/models says of each model's context
	}{{"ollama", [2]int{0, 0}}, {"llamacpp", [2]int{0, 0}}, {"vllm", [2]int{40960, 512}}, {"lmstudio", [2]int{0, 0}}} {
		t.Run(p.profile, func(t *testing.T) {
			c := &Client{BaseURL: profileServer(t, p.profile, modelsScript)}
			ms, err := c.Models(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != 2 || ms[0].ID != "qwen3:8b" || ms[1].ID != "tiny" {
				t.Fatalf("models %+v", ms)
			}
			if ms[0].ContextLength != p.ctx[0] || ms[1].ContextLength != p.ctx[1] || ms[0].Tools != nil {
				t.Errorf("models %+v", ms)
			}
			err = c.OllamaShow(context.Background(), &ms[0])
			if p.profile != "ollama" {
				var me *Error
				if !errors.As(err, &me) || me.Status != 404 {
					t.Errorf("OllamaShow against %s: %v", p.profile, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := c.OllamaShow(context.Background(), &ms[1]); err != nil {
				t.Fatal(err)
			}
			if ms[0].ContextLength != 40960 || ms[0].NumCtx != 0 || ms[0].Tools == nil || !*ms[0].Tools {
				t.Errorf("qwen3:8b: %+v", ms[0])
			}
			if ms[1].ContextLength != 2048 || ms[1].NumCtx != 512 || ms[1].Tools == nil || *ms[1].Tools {
				t.Errorf("tiny: %+v", ms[1])
			}
			absent := ModelInfo{ID: "absent"}
			if err := c.OllamaShow(context.Background(), &absent); err == nil || !strings.Contains(err.Error(), "404 Not Found to POST /api/show: model 'absent' not found") {
				t.Errorf("absent: %v", err)
			}
		})
	}
}

func TestModelsUnreachable(t *testing.T) {
	c := &Client{BaseURL: "http://127.0.0.1:9/v1", Hint: "start it"}
	_, err := c.Models(context.Background())
	var me *Error
	if !errors.As(err, &me) || me.Kind != ErrUnreachable || err.Error() != "cannot reach the model server at http://127.0.0.1:9/v1 (connection refused); start it" {
		t.Fatalf("%v", err)
	}
}

// TestNoTools: a model that takes no tools answers a request offering
// some with Ollama's 400, which says what to do; without tools it answers.
func TestNoTools(t *testing.T) {
	c := &Client{BaseURL: profileServer(t, "ollama", modelsScript), Stream: true}
	req := Request{Model: "tiny", Messages: []Message{{Role: "user", Content: "hi"}}, Tools: []ToolDef{{Name: "bash"}}}
	_, err := c.Chat(context.Background(), req, nil)
	var me *Error
	if !errors.As(err, &me) || me.Kind != ErrNoTools || !strings.HasSuffix(err.Error(), "answered 400 Bad Request: tiny does not support tools; "+NoToolsHint) {
		t.Fatalf("%v", err)
	}
	req.Tools = nil
	if rep, err := c.Chat(context.Background(), req, nil); err != nil || rep.Content != "Hello." {
		t.Fatalf("%q %v", rep.Content, err)
	}
}
