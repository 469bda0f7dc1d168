// Package orchestrator runs an agent's turns: the history, the model ⇄ tool
// loop, the tool middleware (preToolCall → consent → tool → postToolCall)
// and the hook decisions applied to the messages. Every front end — line
// mode, -p, the window, the editor, an asked agent's process — hands its
// turn to Session.Generate, so none of them can forget a hook.
//
// What a turn tells its front ends is typed, so that none reads it back
// from text: a tool call's Result carries its Status (OK, Failed, Denied,
// NoOneToAsk, Cancelled) beside the output the model reads, events carry
// it, and what an asked agent shows carries the agents' Path as a list.
// The Agent a session runs is built by internal/agent; this package sees
// it only through the Model, Tool and Consent interfaces.
package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/model"
)

// Model is what a turn needs of a model client.
type Model interface {
	Chat(ctx context.Context, req model.Request, onText func(string)) (model.Reply, error)
}

// Consent asks a person whether a tool call may run. Allow returns an
// error when no one can answer (then the call is refused with Refusal).
type Consent interface {
	Allow(ctx context.Context, call Call) (bool, error)
}

// Outputs the model reads when consent refused a call (the contract's
// Consent paragraph).
const (
	NoConsent   = "[denied: no one to ask for consent; set yolo: true to allow]"
	UserRefused = "[denied by the user]"
)

// ErrNoOneToAsk is what a Consent returns when there is no terminal or
// client to put the question to.
var ErrNoOneToAsk = errors.New("no one to ask for consent")

// EmptyReply is what front ends tell the user when the model's last reply
// held nothing: not an error (the answer is empty, as hooks see it), but
// never silent.
const EmptyReply = "the model's reply was empty (no text and no tool calls)"

// ReasoningOnlyReply is what front ends tell the user when the model's last
// reply held only reasoning: it thought and gave no answer.
const ReasoningOnlyReply = "the model reasoned but gave no answer (showReasoning: true shows its reasoning)"

// OutputLimit is the cause of an answer cut off by finish_reason "length".
const OutputLimit = "output token limit"

// CutOffMarker follows, in the history, an answer that did not end (the
// contract's "Model replies"): "[answer cut off: output token limit]".
func CutOffMarker(cause string) string { return "[answer cut off: " + cause + "]" }

// CutOffError is the error text of a cut-off answer, as postAsk reads it.
func CutOffError(cause string) string { return "answer cut off: " + cause }

// OutputLimitNotice is the warning of an answer cut off at the model's
// output token limit.
const OutputLimitNotice = "mm: the answer was cut off at the model's output token limit; the history marks it " + "[answer cut off: " + OutputLimit + "]"

// ErrCutOff ends a structured turn whose answer was cut off: a part of a
// JSON document is no document.
var ErrCutOff = errors.New("the answer was cut off at the model's output token limit")

// Structured is a structuredOutput schema (internal/structured).
type Structured interface {
	ResponseFormat() json.RawMessage
	Validate(answer string) error
}

// ErrInvalidAnswer ends a turn whose structured answer did not match its
// schema, even after one retry.
var ErrInvalidAnswer = errors.New("the answer does not match structuredOutput")

// RetryFeedback is what the model reads after an answer that does not
// match the schema.
const RetryFeedback = "Your answer must be one JSON document matching the required JSON Schema, and it is not: %v. Answer again with the JSON document alone."

// ErrMaxSteps ends a turn whose model was still calling tools after
// maxSteps model calls.
var ErrMaxSteps = errors.New("maxSteps reached")

// Agent is what a session needs to run turns: the model, the tools and
// the hooks. It is shared by the sessions of one process and not changed
// once built; what belongs to one caller (what to show, whom to ask for
// consent) is an argument of Generate.
type Agent struct {
	Model    Model
	ModelRef string // <provider>/<model>, for display and hook inputs
	Name     string // the model name sent on the wire
	System   string
	Tools    []Tool
	Hooks    *hooks.Runner // nil: no hooks
	Yolo     bool          // run tools without asking
	MaxSteps int
	// Parallel bounds the calls of one reply that run at once, of tools
	// other than an AskTool.
	Parallel int
	// ParallelAsks bounds the AskTool calls (ask_agent) of one reply that
	// run at once, apart from the other calls (maxParallelAsks); 0:
	// Parallel's bound.
	ParallelAsks int
	// ContextBudget, in estimated tokens (EstimateTokens), is the size of
	// the context the model takes; near it, older turns are compressed
	// into a summary before a turn. 0: never.
	ContextBudget int
	// Structured, when set, constrains the final answer to a JSON Schema
	// (structuredOutput): the model is asked for it through the request's
	// response_format, an answer that does not match is retried once with
	// the violation as feedback, and the answer is shown only once valid.
	Structured Structured
	// Expand, when set, turns the question as the preGeneration hooks left
	// it into what the model reads: @path lines attach files, $skill lines
	// pull in skills. Hooks see the question as typed.
	Expand func(prompt string) string
}

// Call is one tool call as the middleware handles it.
type Call struct {
	ID      string
	Tool    string
	Input   json.RawMessage // the arguments the tool runs with
	Summary string          // command, path, URL or agent, for display
	// Agent, in a consent question, is the asked agents the call comes
	// from (the outermost first): ["expert", "librarian"] for a call of
	// librarian, asked by expert, asked by this agent; empty for this
	// agent's own calls. Events carry it in Event.Agent instead.
	Agent Path
}

// Path names the asked agents something comes through, the outermost
// first: ["expert", "librarian"] is what librarian showed, asked by
// expert, asked by this agent; empty is this agent's own. Two relays of
// one reply to the same agent run at once: their elements carry the
// call's rank, "expert#1" and "expert#2" (relay.Label). A path is a list,
// never a string to split: front ends render it (String, and the tool
// names of internal/frontend).
type Path []string

// String is the path as displays label it and use it as a key:
// "expert/librarian"; "" for the agent's own.
func (p Path) String() string { return strings.Join(p, "/") }

// Within reports whether p is q or an agent asked further down from q.
func (p Path) Within(q Path) bool {
	return len(p) >= len(q) && slices.Equal(p[:len(q)], q)
}

// Of is the path of what an asked agent, labelled as, showed at p in its
// own terms: its label first, then p.
func (p Path) Of(label string) Path { return append(Path{label}, p...) }

// EventKind says what an Event shows.
type EventKind int

// The things a turn shows while it runs.
const (
	// Text is a piece of the answer as the model writes it.
	Text EventKind = iota
	// ToolStart: the usual tool line, with the arguments the tool will run
	// with; shown after preToolCall and before the consent question.
	ToolStart
	// ToolDenied: a hook denied the call (preToolCall, or preAsk for
	// ask_agent); Reason says why, Output is what the model reads.
	ToolDenied
	// ToolEnd: a tool call is over, or consent refused it; Output is the
	// tool's output before any postToolCall context, Status how it ended.
	ToolEnd
	// HookFailure: Text is a hook failure line to show now.
	HookFailure
	// HookRun: a hook ran (Run); front ends that show runs as they happen
	// (the editor) use it, the others list TurnResult.HookRuns afterwards.
	HookRun
	// Notice: Text is a line to show as it is (a relay's postAsk notice).
	Notice
	// Reasoning is a piece of what the model thinks before it answers: a
	// front end shows that the model is thinking (or, asked to, the text
	// itself, apart from the answer); it is never the answer.
	Reasoning
	// Warning: Text is a diagnostic line, not the product — a model
	// server's retry, an answer cut off — which line mode writes to stderr.
	Warning
	// AskEnd: the asked agent Agent has nothing more to show, its relay is
	// over (answered, failed or cancelled); front ends close what they kept
	// open for it (a line it was writing, an answer being streamed). Ask
	// says how the asked agent's turn ended.
	AskEnd
	// AskStart: the question goes to the asked agent Agent (its preAsk
	// hooks let it through); what Agent shows next is its turn, until
	// AskEnd. Ask says how the relay was started. Front ends that show
	// relays as they happen (mm -p --json) use it; the others wait for
	// what the asked agent shows.
	AskStart
)

// AskInfo is the relay an AskStart or AskEnd event is about. An asked
// agent's own relays reach the asking side without it (the child protocol
// carries their events, not their outcome): Ask is set for the relays of
// the agent whose turn it is.
type AskInfo struct {
	Via         string // how the relay started: "tool", "command" or "cli" (relay.Via)
	WithContext bool   // the conversation went with the question
	// Err, on AskEnd, is how the asked agent's turn ended: nil when it
	// answered, else a *relay.Error that errors.Is sees through
	// (ErrMaxSteps, ErrCutOff, context.Canceled). postAsk has not run yet.
	Err error
}

// Event is something a front end shows during a turn.
type Event struct {
	Kind EventKind
	Text string
	Call Call
	// Reason of a denial; Output of a denial (the bracketed text the model
	// reads) or of an ended call.
	Reason string
	Output string
	// Status of a denied or ended call.
	Status Status
	// Summary of an ended call for front ends that title tool calls (the
	// ask_agent call's "expert answered; …").
	Summary string
	Run     hooks.Run
	// Agent is the asked agents that showed this, the outermost first
	// (["expert"], or ["expert", "librarian"] further down); empty for the
	// agent's own events. Two relays of one reply to the same agent run at
	// the same time: they are told apart by the call's rank, "expert#1"
	// and "expert#2" (see Turn.Twin).
	Agent Path
	// Ask, on AskStart and AskEnd, is the relay (nil for an asked agent's
	// own relays).
	Ask *AskInfo
}

// TurnResult is how a turn ended.
type TurnResult struct {
	// Answer is the text of the last answer: the model's, or the hook's
	// response when preGeneration stopped the turn.
	Answer string
	// Stopped: a preGeneration hook stopped the turn before the model.
	Stopped bool
	// Empty: the model's last reply had no text, no reasoning and no tool
	// call.
	Empty bool
	// ReasoningOnly: the model's last reply had reasoning and nothing else.
	ReasoningOnly bool
	// CutOff, when not empty, is why the answer did not end (OutputLimit:
	// the model's output token limit); the history keeps CutOffMarker
	// after it.
	CutOff string
	// Usage sums what the server counted for the turn's model calls (zero
	// when it said nothing).
	Usage model.Usage
	// SaveErr: the turn could not be written to the session's Store.
	SaveErr error
	// Ran lists the tool calls that ran, in the order they started.
	Ran []Call
	// HookRuns lists every hook run of the turn in the order they ended,
	// for the displayHooks lines.
	HookRuns []hooks.Run
	// Err is why the turn failed (nil when it answered): a model error,
	// ErrMaxSteps, or the context's error when it was cancelled.
	Err error
}

// Cancelled reports whether the turn ended because it was cancelled.
func (r TurnResult) Cancelled() bool {
	return errors.Is(r.Err, context.Canceled) || errors.Is(r.Err, context.DeadlineExceeded)
}

// errorText is the turn's error as postGeneration's input names it.
func errorText(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "cancelled"
	}
	return err.Error()
}

func maxStepsError(n int) error {
	return fmt.Errorf("%w (%d): the model was still calling tools; the turn stopped", ErrMaxSteps, n)
}
