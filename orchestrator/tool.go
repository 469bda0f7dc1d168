package orchestrator

import (
	"context"
	"encoding/json"

	"mm/internal/model"
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
