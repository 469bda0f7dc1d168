package acp

import (
	"context"
	"encoding/json"

	"github.com/mm-agent/mm/internal/model"
	"github.com/mm-agent/mm/orchestrator"
)

// routedTool is a tool that shows things during its call (ask_agent: the
// asked agent's answer, tool calls and consent questions), as the editor
// shows it. The orchestrator's events name the asked agent they come from
// (Event.Agent) but not the call they belong to, and two calls of one
// reply can ask the same agent at once; wrapping the tool is how what it
// shows reaches the right call in the editor. What the tool does is its
// own, unchanged.
type routedTool struct {
	inner orchestrator.TurnTool
	s     *session
}

func (t *routedTool) Def() model.ToolDef { return t.inner.Def() }

func (t *routedTool) Run(ctx context.Context, input json.RawMessage) orchestrator.Result {
	return t.inner.Run(ctx, input)
}

// RunInTurn routes what the tool shows: an asked agent's events (and the
// relay's postAsk notice) go to the call's content in the editor; the
// asking agent's own events (preAsk and postAsk runs, a denial) go to the
// turn as usual.
func (t *routedTool) RunInTurn(ctx context.Context, input json.RawMessage, turn orchestrator.Turn) orchestrator.Result {
	v := t.s.view()
	if v == nil { // not in a prompt of this session: nothing to route to
		return t.inner.RunInTurn(ctx, input, turn)
	}
	parent := v.callID("", nil, turn.Call.ID)
	turn.Show = v.relayed(parent, turn.Show)
	turn.Consent = &consent{s: t.s, parent: parent}
	return t.inner.RunInTurn(ctx, input, turn)
}

// routed is tools with each that shows things during its call wrapped for
// session s (routedTool).
func routed(tools []orchestrator.Tool, s *session) []orchestrator.Tool {
	out := make([]orchestrator.Tool, len(tools))
	for i, t := range tools {
		if tt, ok := t.(orchestrator.TurnTool); ok {
			t = &routedTool{inner: tt, s: s}
		}
		out[i] = t
	}
	return out
}
