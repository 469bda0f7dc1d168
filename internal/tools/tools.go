// Package tools holds the built-in tools mm offers a model: bash, read_file,
// write_file and edit_file. Every tool reports failure as its result — an
// output starting with "error: " that the model reads, so it can try again,
// and the status Failed that front ends show — rather than as a Go error.
package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mm-agent/mm/internal/sandbox"
	"github.com/mm-agent/mm/orchestrator"
)

// Tool is a built-in tool: what the orchestrator runs.
type Tool = orchestrator.Tool

// Names lists the built-in tools in their default order.
var Names = []string{"bash", "read_file", "write_file", "edit_file"}

// Config is where and how the built-in tools work.
type Config struct {
	// Dir is the session's absolute directory: bash runs there, relative
	// paths are relative to it.
	Dir string
	// Sandbox, when not nil, holds the tools: bash runs inside it,
	// write_file and edit_file write only where it lets them.
	Sandbox *sandbox.Sandbox
	// Env is the environment of the commands bash runs (MM_BIN, MM_CONFIG
	// and MM_ASK_DEPTH included); nil is mm's own.
	Env []string
}

// New returns the tools named in names (nil means all of them, in the
// order of Names; an empty list, none), working as c says.
func New(names []string, c Config) ([]Tool, error) {
	if names == nil {
		names = Names
	}
	out := make([]Tool, 0, len(names))
	for _, n := range names {
		switch n {
		case "bash":
			out = append(out, &bashTool{dir: c.Dir, box: c.Sandbox, env: c.Env})
		case "read_file":
			out = append(out, &readTool{dir: c.Dir})
		case "write_file":
			out = append(out, &writeTool{dir: c.Dir, box: c.Sandbox.Files(c.Dir)})
		case "edit_file":
			out = append(out, &editTool{dir: c.Dir, box: c.Sandbox.Files(c.Dir)})
		default:
			return nil, fmt.Errorf("unknown tool %q (want one of %s)", n, strings.Join(Names, ", "))
		}
	}
	return out, nil
}

// Builtin returns the tools named in names, each working in dir, with no
// sandbox and mm's own environment.
func Builtin(names []string, dir string) ([]Tool, error) {
	return New(names, Config{Dir: dir})
}

// Sandboxed is Builtin under box (nil: no sandbox).
func Sandboxed(names []string, dir string, box *sandbox.Sandbox) ([]Tool, error) {
	return New(names, Config{Dir: dir, Sandbox: box})
}

// unwrap undoes a mistake small models make: sending the arguments object
// encoded once more as a JSON string. Anything else is returned as is.
func unwrap(input json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(input)
	if len(t) > 0 && t[0] == '"' {
		var s string
		if json.Unmarshal(t, &s) == nil {
			if st := strings.TrimSpace(s); strings.HasPrefix(st, "{") {
				return json.RawMessage(st)
			}
		}
	}
	return t
}

// decode parses input into v (a pointer to a struct of pointer fields) and
// returns "" or what is wrong with it, for the model.
func decode(input json.RawMessage, v any) string {
	in := unwrap(input)
	if len(in) == 0 {
		in = json.RawMessage("{}")
	}
	err := json.Unmarshal(in, v)
	if err == nil {
		return ""
	}
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field == "":
		return "invalid arguments: want a JSON object, got " + te.Value
	case errors.As(err, &te):
		return fmt.Sprintf("invalid arguments: %q must be a %s, not %s", te.Field, jsonType(te.Type.String()), te.Value)
	case errors.As(err, &se):
		return "invalid arguments: malformed JSON: " + strings.TrimPrefix(se.Error(), "json: ")
	default:
		return "invalid arguments: " + strings.TrimPrefix(err.Error(), "json: ")
	}
}

// jsonType names a Go field type the way the model knows it.
func jsonType(goType string) string {
	if strings.HasSuffix(goType, "string") {
		return "string"
	}
	return goType
}

// required returns what is wrong with a missing or empty string field, or "".
func required(name string, v *string) string {
	if v == nil || *v == "" {
		return fmt.Sprintf("missing %q", name)
	}
	return ""
}

// output is the result of a call that did its work.
func output(s string) orchestrator.Result { return orchestrator.Result{Output: s} }

// failure is the result of a call that could not: the model reads
// "error: " and msg.
func failure(format string, args ...any) orchestrator.Result {
	return orchestrator.Failure(fmt.Sprintf(format, args...))
}

// schema builds a JSON Schema object whose properties are all strings and all
// required; props alternate name and description.
func schema(props ...string) json.RawMessage {
	type prop struct {
		Type        string `json:"type"`
		Description string `json:"description"`
	}
	p := map[string]prop{}
	var req []string
	for i := 0; i+1 < len(props); i += 2 {
		p[props[i]] = prop{Type: "string", Description: props[i+1]}
		req = append(req, props[i])
	}
	b, err := json.Marshal(struct {
		Type       string          `json:"type"`
		Properties map[string]prop `json:"properties"`
		Required   []string        `json:"required"`
	}{"object", p, req})
	if err != nil {
		panic(err) // static input: cannot happen
	}
	return b
}
