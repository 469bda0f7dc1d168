package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Input is the JSON object a hook reads on stdin. Empty fields are omitted,
// as the reference says, except ask.depth and ask.withContext (see Ask).
type Input struct {
	Event      Event  `json:"event"`
	Cwd        string `json:"cwd,omitempty"`
	Model      string `json:"model,omitempty"`
	Prompt     string `json:"prompt,omitempty"`
	Tool       *Tool  `json:"tool,omitempty"`
	Ask        *Ask   `json:"ask,omitempty"`
	Output     string `json:"output,omitempty"`
	Answer     string `json:"answer,omitempty"`
	Error      string `json:"error,omitempty"`
	DurationMs int64  `json:"durationMs,omitempty"`
	Asked      *Asked `json:"asked,omitempty"`
}

// Tool is the tool call a preToolCall or postToolCall hook sees.
type Tool struct {
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
}

// Ask is the relay a preAsk or postAsk hook sees. Depth and WithContext are
// always written, 0 and false included, as the reference's example shows.
type Ask struct {
	Agent       string `json:"agent"`
	Config      string `json:"config,omitempty"`
	AgentModel  string `json:"agentModel,omitempty"`
	Via         string `json:"via,omitempty"`
	WithContext bool   `json:"withContext"`
	Depth       int    `json:"depth"`
	Prompt      string `json:"prompt,omitempty"`
	Transcript  string `json:"transcript,omitempty"`
}

// Asked marks the input of an agent that was itself asked by another.
type Asked struct {
	Depth int `json:"depth"`
}

// encode writes in as one JSON line with &, < and > as they are, so a hook
// can look for "&&" or ">" in a command with a plain text search.
func (in *Input) encode() ([]byte, error) {
	if in.Tool != nil {
		t := *in.Tool
		t.Input = unescapeHTML(t.Input)
		cp := *in
		cp.Tool = &t
		in = &cp
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Reply is a hook's answer, with only the fields its event reads decoded:
// a field read on another event is ignored, whatever its type.
type Reply struct {
	Action     string
	Prompt     *string         // preGeneration, preAsk: nil = unchanged
	Transcript *string         // preAsk
	Answer     *string         // postAsk
	Context    string          // preGeneration, postToolCall, preAsk, postAsk
	Input      json.RawMessage // preToolCall: nil = unchanged
	Reason     string          // preGeneration (stop), preToolCall and preAsk (deny)
	Response   string          // preGeneration (stop)
	Error      string          // all (action error)
}

// reads lists, per reply field, the events that read it (the reference's
// Reply table). action and error are read on every event.
var reads = map[string][]Event{
	"prompt":     {PreGeneration, PreAsk},
	"transcript": {PreAsk},
	"answer":     {PostAsk},
	"context":    {PreGeneration, PostToolCall, PreAsk, PostAsk},
	"input":      {PreToolCall},
	"reason":     {PreGeneration, PreToolCall, PreAsk},
	"response":   {PreGeneration},
}

// readsField reports whether event e reads a reply's field.
func readsField(e Event, field string) bool {
	if field == "action" || field == "error" {
		return true
	}
	for _, x := range reads[field] {
		if x == e {
			return true
		}
	}
	return false
}

// DecodeReply turns a hook's stdout into a Reply for event. Empty (or blank)
// stdout is {"action":"continue"}. The error's text is the failure the
// reference names (`invalid JSON on stdout: …`).
func DecodeReply(event Event, stdout []byte) (Reply, error) {
	return decodeReply(event, stdout, "on stdout")
}

// decodeReply is DecodeReply for a reply read from where ("on stdout", or
// a URL hook's "in the response body (status 200 OK)"), which the failure
// names.
func decodeReply(event Event, stdout []byte, where string) (Reply, error) {
	invalidJSON := func(reason string) error { return failure("invalid JSON " + where + ": " + reason) }
	var r Reply
	stdout = bytes.TrimSpace(stdout)
	if len(stdout) == 0 {
		return r, nil
	}
	dec := json.NewDecoder(bytes.NewReader(stdout))
	var fields map[string]json.RawMessage
	if err := dec.Decode(&fields); err != nil {
		return r, invalidJSON(jsonReason(err))
	}
	if fields == nil {
		return r, invalidJSON("want an object, got null")
	}
	if len(bytes.TrimSpace(stdout[dec.InputOffset():])) > 0 {
		return r, invalidJSON("data after the JSON object")
	}
	str := func(name string, dst *string) error {
		raw, ok := fields[name]
		if !ok || !readsField(event, name) || string(raw) == "null" {
			return nil
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return invalidJSON(fmt.Sprintf("%q must be a string", name))
		}
		return nil
	}
	ptr := func(name string) (*string, error) {
		if raw, ok := fields[name]; !ok || !readsField(event, name) || string(raw) == "null" {
			return nil, nil
		}
		s := new(string)
		return s, str(name, s)
	}
	var err error
	for _, f := range []struct {
		name string
		dst  *string
	}{{"action", &r.Action}, {"context", &r.Context}, {"reason", &r.Reason}, {"response", &r.Response}, {"error", &r.Error}} {
		if err = str(f.name, f.dst); err != nil {
			return r, err
		}
	}
	if r.Prompt, err = ptr("prompt"); err != nil {
		return r, err
	}
	if r.Transcript, err = ptr("transcript"); err != nil {
		return r, err
	}
	if r.Answer, err = ptr("answer"); err != nil {
		return r, err
	}
	if raw, ok := fields["input"]; ok && readsField(event, "input") && string(raw) != "null" {
		r.Input = raw
	}
	return r, nil
}

// jsonReason shortens encoding/json's messages to what a hook author needs.
func jsonReason(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "want an object, got " + te.Value
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// failure is a run's failure, whose text is the reference's message.
type failure string

func (f failure) Error() string { return string(f) }

// quote returns the first 300 bytes of a hook's stderr as one line.
func quote(b []byte) string {
	if len(b) > stderrQuote {
		b = b[:stderrQuote]
	}
	return strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "")), " ")
}

// unescapeHTML rewrites the \u0026, \u003c and \u003e escapes inside the
// strings of a JSON text as the characters themselves: a model served by a
// Go JSON encoder (Ollama, …) sends "a \u0026\u0026 b", and a hook must be
// able to find "&&" by plain text search. Everything else is left as is.
func unescapeHTML(raw json.RawMessage) json.RawMessage {
	if !bytes.Contains(raw, []byte(`\u00`)) {
		return raw
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			out = append(out, c)
			continue
		}
		if raw[i+1] == 'u' && i+5 < len(raw) {
			switch strings.ToLower(string(raw[i+2 : i+6])) {
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			case "003c":
				out, i = append(out, '<'), i+5
				continue
			case "003e":
				out, i = append(out, '>'), i+5
				continue
			}
		}
		out = append(out, c, raw[i+1]) // any other escape, \\ included, as is
		i++
	}
	return out
}
