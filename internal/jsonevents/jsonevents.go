// Package jsonevents is what mm -p --json writes: a turn as JSON Lines on
// stdout, one event an object with a "type", written as it happens, the
// last one the turn's result — so that a script or a CI job reads what
// happened without parsing the line-mode display (Claude Code's
// stream-json and Codex's exec --json do the same for theirs).
//
// Each event is a Go type of its own (Text, ToolStart, Hook, Result, …)
// whose fields are the JSON's; Stream turns the orchestrator's events and
// a turn's result into them, reading only typed values (statuses, paths,
// hook runs, relay outcomes), never the display's text. The event set is
// documented, with an example of each, in docs/reference/json-events.md;
// a new field is added, never renamed, so consumers keep working.
package jsonevents

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// Event is one line of the stream.
type Event interface {
	// Type is the event's "type".
	Type() string
}

// Path is the asked agents an event comes through, the outermost first
// (orchestrator.Path): ["expert"], ["expert", "librarian"]; left out for
// the agent's own events.
type Path []string

// Text is a piece of the answer as the model writes it.
type Text struct {
	Text  string `json:"text"`
	Agent Path   `json:"agent,omitempty"`
}

// Reasoning is a piece of what the model thinks before it answers; written
// only with showReasoning, and never part of the answer.
type Reasoning struct {
	Text  string `json:"text"`
	Agent Path   `json:"agent,omitempty"`
}

// ToolStart is a tool call that starts, with the input it runs with (after
// preToolCall), before any consent question.
type ToolStart struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
	Agent Path            `json:"agent,omitempty"`
}

// ToolEnd is a tool call that ended, or that consent refused: Status says
// how (the tool call statuses below), Output is what the tool gave (before
// any postToolCall context).
type ToolEnd struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
	Output string `json:"output"`
	// Summary of an ask_agent call: "expert answered", "expert failed", …
	Summary string `json:"summary,omitempty"`
	Agent   Path   `json:"agent,omitempty"`
}

// The statuses of a tool call (orchestrator.Status).
const (
	StatusOK         = "ok"
	StatusFailed     = "failed"
	StatusDenied     = "denied"
	StatusNoOneToAsk = "no_one_to_ask"
	StatusCancelled  = "cancelled"
)

// ToolDenied is a tool call a hook denied: preToolCall (the call never
// started: no tool_start), or preAsk for ask_agent (after its tool_start).
// Output is the bracketed text the model reads.
type ToolDenied struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input"`
	Reason string          `json:"reason,omitempty"`
	Output string          `json:"output"`
	Agent  Path            `json:"agent,omitempty"`
}

// Hook is one hook run of this agent, as it ended: the parts of its
// displayHooks line.
type Hook struct {
	Event string `json:"event"`
	// Tool, for preToolCall and postToolCall, and AskedAgent, for preAsk
	// and postAsk, is what the hook ran for.
	Tool       string `json:"tool,omitempty"`
	AskedAgent string `json:"askedAgent,omitempty"`
	Command    string `json:"command,omitempty"`
	// URL is a URL hook's, in place of Command.
	URL string `json:"url,omitempty"`
	// Decision is the displayHooks line's: continue, stop, deny, failed,
	// or what changed ("prompt replaced + context (12 chars)").
	Decision   string `json:"decision"`
	DurationMs int64  `json:"durationMs"`
	// Failure is why the run failed, with OnError what the hook's onError
	// made of it; both left out when it did not fail.
	Failure string `json:"failure,omitempty"`
	OnError string `json:"onError,omitempty"`
}

// HookFailure is a hook failure line, as line mode prints it (Text), with
// its parts; an asked agent's line crosses the process boundary as text
// alone, so its parts are left out.
type HookFailure struct {
	Text    string `json:"text"`
	Event   string `json:"event,omitempty"`
	Command string `json:"command,omitempty"`
	URL     string `json:"url,omitempty"` // a URL hook's, in place of Command
	Failure string `json:"failure,omitempty"`
	Agent   Path   `json:"agent,omitempty"`
}

// RelayStart is a question going to an asked agent of this agent (its
// preAsk hooks let it through); Agent is the path its events carry.
type RelayStart struct {
	Agent       Path   `json:"agent"`
	Via         string `json:"via"`
	WithContext bool   `json:"withContext"`
}

// RelayEnd is the asked agent's turn over: Status is how it ended
// (answered, failed, cancelled, maxSteps, cutOff), Error why it did not
// answer; postAsk runs after it.
type RelayEnd struct {
	Agent  Path   `json:"agent"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// Warning is a diagnostic (a model server's retry, an answer cut off, a
// prompt the server cut, a request too long compressed and retried); it
// is written to stderr too, as without --json.
type Warning struct {
	Text  string `json:"text"`
	Agent Path   `json:"agent,omitempty"`
}

// Notice is a line line mode shows as it is (postAsk's replacement notice,
// a context compression).
type Notice struct {
	Text  string `json:"text"`
	Agent Path   `json:"agent,omitempty"`
}

// Result is the last event: how the turn ended.
type Result struct {
	// Status is answered, failed, cancelled or stopped (the Result
	// statuses below); it says what the exit code says.
	Status string `json:"status"`
	// Answer is the text of the last answer (the model's, or the
	// preGeneration hook's response for stopped), what was shown of it for
	// a turn that failed or was cancelled.
	Answer string `json:"answer"`
	// Document is, with structuredOutput, the answer as the JSON value it
	// is; left out when the turn did not answer.
	Document json.RawMessage `json:"document,omitempty"`
	// Commands is the ⚙ count: the tool calls the turn ran.
	Commands int `json:"commands"`
	// Usage is what the model server counted, left out when it said
	// nothing.
	Usage *Usage `json:"usage,omitempty"`
	// Error is why the turn did not answer.
	Error string `json:"error,omitempty"`
	// CutOff is why the answer did not end ("output token limit").
	CutOff string `json:"cutOff,omitempty"`
	// MaxSteps: the turn stopped at maxSteps, the model still calling
	// tools.
	MaxSteps bool `json:"maxSteps,omitempty"`
	// Empty: the model's last reply held nothing; ReasoningOnly: only
	// reasoning. Not errors, but never silent.
	Empty         bool `json:"empty,omitempty"`
	ReasoningOnly bool `json:"reasoningOnly,omitempty"`
	// SessionError is why the turn could not be written to --session's
	// file.
	SessionError string `json:"sessionError,omitempty"`
}

// The statuses of a Result.
const (
	Answered  = "answered"  // exit 0
	Failed    = "failed"    // exit 1
	Cancelled = "cancelled" // exit 130
	// Stopped: a preGeneration hook stopped the turn before the model;
	// the answer is its response (exit 0; 1 with structuredOutput, where
	// a response is no JSON document).
	Stopped = "stopped"
)

// Usage is the model server's count for the turn's model calls.
type Usage struct {
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
	TotalTokens      int `json:"totalTokens,omitempty"`
}

func (Text) Type() string        { return "text" }
func (Reasoning) Type() string   { return "reasoning" }
func (ToolStart) Type() string   { return "tool_start" }
func (ToolEnd) Type() string     { return "tool_end" }
func (ToolDenied) Type() string  { return "tool_denied" }
func (Hook) Type() string        { return "hook" }
func (HookFailure) Type() string { return "hook_failure" }
func (RelayStart) Type() string  { return "relay_start" }
func (RelayEnd) Type() string    { return "relay_end" }
func (Warning) Type() string     { return "warning" }
func (Notice) Type() string      { return "notice" }
func (Result) Type() string      { return "result" }

// Marshal is ev as one line of the stream, "type" first, without the
// line break.
func Marshal(ev Event) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<", ">" and "&" as they are: commands hold them
	if err := enc.Encode(ev); err != nil {
		return nil, err
	}
	body := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	line := []byte(`{"type":"` + ev.Type() + `"`)
	if len(body) > 2 {
		line = append(append(line, ','), body[1:]...)
	} else {
		line = append(line, '}')
	}
	return line, nil
}

// Writer writes events as JSON Lines, one Write of the underlying writer
// per line, nothing held back: a consumer reads each event when it
// happens.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriter writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes ev on a line of its own.
func (w *Writer) Write(ev Event) error {
	line, err := Marshal(ev)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err = w.w.Write(append(line, '\n'))
	return err
}

// Stream turns a turn's events into the stream's.
type Stream struct {
	W *Writer
	// ShowReasoning writes reasoning events (the config's showReasoning).
	ShowReasoning bool
}

// Show is the orchestrator's show callback.
func (s *Stream) Show(ev orchestrator.Event) {
	if e, ok := FromEvent(ev, s.ShowReasoning); ok {
		s.W.Write(e)
	}
}

// FromEvent is the stream's event for an orchestrator event; ok is false
// for what the stream does not show: reasoning without showReasoning, an
// asked agent's hook runs (its own business: the child protocol does not
// carry them, as line mode's displayHooks lists only this agent's), and
// the start and end of relays further down the chain (their text carries
// their path).
func FromEvent(ev orchestrator.Event, showReasoning bool) (Event, bool) {
	agent := Path(ev.Agent)
	switch ev.Kind {
	case orchestrator.Text:
		if ev.Text == "" {
			return nil, false
		}
		return Text{Text: ev.Text, Agent: agent}, true
	case orchestrator.Reasoning:
		if !showReasoning || ev.Text == "" {
			return nil, false
		}
		return Reasoning{Text: ev.Text, Agent: agent}, true
	case orchestrator.ToolStart:
		return ToolStart{ID: ev.Call.ID, Name: ev.Call.Tool, Input: input(ev.Call.Input), Agent: agent}, true
	case orchestrator.ToolEnd:
		return ToolEnd{ID: ev.Call.ID, Name: ev.Call.Tool, Status: ToolStatus(ev.Status), Output: ev.Output, Summary: ev.Summary, Agent: agent}, true
	case orchestrator.ToolDenied:
		return ToolDenied{ID: ev.Call.ID, Name: ev.Call.Tool, Input: input(ev.Call.Input), Reason: ev.Reason, Output: ev.Output, Agent: agent}, true
	case orchestrator.HookRun:
		if len(ev.Agent) > 0 || ev.Run.Event == "" {
			return nil, false
		}
		return HookOf(ev.Run), true
	case orchestrator.HookFailure:
		f := HookFailure{Text: ev.Text, Agent: agent}
		if ev.Run.Event != "" {
			f.Event, f.Command, f.URL, f.Failure = string(ev.Run.Event), ev.Run.Command, ev.Run.URL, ev.Run.Failure
		}
		return f, true
	case orchestrator.Warning:
		return Warning{Text: ev.Text, Agent: agent}, true
	case orchestrator.Notice:
		return Notice{Text: ev.Text, Agent: agent}, true
	case orchestrator.AskStart:
		if ev.Ask == nil {
			return nil, false
		}
		return RelayStart{Agent: agent, Via: ev.Ask.Via, WithContext: ev.Ask.WithContext}, true
	case orchestrator.AskEnd:
		if ev.Ask == nil {
			return nil, false
		}
		end := RelayEnd{Agent: agent, Status: relay.Answered.String()}
		if err := ev.Ask.Err; err != nil {
			end.Status, end.Error = relay.Failed.String(), err.Error()
			var re *relay.Error
			if errors.As(err, &re) {
				end.Status = re.Status.String()
			}
		}
		return end, true
	}
	return nil, false
}

// HookOf is a hook run as the stream shows it.
func HookOf(r hooks.Run) Hook {
	h := Hook{Event: string(r.Event), Command: r.Command, URL: r.URL, Decision: r.Decision, DurationMs: r.Duration.Milliseconds()}
	switch r.Event {
	case hooks.PreAsk, hooks.PostAsk:
		h.AskedAgent = r.Target
	default:
		h.Tool = r.Target
	}
	if r.Failure != "" {
		h.Failure, h.OnError = r.Failure, string(r.OnError)
		if h.OnError == "" {
			h.OnError = string(hooks.Warn)
		}
	}
	return h
}

// ToolStatus is a tool call's status as the stream names it.
func ToolStatus(s orchestrator.Status) string {
	switch s {
	case orchestrator.Failed:
		return StatusFailed
	case orchestrator.Denied:
		return StatusDenied
	case orchestrator.NoOneToAsk:
		return StatusNoOneToAsk
	case orchestrator.Cancelled:
		return StatusCancelled
	}
	return StatusOK
}

// input is a call's input as a JSON value: the arguments as the tool runs
// with them ({} when there are none).
func input(in json.RawMessage) json.RawMessage {
	if len(in) == 0 || !json.Valid(in) {
		if len(in) == 0 {
			return json.RawMessage("{}")
		}
		b, _ := json.Marshal(string(in))
		return b
	}
	return in
}

// ResultOf is the result event of a turn. structured is whether the agent
// has structuredOutput (its answer is then a JSON document, and a stopped
// turn is a failure: a hook's response is no document).
func ResultOf(res orchestrator.TurnResult, structured bool) Result {
	r := Result{Status: Answered, Answer: res.Answer, Commands: len(res.Ran), CutOff: res.CutOff,
		Empty: res.Empty, ReasoningOnly: res.ReasoningOnly}
	if u := res.Usage; u.PromptTokens != 0 || u.CompletionTokens != 0 || u.TotalTokens != 0 {
		r.Usage = &Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	}
	if res.SaveErr != nil {
		r.SessionError = res.SaveErr.Error()
	}
	switch {
	case res.Cancelled():
		r.Status, r.Error = Cancelled, "cancelled"
	case res.Err != nil:
		r.Status, r.Error = Failed, res.Err.Error()
		r.MaxSteps = errors.Is(res.Err, orchestrator.ErrMaxSteps)
	case res.Stopped:
		r.Status = Stopped
	case res.CutOff != "":
		// An answer cut off did not succeed (exit 1), as postGeneration's
		// error says.
		r.Status, r.Error = Failed, orchestrator.CutOffError(res.CutOff)
	case structured:
		doc := strings.TrimSpace(res.Answer)
		if json.Valid([]byte(doc)) {
			r.Document = json.RawMessage(doc)
		}
	}
	return r
}
