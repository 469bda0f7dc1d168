// Package mockmodel is a test fixture: a scripted OpenAI-compatible model
// server for mm's end-to-end tests and offline demos. It is not a model and
// never used in production. It exists because mm's real HTTP client must be
// exercised against the wire exactly as local servers speak it — text and
// tool calls streamed in pieces like llama.cpp's llama-server, tool calls
// sent whole like Ollama, error statuses, slow starts and connections cut
// mid-stream — and none of that can be tested reliably against a real model.
//
// A Script lists canned replies; each request is answered by the first
// reply, in file order, that is not used up and whose regexp matches the
// last message of the request. Every request is recorded so tests can check
// what the client sent.
package mockmodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"time"

	"go.yaml.in/yaml/v3"
)

// Script is the whole of what the scripted model will say, as loaded from a
// YAML (or JSON) file. It is kept as data rather than code so that demos and
// shell-level tests can script a conversation without writing Go.
type Script struct {
	// Profile names the real server whose wire the replies are written in:
	// ollama, llamacpp, vllm or lmstudio (see profiles.go); empty for
	// mockmodel's own generic stream.
	Profile string `yaml:"profile"`
	// Replies are tried in order for every request; see Reply.
	Replies []Reply `yaml:"replies"`
	// Models are the models the server says it has (GET /v1/models, and
	// Ollama's /api/show), with what the server does with each; a request
	// for another model is answered with the profile's modelNotFound
	// error (but by llama-server, which serves its one model whatever the
	// name). Without it the server lists one model, "scripted", and
	// answers any.
	Models []Model `yaml:"models"`
	// Slots is how many chat requests the server works on at once; the
	// others wait their turn, as behind Ollama's OLLAMA_NUM_PARALLEL or
	// llama-server's --parallel (a machine with one GPU answers one
	// request at a time). 0: no limit. The benchmark of agents behind a
	// load balancer needs it: with no limit, one backend is as fast as
	// three.
	Slots int `yaml:"slots"`
}

// Model is one model of the server, as the server runs it.
type Model struct {
	// ID is the model's name, as requests name it.
	ID string `yaml:"id"`
	// ContextLength is the context length the model's metadata says
	// (Ollama's model_info "<arch>.context_length", vLLM's max_model_len,
	// llama-server's n_ctx_train); 0: not said.
	ContextLength int `yaml:"contextLength"`
	// Window is the context the server runs the model with (Ollama's
	// num_ctx, llama-server's -c, vLLM's --max-model-len, LM Studio's
	// loaded length): a prompt the server counts longer is cut to it by
	// Ollama, which then reports the cut length as prompt_tokens, and
	// refused by the others with their contextExceeded error. 0: no limit.
	Window int `yaml:"window"`
	// NoTools says the model's template takes no tools: Ollama answers a
	// request that offers tools 400 "<model> does not support tools".
	NoTools bool `yaml:"noTools"`
	// Arch is the architecture Ollama's /api/show names (default llama).
	Arch string `yaml:"arch"`
}

// Reply is one canned answer. Every field is optional; the zero Reply
// matches anything and answers once with empty text.
type Reply struct {
	// Match is an unanchored Go regexp tried against the content of the last
	// message of the request (the user's question, or a tool's output when
	// the client is returning tool results), so a script can follow a
	// conversation without counting turns. Empty matches anything.
	Match string `yaml:"match"`
	// Model, when set, is an unanchored Go regexp the request's model name
	// must match too, so one server can script several agents.
	Model string `yaml:"model"`
	// Text is the assistant text, a Go text/template over TemplateData, so a
	// reply can echo what the client sent and tests can see it arrived.
	Text string `yaml:"text"`
	// ToolCalls are the function calls the model asks for, in order.
	ToolCalls []ToolCall `yaml:"toolCalls"`
	// Delay is waited before the first byte of the reply, to test timeouts,
	// spinners and cancellation.
	Delay time.Duration `yaml:"delay"`
	// ChunkDelay is waited between stream chunks, to make streaming visible.
	ChunkDelay time.Duration `yaml:"chunkDelay"`
	// TextPiece is the runes of text per stream chunk (default 4): a large
	// one makes a long answer arrive in big deltas, as a fast server
	// sends them, and in fewer chunks for a test to wait for.
	TextPiece int `yaml:"textPiece"`
	// WholeToolCalls sends all tool calls whole in a single chunk, as Ollama's
	// /v1 endpoint does, instead of llama-server's name-then-fragments.
	WholeToolCalls bool `yaml:"wholeToolCalls"`
	// Status, when non-zero, answers this HTTP error status (400–599) with
	// an OpenAI-style error body instead of a completion.
	Status int `yaml:"status"`
	// ErrorMessage is the message of that error body; it needs Status.
	ErrorMessage string `yaml:"errorMessage"`
	// Cut streams about half the reply and then drops the connection with no
	// finish_reason and no [DONE], as a crashing server would.
	Cut bool `yaml:"cut"`
	// FinishReason overrides the finish_reason ("stop", or "tool_calls" when
	// there are tool calls), e.g. "length" to test truncated answers.
	FinishReason string `yaml:"finishReason"`
	// Repeat keeps this reply available after use; by default each reply
	// answers exactly one request so a script reads as a conversation.
	Repeat bool `yaml:"repeat"`
	// Reasoning is what the model thinks before it answers, sent the way
	// the profile's server sends reasoning (reasoning_content, reasoning),
	// or with ThinkTags inside the content as a <think>…</think> block,
	// as llama-server does without a reasoning parser.
	Reasoning string `yaml:"reasoning"`
	ThinkTags bool   `yaml:"thinkTags"`
	// ServerError answers one of a real server's errors, in its profile's
	// words and status: loading (llama-server's 503 "Loading model"), busy
	// (a full queue), modelNotFound, contextExceeded, unauthorized. It
	// needs a profile.
	ServerError string `yaml:"serverError"`
	// RetryAfter is sent as the Retry-After header of an error answer.
	RetryAfter string `yaml:"retryAfter"`
	// Stall streams about half the reply and then sends nothing more,
	// keeping the connection open, as a hung server would (Delay before
	// the first byte is the other way to hang).
	Stall bool `yaml:"stall"`
	// Garbage answers 200 with bytes that are no chat-completions reply.
	Garbage bool `yaml:"garbage"`
	// PromptTokens, when set, is the prompt_tokens the usage reports
	// (else about a quarter of the request's bytes).
	PromptTokens int `yaml:"promptTokens"`

	re, modelRe *regexp.Regexp
	tmpl        *template.Template
}

// ToolCall is one scripted function call.
type ToolCall struct {
	// ID is the call id; empty means "call_<request N>_<index>".
	ID string `yaml:"id"`
	// Name is the function name.
	Name string `yaml:"name"`
	// Args is any YAML value, sent as its compact JSON text with mapping
	// keys in file order, so scripts stay readable.
	Args yaml.Node `yaml:"args"`
	// ArgsText, when set, is sent as the arguments text exactly as written,
	// so tests can feed the client malformed or truncated JSON. It excludes
	// Args.
	ArgsText *string `yaml:"argsText"`

	args string // the arguments text to send, computed when parsed
}

// ArgumentsText returns the exact arguments text this call sends, so tests
// can compare what the client reassembled against it.
func (c *ToolCall) ArgumentsText() string { return c.args }

// TemplateData is what a reply's Text template can refer to. It carries the
// parts of the request a script most often wants to echo back.
type TemplateData struct {
	Last     string // content of the last message of the request
	LastUser string // content of the last user message
	System   string // content of the first system message
	Model    string // the model the request asked for
	N        int    // 1-based number of this request since the server started
}

// LoadScript reads and parses a script file, so that a command or test can
// name its script by path.
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err // already names the file
	}
	s, err := ParseScript(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ParseScript parses a YAML or JSON script and checks it completely —
// unknown fields, regexps, templates, durations, tool arguments — so that a
// mistake in a script fails at load time rather than as a confusing reply
// in the middle of a test.
func ParseScript(data []byte) (*Script, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Script
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty script")
		}
		return nil, fmt.Errorf("script: %w", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("script: more than one YAML document")
	}
	if s.Profile != "" && profiles[s.Profile] == nil {
		return nil, fmt.Errorf("script: profile %q: want one of %s", s.Profile, strings.Join(ProfileNames(), ", "))
	}
	if s.Slots < 0 {
		return nil, errors.New("script: slots must not be negative")
	}
	seen := map[string]bool{}
	for i, m := range s.Models {
		switch {
		case m.ID == "":
			return nil, fmt.Errorf("script: model %d: no id", i+1)
		case seen[m.ID]:
			return nil, fmt.Errorf("script: model %q listed twice", m.ID)
		case m.ContextLength < 0 || m.Window < 0:
			return nil, fmt.Errorf("script: model %q: contextLength and window must not be negative", m.ID)
		}
		seen[m.ID] = true
	}
	for i := range s.Replies {
		if err := s.Replies[i].prepare(); err != nil {
			return nil, fmt.Errorf("script: reply %d: %w", i+1, err)
		}
	}
	return &s, nil
}

// prepare validates r and compiles its regexp, template and tool arguments.
func (r *Reply) prepare() error {
	if r.Match != "" {
		re, err := regexp.Compile(r.Match)
		if err != nil {
			return fmt.Errorf("match: %w", err)
		}
		r.re = re
	}
	if r.Model != "" {
		re, err := regexp.Compile(r.Model)
		if err != nil {
			return fmt.Errorf("model: %w", err)
		}
		r.modelRe = re
	}
	tmpl, err := template.New("text").Parse(r.Text)
	if err != nil {
		return fmt.Errorf("text: %w", err)
	}
	// Executing once against zero data catches references to fields that
	// do not exist, which text/template only reports at execution time.
	if err := tmpl.Execute(io.Discard, TemplateData{}); err != nil {
		return fmt.Errorf("text: %w", err)
	}
	r.tmpl = tmpl
	if r.Delay < 0 || r.ChunkDelay < 0 {
		return errors.New("delay and chunkDelay must not be negative")
	}
	if r.Status != 0 && (r.Status < 400 || r.Status > 599) {
		return fmt.Errorf("status %d: want an error status, 400 to 599", r.Status)
	}
	if r.ErrorMessage != "" && r.Status == 0 {
		return errors.New("errorMessage needs status")
	}
	switch r.ServerError {
	case "", "loading", "busy", "modelNotFound", "contextExceeded", "unauthorized":
	default:
		return fmt.Errorf("serverError %q: want loading, busy, modelNotFound, contextExceeded or unauthorized", r.ServerError)
	}
	if r.ServerError != "" && r.Status != 0 {
		return errors.New("serverError and status exclude each other")
	}
	for i := range r.ToolCalls {
		c := &r.ToolCalls[i]
		if c.Name == "" {
			return fmt.Errorf("tool call %d: no name", i+1)
		}
		switch {
		case c.ArgsText != nil && c.Args.Kind != 0:
			return fmt.Errorf("tool call %d: both args and argsText", i+1)
		case c.ArgsText != nil:
			c.args = *c.ArgsText
		case c.Args.Kind == 0:
			c.args = "{}"
		default:
			var buf bytes.Buffer
			if err := nodeJSON(&buf, &c.Args); err != nil {
				return fmt.Errorf("tool call %d: args: %w", i+1, err)
			}
			c.args = buf.String()
		}
	}
	return nil
}

// text renders the reply's text for one request.
func (r *Reply) text(d TemplateData) (string, error) {
	if r.tmpl == nil {
		return r.Text, nil
	}
	var b bytes.Buffer
	if err := r.tmpl.Execute(&b, d); err != nil {
		return "", err
	}
	return b.String(), nil
}

// nodeJSON writes a YAML node as compact JSON, keeping mapping keys in the
// order they were written (json.Marshal of a map would sort them).
func nodeJSON(b *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return errors.New("empty document")
		}
		return nodeJSON(b, n.Content[0])
	case yaml.AliasNode:
		return nodeJSON(b, n.Alias)
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := nodeJSON(b, c); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(n.Content[i].Value)
			b.Write(k)
			b.WriteByte(':')
			if err := nodeJSON(b, n.Content[i+1]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	case yaml.ScalarNode:
		return scalarJSON(b, n)
	}
	return fmt.Errorf("line %d: unsupported YAML node", n.Line)
}

// scalarJSON writes one YAML scalar as JSON: null, booleans and numbers as
// themselves, everything else (strings, timestamps, binary) as a string.
func scalarJSON(b *bytes.Buffer, n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!null":
		b.WriteString("null")
		return nil
	case "!!bool":
		var v bool
		if err := n.Decode(&v); err != nil {
			return err
		}
		b.WriteString(strconv.FormatBool(v))
		return nil
	case "!!int", "!!float":
		var v any
		if err := n.Decode(&v); err != nil {
			return err
		}
		if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
			return fmt.Errorf("line %d: %s has no JSON form", n.Line, n.Value)
		}
		j, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(j)
		return nil
	}
	j, _ := json.Marshal(n.Value)
	b.Write(j)
	return nil
}

// textPiece is the runes of text per stream chunk.
func (r *Reply) textPiece() int {
	if r.TextPiece > 0 {
		return r.TextPiece
	}
	return textPieceRunes
}
