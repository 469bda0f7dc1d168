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
	// Run executes the call with input (the arguments, possibly replaced by a
	// preToolCall hook) and returns what the model reads. A failure is an
	// output too ("error: …"), so the model can react to it.
	Run(ctx context.Context, input json.RawMessage) string
}

// TurnTool is a Tool that needs the turn it runs in: ask_agent streams the
// asked agent's answer to the display and can send the conversation.
type TurnTool interface {
	Tool
	RunInTurn(ctx context.Context, input json.RawMessage, turn Turn) string
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
	// Consent is the agent's way of asking a person, for what the tool
	// starts in turn (an asked agent's consent questions).
	Consent Consent
	// SetSummary gives the call a summary for front ends that title tool
	// calls (the window, the editor): it ends up in the ToolEnd event.
	SetSummary func(string)
	// Twin is the call's rank (from 1), in the model's reply, among the
	// calls of the same tool with the same summary — two ask_agent calls to
	// one agent, which run at the same time; 0 when the call has no twin.
	// What the call shows can so be told apart from its twins'.
	Twin int
	// Denied says that what the tool was to do was refused by a hook of
	// its own (preAsk): the call counts as not run, and postToolCall, which
	// runs after each call that ran, does not run. The tool also shows
	// ToolDenied.
	Denied func()
}
