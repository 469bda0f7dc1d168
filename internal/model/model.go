// Package model is mm's client for the OpenAI-compatible chat-completions
// wire that llmman, Ollama (/v1), llama.cpp's llama-server, vLLM and OpenAI
// all speak. It is hand-written rather than taken from an SDK because mm
// needs exact control over three things SDKs hide: tool calls that arrive in
// pieces across stream chunks (llama-server, vLLM) or whole (Ollama), the
// one-line errors a user reads when a local server is not running, and a
// parser small enough to fuzz.
package model

import "encoding/json"

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
}

// Reply is the model's complete answer to one Request.
type Reply struct {
	Content      string
	ToolCalls    []ToolCall
	FinishReason string // "stop", "tool_calls", "length", … as the server sent it
}
