// Package remote runs relays across machines over the Agent2Agent protocol
// (A2A 0.3, JSON-RPC over HTTP, through the official Go SDK). It is the
// second implementation of the relay's Asker beside agentproc's local
// children, with the same two sides:
//
//   - the asking side, Agent: an mmConfigs entry {url:, tokenEnv:} asked
//     with message/stream, its answer streamed to the display, its consent
//     questions (input-required) put to the asking mm's own user, Ctrl-C
//     sent as tasks/cancel;
//   - the serving side, Server: mm -a2a, one fresh turn of the served agent
//     per task, concurrently, under that agent's own hooks.
//
// What mm adds on top of plain A2A travels as metadata under keys of its
// own (DepthKey, EventKey, ConsentKey, OutcomeKey) and as a card extension
// (ModelExtension); a foreign peer that ignores them still gets a working
// agent, and mm still works with a foreign agent that never sends them.
//
// Relay semantics (preAsk, postAsk, notices, the depth limit of the asking
// side) are not here: see package relay.
package remote

import (
	"encoding/json"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/mm-agent/mm/internal/termtext"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// The mm extensions of the wire, each a documented key (the contract,
// "Remote agents (A2A)").
const (
	// DepthKey (message metadata) is the asked agent's relay depth, a JSON
	// number: 1 when the agent a person started asks. A task without it has
	// depth 1.
	DepthKey = "mm/askDepth"
	// EventKey (status-update metadata) carries what the served agent
	// showed besides its own answer — a tool line, a nested agent's text, a
	// hook failure — so the asking mm displays it as for a local child.
	EventKey = "mm/event"
	// ConsentKey (input-required metadata) describes the tool call waiting
	// for consent: {"tool", "summary", "input", "callId"}. On the answer
	// message, the value ConsentNoOneToAsk says the asking side has no one
	// to put the question to.
	ConsentKey = "mm/consent"
	// OutcomeKey (final status metadata) types the turn's end as a local
	// child's would be: {"status": answered|failed|cancelled|maxSteps|cutOff,
	// "error": "…", "cutOff": "<cause>"}.
	OutcomeKey = "mm/outcome"
	// ModelExtension is the URI of the card extension whose params.model is
	// the served agent's <provider>/<model> (the ask object's agentModel).
	ModelExtension = "mm/agent-model"
)

// ConsentNoOneToAsk is the ConsentKey value of an answer from an asking mm
// with no one to ask (-p with no terminal): the served agent refuses the
// call with the contract's NoConsent text instead of "denied by the user".
const ConsentNoOneToAsk = "no-one-to-ask"

// wireEvent is an orchestrator.Event as EventKey carries it; kinds are
// names, not numbers, so foreign readers can make sense of them.
type wireEvent struct {
	Kind    string          `json:"kind"`
	Text    string          `json:"text,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	Summary string          `json:"summary,omitempty"`
	CallID  string          `json:"callId,omitempty"`
	Input   json.RawMessage `json:"input,omitempty"`
	Reason  string          `json:"reason,omitempty"`
	Output  string          `json:"output,omitempty"`
	// CallSummary is Event.Summary: the summary of an ended call.
	CallSummary string `json:"callSummary,omitempty"`
	// Path is the agents below the served one that showed it, the
	// outermost first (orchestrator.Path).
	Path []string `json:"path,omitempty"`
	// Status is how a denied or ended call went (orchestrator.Status's
	// name: ok, failed, denied, noOneToAsk, cancelled).
	Status string `json:"status,omitempty"`
}

var kindNames = map[orchestrator.EventKind]string{
	orchestrator.Text:        "text",
	orchestrator.ToolStart:   "toolStart",
	orchestrator.ToolDenied:  "toolDenied",
	orchestrator.ToolEnd:     "toolEnd",
	orchestrator.HookFailure: "hookFailure",
	orchestrator.Notice:      "notice",
}

func kindOf(name string) (orchestrator.EventKind, bool) {
	for k, n := range kindNames {
		if n == name {
			return k, true
		}
	}
	return 0, false
}

// encodeEvent is ev as EventKey's value, its output, reason and input
// clipped to fit the wire (wire.go; its text is the caller's to cut); ok
// is false for events that do not cross the wire (hook runs: an asked
// agent's are not listed).
func encodeEvent(ev orchestrator.Event) (map[string]any, bool) {
	kind, ok := kindNames[ev.Kind]
	if !ok {
		return nil, false
	}
	w := wireEvent{
		Kind: kind, Text: ev.Text, Tool: ev.Call.Tool, Summary: ev.Call.Summary,
		CallID: ev.Call.ID, Input: wireInputOf(ev.Call.Input), Reason: wireClip(ev.Reason, wireField),
		Output: wireClip(ev.Output, wireField), CallSummary: ev.Summary, Path: ev.Agent,
	}
	if ev.Kind == orchestrator.ToolDenied || ev.Kind == orchestrator.ToolEnd {
		w.Status = ev.Status.String()
	}
	return toMap(w), true
}

// decodeEvent reads EventKey's value back; ok is false when it is not one.
func decodeEvent(v any) (orchestrator.Event, bool) {
	var w wireEvent
	if !fromAny(v, &w) {
		return orchestrator.Event{}, false
	}
	kind, ok := kindOf(w.Kind)
	if !ok {
		return orchestrator.Event{}, false
	}
	ev := orchestrator.Event{
		Kind: kind, Text: w.Text, Reason: w.Reason, Output: w.Output,
		Summary: w.CallSummary, Agent: orchestrator.Path(w.Path),
		Call: orchestrator.Call{ID: w.CallID, Tool: w.Tool, Summary: w.Summary},
	}
	if st, ok := orchestrator.ParseStatus(w.Status); ok {
		ev.Status = st
	} else if kind == orchestrator.ToolDenied {
		ev.Status = orchestrator.Denied
	}
	if len(w.Input) > 0 {
		ev.Call.Input = w.Input
	}
	return ev, true
}

// consentQuestion is ConsentKey's value on an input-required status.
type consentQuestion struct {
	Tool    string          `json:"tool"`
	Summary string          `json:"summary,omitempty"`
	Input   json.RawMessage `json:"input,omitempty"`
	CallID  string          `json:"callId,omitempty"`
	// Path is the agents below the served one the call comes from
	// (orchestrator.Call.Agent); absent for the served agent's own call.
	Path []string `json:"path,omitempty"`
}

// outcome is OutcomeKey's value.
type outcome struct {
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// CutOff, with status cutOff, is why the answer did not end.
	CutOff string `json:"cutOff,omitempty"`
}

// outcomes pairs each relay status with its name in OutcomeKey and the
// task state a foreign client reads: the one table both sides map by
// (toOutcome, fromOutcome).
var outcomes = []struct {
	status relay.Status
	name   string
	state  a2a.TaskState
}{
	{relay.Answered, "answered", a2a.TaskStateCompleted},
	{relay.Failed, "failed", a2a.TaskStateFailed},
	{relay.Cancelled, "cancelled", a2a.TaskStateCanceled},
	{relay.MaxSteps, "maxSteps", a2a.TaskStateFailed},
	// Failed for a foreign client (an answer cut off is no answer); typed
	// for an mm one, which reads the answer and its marker.
	{relay.CutOff, "cutOff", a2a.TaskStateFailed},
}

// toOutcome is how a served turn ended, as the task's final status says
// it: its state, and the typed outcome an asking mm reads.
func toOutcome(r relay.AskResponse) (a2a.TaskState, outcome) {
	o := outcome{Status: "failed", Error: r.Error}
	if r.Status == relay.CutOff {
		o.CutOff = r.CutOff
	}
	state := a2a.TaskStateFailed
	for _, p := range outcomes {
		if p.status == r.Status {
			o.Status, state = p.name, p.state
		}
	}
	if r.Status == relay.Answered {
		o.Error = ""
	}
	return state, o
}

// fromOutcome is the relay status an mm peer's outcome names; a name this
// side does not know (a newer peer) is a failure.
func fromOutcome(o outcome) relay.Status {
	for _, p := range outcomes {
		if p.name == o.Status {
			return p.status
		}
	}
	return relay.Failed
}

// depthOf reads DepthKey from a message's metadata: a whole number >= 1,
// else 1 (a foreign client, or nonsense).
func depthOf(meta map[string]any) int {
	switch v := meta[DepthKey].(type) {
	case float64:
		if v >= 1 && v <= math.MaxInt32 && v == math.Trunc(v) {
			return int(v)
		}
	case int:
		if v >= 1 {
			return v
		}
	case json.Number:
		if n, err := v.Int64(); err == nil && n >= 1 && n <= math.MaxInt32 {
			return int(n)
		}
	}
	return 1
}

// textOf joins the text parts of parts: what mm reads of a message.
func textOf(parts a2a.ContentParts) string {
	s := ""
	for _, p := range parts {
		switch t := p.(type) {
		case a2a.TextPart:
			s += t.Text
		case *a2a.TextPart:
			s += t.Text
		}
	}
	return s
}

func toMap(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

func fromAny(v any, dst any) bool {
	if v == nil {
		return false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	return json.Unmarshal(b, dst) == nil
}

// runeCut is the largest index <= n of s that starts a rune (len(s) when
// s is shorter), so s[:runeCut(s, n)] is whole characters.
func runeCut(s string, n int) int {
	if len(s) <= n {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// clean makes text from a remote agent safe to print and to hand on:
// escape sequences, control characters other than newline and tab (C0,
// DEL, C1) and bidirectional overrides would move the cursor, retitle or
// clear the terminal of whoever reads the answer, or reorder what they
// read, so they go (termtext.Clean) — before the text is shown and before
// it becomes an answer or an error.
func clean(s string) string { return termtext.Clean(s) }

// flatKeep is s with its newlines and tabs as spaces, nothing removed: a
// consent question's words, which the question shows visibly
// (termtext.Visible).
func flatKeep(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}

// flatLine is clean(s) with its newlines and tabs as spaces.
func flatLine(s string) string { return flatKeep(clean(s)) }
