// Package model is mm's client for the OpenAI-compatible chat-completions
// wire that llmman, Ollama (/v1), llama.cpp's llama-server, vLLM, LM Studio
// and OpenAI all speak. It is hand-written rather than taken from an SDK
// because mm needs exact control over what SDKs hide: tool calls that
// arrive in pieces across stream chunks (llama-server, vLLM) or whole
// (Ollama), reasoning that arrives beside the answer (reasoning_content,
// reasoning) or inside it (<think>…</think>), servers that answer 503 while
// they load a model, the one-line errors a user reads when a local server is
// not running, and a parser small enough to fuzz.
package model

import (
	"encoding/json"
	"strconv"
	"time"
)

// Message is one entry of a conversation, in the wire's own shape so that a
// history can be sent as it is and written to a session file as it is.
type Message struct {
	Role       string     `json:"role"` // system, user, assistant or tool
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is a function call the model asked for, as the model wrote it.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // always "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall names the tool and carries its arguments as the JSON text the
// model produced (which may be malformed: the caller decides what to do).
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolDef is a tool offered to the model.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // a JSON Schema object
}

// Request is one chat-completions call.
type Request struct {
	Model    string
	Messages []Message
	Tools    []ToolDef
	// ResponseFormat, when set, is sent as the wire's "response_format" as is.
	ResponseFormat json.RawMessage
	// OnReasoning, when set, receives the model's reasoning as it arrives:
	// reasoning_content or reasoning deltas, or the <think>…</think> block
	// that opens the content. Reasoning is never part of the answer.
	OnReasoning func(delta string)
	// OnRetry, when set, is told of each retry of a server that answered
	// 429 or 503, before the wait.
	OnRetry func(Retry)
}

// Reply is the model's complete answer to one Request (or, beside an
// error, what had arrived of it).
type Reply struct {
	Content      string
	Reasoning    string // what the model thought before answering; not the answer
	ToolCalls    []ToolCall
	FinishReason string // "stop", "tool_calls", "length", … as the server sent it
	// Usage is what the server counted, when it said (the usage chunk a
	// stream ends with when asked for it, or llama-server's timings); nil
	// when it did not.
	Usage *Usage
}

// Usage is a server's own count of one request's tokens.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Add sums two counts (a turn's calls).
func (u Usage) Add(v Usage) Usage {
	return Usage{u.PromptTokens + v.PromptTokens, u.CompletionTokens + v.CompletionTokens, u.TotalTokens + v.TotalTokens}
}

// Retry is one retry of a busy or loading server.
type Retry struct {
	Server  string        // the base URL
	Status  int           // 429 or 503
	Message string        // the server's own words, if any
	Attempt int           // 1 for the first retry
	Max     int           // how many retries at most
	Wait    time.Duration // before the attempt
}

// String is the notice a user reads: what the server said and when mm
// tries again.
func (r Retry) String() string {
	s := "model server at " + r.Server + " answered " + strconv.Itoa(r.Status)
	if r.Message != "" {
		s += " (" + r.Message + ")"
	}
	return s + "; retry " + strconv.Itoa(r.Attempt) + " of " + strconv.Itoa(r.Max) + " in " + Duration(r.Wait)
}

// Duration writes d the way a user writes it in a config: 5m, 30s, 1.5s.
func Duration(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	case d >= time.Second && d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}
