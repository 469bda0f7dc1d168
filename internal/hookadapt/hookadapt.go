// Package hookadapt runs hooks written for another agent — Claude Code,
// Codex CLI or Gemini CLI — as mm hooks, unchanged. It is what
// `mm hooks adapt <agent> -- <command>` does: it reads mm's hook input,
// gives the command the input that agent would give it (the agent's event
// name, tool names, argument names and common fields), runs it, and turns
// its answer — an exit status, a JSON object — back into mm's reply.
//
// The peers share a convention mm's reference does not have: exit status 2
// blocks. A guard ported as a plain mm hook would see its exit 2 treated as
// a failure that the default onError (warn) lets through; through the
// adapter, exit 2 denies the call or stops the prompt, as it did at home.
//
// Everything that has no counterpart in mm — an event, a decision, a field
// that would change what runs or what the model reads — is a failure with a
// message naming it, never a guess; mm's onError then decides. Only what
// the peers show on their own screen (systemMessage, suppressOutput) is
// dropped. The mapping is documented in docs/reference/hooks-adapt.md.
package hookadapt

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/mm-agent/mm/hooks"
)

// Agent is the agent a hook was written for.
type Agent string

// The agents whose hooks mm can run.
const (
	ClaudeCode Agent = "claude-code"
	Codex      Agent = "codex"
	Gemini     Agent = "gemini"
)

// Agents lists them in the order the help and errors name them.
var Agents = []Agent{ClaudeCode, Codex, Gemini}

// ParseAgent returns the agent named name.
func ParseAgent(name string) (Agent, error) {
	for _, a := range Agents {
		if string(a) == name {
			return a, nil
		}
	}
	return "", fmt.Errorf("unknown agent %q (want claude-code, codex or gemini)", name)
}

// events is each agent's event for each of mm's events; an event missing
// from a map has no counterpart there. A relay (preAsk, postAsk) is what
// the peers see as a hand-off to a sub-agent: a tool call, so the tool
// events (see askCall for the tool they see).
var events = map[Agent]map[hooks.Event]string{
	ClaudeCode: {hooks.PreGeneration: "UserPromptSubmit", hooks.PreToolCall: "PreToolUse", hooks.PostToolCall: "PostToolUse", hooks.PostGeneration: "Stop",
		hooks.PreAsk: "PreToolUse", hooks.PostAsk: "PostToolUse"},
	Codex: {hooks.PreGeneration: "UserPromptSubmit", hooks.PreToolCall: "PreToolUse", hooks.PostToolCall: "PostToolUse", hooks.PostGeneration: "Stop",
		hooks.PreAsk: "PreToolUse", hooks.PostAsk: "PostToolUse"},
	Gemini: {hooks.PreGeneration: "BeforeAgent", hooks.PreToolCall: "BeforeTool", hooks.PostToolCall: "AfterTool", hooks.PostGeneration: "AfterAgent",
		hooks.PreAsk: "BeforeTool", hooks.PostAsk: "AfterTool"},
}

// Event is the agent's name for mm's event e, or an error saying there is
// none.
func (a Agent) Event(e hooks.Event) (string, error) {
	if name, ok := events[a][e]; ok {
		return name, nil
	}
	return "", fmt.Errorf("%s has no hook event for mm's %s: run this hook as a plain mm hook", a, e)
}

// Wraps reports whether a hook command runs `mm hooks adapt <agent> …`
// ("$MM_BIN" hooks adapt …, as the docs and `mm hooks import` write it),
// and for which agent; err says why that adapter run would fail before it
// runs anything (an unknown agent, a missing one, no `--`). The command is
// read as the shell splits it, and as the adapt command reads its words:
// its flags and their values are skipped, so `hooks adapt --matcher Bash
// claude-code -- …` adapts for claude-code. A command that only mentions
// `hooks adapt` (an argument of another program, a sh -c script) is not one.
func Wraps(command string) (a Agent, ok bool, err error) {
	words, complete := shellWords(command)
	i := 0
	for i < len(words) && (isAssignment(words[i]) || words[i] == "exec" || words[i] == "env") {
		i++
	}
	if i >= len(words) || !isMM(words[i]) {
		return "", false, nil
	}
	i++
	// mm's own flags may come before the subcommand: --config/-c and its value.
	for i < len(words) && strings.HasPrefix(words[i], "-") {
		if n := flagWords(words[i], "config", "c"); n > 0 {
			i += n
			continue
		}
		return "", false, nil // some other flag: not `mm hooks adapt`
	}
	if i+1 >= len(words) || words[i] != "hooks" || words[i+1] != "adapt" {
		return "", false, nil
	}
	if !complete {
		return "", true, errors.New("unbalanced quotes in the command")
	}
	var positional []string
	dash := false
	for i += 2; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			dash = true
			break
		}
		if strings.HasPrefix(w, "-") && w != "-" {
			n := flagWords(w, "matcher", "")
			if n == 0 {
				n = flagWords(w, "config", "c")
			}
			if n == 0 {
				return "", true, fmt.Errorf("unknown flag %s", w)
			}
			i += n - 1
			continue
		}
		positional = append(positional, w)
	}
	switch {
	case len(positional) == 0:
		return "", true, errors.New("no agent before -- (want claude-code, codex or gemini)")
	case !dash || len(positional) > 1 || i+1 >= len(words):
		return "", true, errors.New("no command after -- (mm hooks adapt <agent> -- <command> [args…])")
	}
	a, err = ParseAgent(positional[0])
	return a, true, err
}

// flagWords is how many words the flag w takes when it is --long (or -short)
// with a value: 2 for "--long v", 1 for "--long=v" or "-sv", 0 when w is not
// that flag.
func flagWords(w, long, short string) int {
	switch {
	case w == "--"+long || short != "" && w == "-"+short:
		return 2
	case strings.HasPrefix(w, "--"+long+"="):
		return 1
	case short != "" && strings.HasPrefix(w, "-"+short) && !strings.HasPrefix(w, "--"):
		return 1
	}
	return 0
}

// isMM reports whether a command's program word is mm: $MM_BIN, as hooks
// are told to write it, or a file named mm.
func isMM(w string) bool {
	switch w {
	case "$MM_BIN", "${MM_BIN}":
		return true
	}
	return w == "mm" || strings.HasSuffix(w, "/mm")
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// shellWords splits a command line into words as sh does for quotes and
// backslashes (no expansion: "$MM_BIN" stays $MM_BIN). complete is false
// when a quote is left open.
func shellWords(s string) (words []string, complete bool) {
	var (
		w       strings.Builder
		inWord  bool
		quote   rune
		escaped bool
	)
	for _, r := range s {
		switch {
		case escaped:
			w.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				w.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				w.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '\\':
			escaped, inWord = true, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, quote == 0 && !escaped
}

// Reply is mm's hook reply (the reference's Reply table), as the adapter
// writes it on stdout.
type Reply struct {
	Action   string          `json:"action,omitempty"`
	Prompt   *string         `json:"prompt,omitempty"`
	Context  string          `json:"context,omitempty"`
	Input    json.RawMessage `json:"input,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Answer   *string         `json:"answer,omitempty"` // postAsk
	Response string          `json:"response,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// failed is the reply of a run that failed: mm reports the error and its
// onError decides what follows.
func failed(err error) Reply { return Reply{Action: "error", Error: err.Error()} }

// Env is what the translation needs from outside the hook input.
type Env struct {
	// MCPServers returns the names of the config's MCP servers; called only
	// for a tool that is not built in.
	MCPServers func() []string
	// Now is the time written in Gemini CLI's timestamp field.
	Now string
}

// Translated is a hook input as the wrapped command reads it.
type Translated struct {
	Agent Agent
	Event hooks.Event // mm's event
	Name  string      // the agent's event name
	Stdin []byte      // the agent's JSON input
	// ToolName is the agent's name for the tool (tool events only), for the
	// adapter's own matcher.
	ToolName string
	// Env holds the variables the agent sets for its hooks
	// (CLAUDE_PROJECT_DIR, GEMINI_PROJECT_DIR), as NAME=value.
	Env  []string
	in   hooks.Input
	call *call
	ask  *askCall // preAsk, postAsk: the relay as the agent's hand-off tool
}

// Translate builds the input agent a gives its hook for mm's input in.
func (a Agent) Translate(in hooks.Input, env Env) (*Translated, error) {
	name, err := a.Event(in.Event)
	if err != nil {
		return nil, err
	}
	t := &Translated{Agent: a, Event: in.Event, Name: name, in: in}
	if in.Tool != nil {
		servers := env.MCPServers
		if servers == nil {
			servers = func() []string { return nil }
		}
		c, err := a.toolCall(in.Tool.Name, in.Tool.Input, in.Cwd, servers)
		if err != nil {
			return nil, err
		}
		t.call, t.ToolName = c, c.name
	}
	if in.Event == hooks.PreAsk || in.Event == hooks.PostAsk {
		if in.Ask == nil {
			return nil, fmt.Errorf("the %s input has no ask object", in.Event)
		}
		t.ask = a.askCall(in.Ask)
		t.ToolName = t.ask.name
	}
	var o object
	switch a {
	case Gemini:
		o = a.geminiInput(t, env)
		t.Env = []string{"GEMINI_PROJECT_DIR=" + in.Cwd, "CLAUDE_PROJECT_DIR=" + in.Cwd}
	default:
		o = a.claudeInput(t)
		if a == ClaudeCode {
			t.Env = []string{"CLAUDE_PROJECT_DIR=" + in.Cwd}
		}
	}
	t.Stdin, err = o.MarshalJSON()
	if err != nil {
		return nil, err
	}
	t.Stdin = append(t.Stdin, '\n')
	return t, nil
}

// Result is how the wrapped command ended.
type Result struct {
	ExitCode       int
	Stdout, Stderr []byte
}

// Reply turns the command's result into mm's reply.
func (t *Translated) Reply(res Result) Reply {
	var (
		r   Reply
		err error
	)
	switch res.ExitCode {
	case 0, 2:
		if t.Agent == Gemini {
			r, err = t.geminiReply(res)
		} else {
			r, err = t.claudeReply(res)
		}
	default:
		msg := fmt.Sprintf("exit status %d", res.ExitCode)
		if q := quote(res.Stderr); q != "" {
			msg += ": " + q
		}
		return Reply{Action: "error", Error: msg}
	}
	if err != nil {
		return failed(fmt.Errorf("%s: %w", t.Agent, err))
	}
	return r
}

// quote is the first 300 bytes of stderr on one line, as mm quotes a
// failing hook's.
func quote(b []byte) string {
	if len(b) > 300 {
		b = b[:300]
	}
	return strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "")), " ")
}

// message is a reason or context written on stderr or stdout, trimmed.
func message(b []byte) string { return strings.TrimSpace(strings.ToValidUTF8(string(b), "")) }

// replaced maps a hook's replacement of the tool's arguments back to mm's
// reply: the call's input, or on preAsk the question sent.
func (t *Translated) replaced(updated json.RawMessage) (Reply, error) {
	switch {
	case t.ask != nil:
		p, err := t.ask.fromAgent(updated)
		return Reply{Prompt: p}, err
	case t.call == nil:
		return Reply{}, fmt.Errorf("a replaced tool input on %s", t.Name)
	}
	in, err := t.call.fromAgent(updated)
	return Reply{Input: in}, err
}

// toolInput is the tool's arguments as the agent's hook reads them.
func (t *Translated) toolInput() json.RawMessage {
	if t.ask != nil {
		return t.ask.input
	}
	return t.call.input
}

// decodeObject decodes a JSON answer into dst; the error reads like mm's
// own `invalid JSON on stdout: …`.
func decodeObject(b []byte, dst any) error {
	var probe any
	if err := json.Unmarshal(b, &probe); err != nil {
		return fmt.Errorf("invalid JSON on stdout: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, ok := probe.(map[string]any); !ok {
		return fmt.Errorf("invalid JSON on stdout: want an object")
	}
	if err := json.Unmarshal(b, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fmt.Errorf("invalid JSON on stdout: %q must be %s, not %s", te.Field, typeName(te.Type), te.Value)
		}
		return fmt.Errorf("invalid JSON on stdout: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// typeName says what a field of the agent's answer must be.
func typeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}
