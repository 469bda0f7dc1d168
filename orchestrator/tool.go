package orchestrator

import (
	"context"
	"encoding/json"

	"github.com/mm-agent/mm/internal/model"
)

// Tool is something the model can call. Built-in tools, MCP tools and
// ask_agent all sit behind this interface, so the tool middleware (hooks,
// consent) wraps every one of them the same way.
type Tool interface {
	// Def is what the model is offered: name, description, JSON Schema.
	Def() model.ToolDef
	// Run executes the call with input (the arguments, possibly replaced by
	// a preToolCall hook). A failure is a result too — its output is what
	// the model reads ("error: …"), its status what front ends show — so
	// the model can react to it.
	Run(ctx context.Context, input json.RawMessage) Result
}

// Status is how a tool call ended. Front ends show it (a failed call, a
// refused one); nothing reads it back from the output's text.
type Status int

// The statuses of a tool call.
const (
	// OK: the tool did its work. Its output may still tell of a failure
	// in its own words (a command's non-zero exit status is bash's output).
	OK Status = iota
	// Failed: the tool could not do its work; the output says why
	// ("error: …").
	Failed
	// Denied: a hook denied the call (preToolCall, or preAsk for
	// ask_agent), or the user refused it; it did not run.
	Denied
	// NoOneToAsk: the call needed consent and there was no one to ask
	// (NoConsent); it did not run.
	NoOneToAsk
	// Cancelled: the turn was cancelled before or while the call ran.
	Cancelled
)

var statusNames = [...]string{OK: "ok", Failed: "failed", Denied: "denied", NoOneToAsk: "noOneToAsk", Cancelled: "cancelled"}

// String is the status's name, as it crosses the wire to an asking mm.
func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "failed"
}

// ParseStatus reads a status's name back; ok is false for anything else.
func ParseStatus(name string) (s Status, ok bool) {
	for i, n := range statusNames {
		if n == name {
			return Status(i), true
		}
	}
	return Failed, false
}

// Refused reports whether the call was refused and did not run (a hook, the
// user, or no one to ask).
func (s Status) Refused() bool { return s == Denied || s == NoOneToAsk }

// Result is what a tool call produced.
type Result struct {
	// Output is what the model reads.
	Output string
	// Status is how the call ended.
	Status Status
	// Summary, for front ends that title tool calls (the window, the
	// editor), says how the call went in a few words: ask_agent's
	// "expert answered; a hook replaced the answer (12 characters)".
	Summary string
	// Reason is why a hook of the tool's own denied what it was to do
	// (Status Denied: preAsk for ask_agent); the call counts as not run.
	Reason string
}

// ErrorPrefix starts the output of every failure the model reads, as the
// contract says ("A tool's failure is its output (error: …)").
const ErrorPrefix = "error: "

// CancelledOutput is what the model reads of a call cancelled with its
// turn (the history keeps it).
const CancelledOutput = "error: cancelled"

// Failure is the result of a call that could not do its work: the model
// reads "error: " and msg.
func Failure(msg string) Result { return Result{Output: ErrorPrefix + msg, Status: Failed} }

// CancelledResult is the result of a call cancelled with its turn; what it
// wrote until then, if anything, follows on the next lines.
func CancelledResult(partial string) Result {
	if partial == "" {
		return Result{Output: CancelledOutput, Status: Cancelled}
	}
	return Result{Output: CancelledOutput + "\n" + partial, Status: Cancelled}
}

// AskTool is a Tool whose calls ask other agents (relay's ask_agent). A
// reply's calls of it run Agent.ParallelAsks at once, apart from the other
// tools' Agent.Parallel: an asked agent costs a child process or a remote
// backend's model, a file read nothing of the kind, and a model fanning
// out to many agents must hold up neither the reply's other calls nor be
// held up by them.
type AskTool interface {
	Tool
	// AsksAgents marks the tool; it does nothing.
	AsksAgents()
}

// TurnTool is a Tool that needs the turn it runs in: ask_agent streams the
// asked agent's answer to the display and can send the conversation.
type TurnTool interface {
	Tool
	RunInTurn(ctx context.Context, input json.RawMessage, turn Turn) Result
}

// Turn is what a TurnTool may use of the turn that called it.
type Turn struct {
	// Show displays an event (safe for concurrent use).
	Show func(Event)
	// Transcript is the conversation so far, this turn's question and the
	// model's text before the call included, as text for another agent.
	Transcript string
	// Call is the tool call being run.
	Call Call
	// Consent is the turn caller's way of asking a person, for what the tool
	// starts in turn (an asked agent's consent questions).
	Consent Consent
	// Twin is the call's rank (from 1), in the model's reply, among the
	// calls of the same tool with the same summary — two ask_agent calls to
	// one agent, which run at the same time; 0 when the call has no twin.
	// What the call shows can so be told apart from its twins'.
	Twin int
}
