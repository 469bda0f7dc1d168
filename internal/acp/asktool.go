package acp

import (
	"context"
	"encoding/json"

	"github.com/mm-agent/mm/internal/model"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// askTool is ask_agent as the editor shows it. The orchestrator's events
// name the asked agent (Event.Agent) but not the ask_agent call they belong
// to, and two calls of one reply can ask the same agent at once; wrapping
// the tool is how each asked agent's answer, tool calls and consent
// questions reach the right call in the editor. The relay itself — preAsk,
// the asked agent, postAsk — is relay.Tool's, unchanged.
type askTool struct {
	inner *relay.Tool
	s     *session
}

func (t *askTool) Def() model.ToolDef { return t.inner.Def() }

func (t *askTool) Run(ctx context.Context, input json.RawMessage) string {
	return t.inner.Run(ctx, input)
}

// RunInTurn routes what the relay shows: the asked agent's events (and
// the relay's postAsk notice) go to the call's content in the editor; the
// asking agent's own events (preAsk and postAsk runs, a denial) go to the
// turn as usual.
func (t *askTool) RunInTurn(ctx context.Context, input json.RawMessage, turn orchestrator.Turn) string {
	v := t.s.view()
	if v == nil { // not in a prompt of this session: nothing to route to
		return t.inner.RunInTurn(ctx, input, turn)
	}
	parent := v.callID("", "", turn.Call.ID)
	show := turn.Show
	turn.Show = func(ev orchestrator.Event) {
		switch {
		case ev.Agent != "":
			v.asked(parent, ev)
		case ev.Kind == orchestrator.Notice:
			v.notice(parent, ev.Text)
		default:
			show(ev)
		}
	}
	turn.Consent = &consent{s: t.s, parent: parent}
	return t.inner.RunInTurn(ctx, input, turn)
}
