package agentproc

// The domain's values as the child protocol carries them: one pair of
// functions (to the wire, from the wire) per type, so that a status is
// mapped in one place whichever side sends it.

import (
	"encoding/json"

	"github.com/mm-agent/mm/agentproc/agentpb"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// toEvent is what a child shows, as it crosses to the parent.
func toEvent(ev orchestrator.Event) *agentpb.Event {
	return &agentpb.Event{
		Kind: int32(ev.Kind), Text: ev.Text, Tool: ev.Call.Tool, Summary: ev.Call.Summary,
		Reason: ev.Reason, Output: ev.Output, Path: ev.Agent, CallId: ev.Call.ID,
		Input: ev.Call.Input, Status: toToolStatus(ev.Status),
	}
}

// fromEvent is an event the child showed, as the parent shows it.
func fromEvent(e *agentpb.Event) orchestrator.Event {
	ev := orchestrator.Event{
		Kind: orchestrator.EventKind(e.Kind), Text: e.Text, Reason: e.Reason,
		Output: e.Output, Agent: orchestrator.Path(e.Path), Status: fromToolStatus(e.Status),
		Call: orchestrator.Call{ID: e.CallId, Tool: e.Tool, Summary: e.Summary},
	}
	if len(e.Input) > 0 {
		ev.Call.Input = json.RawMessage(e.Input)
	}
	return ev
}

// mapping pairs each value of the domain with its value on the wire; a
// value either side does not know (a newer peer) maps to the failure.
type mapping[D, W comparable] struct {
	pairs   []pair[D, W]
	dFailed D
	wFailed W
}

type pair[D, W comparable] struct {
	d D
	w W
}

func (m mapping[D, W]) toWire(d D) W {
	for _, p := range m.pairs {
		if p.d == d {
			return p.w
		}
	}
	return m.wFailed
}

func (m mapping[D, W]) fromWire(w W) D {
	for _, p := range m.pairs {
		if p.w == w {
			return p.d
		}
	}
	return m.dFailed
}

// toolStatuses maps each tool call status to its wire value.
var toolStatuses = mapping[orchestrator.Status, agentpb.ToolStatus]{
	pairs: []pair[orchestrator.Status, agentpb.ToolStatus]{
		{orchestrator.OK, agentpb.ToolStatus_OK},
		{orchestrator.Failed, agentpb.ToolStatus_FAILED},
		{orchestrator.Denied, agentpb.ToolStatus_DENIED},
		{orchestrator.NoOneToAsk, agentpb.ToolStatus_NO_ONE_TO_ASK},
		{orchestrator.Cancelled, agentpb.ToolStatus_CANCELLED},
	},
	dFailed: orchestrator.Failed, wFailed: agentpb.ToolStatus_FAILED,
}

func toToolStatus(s orchestrator.Status) agentpb.ToolStatus   { return toolStatuses.toWire(s) }
func fromToolStatus(w agentpb.ToolStatus) orchestrator.Status { return toolStatuses.fromWire(w) }

// outcomes maps each relay status to its wire value.
var outcomes = mapping[relay.Status, agentpb.Outcome_Status]{
	pairs: []pair[relay.Status, agentpb.Outcome_Status]{
		{relay.Answered, agentpb.Outcome_ANSWERED},
		{relay.Failed, agentpb.Outcome_FAILED},
		{relay.Cancelled, agentpb.Outcome_CANCELLED},
		{relay.MaxSteps, agentpb.Outcome_MAX_STEPS},
		{relay.CutOff, agentpb.Outcome_CUT_OFF},
	},
	dFailed: relay.Failed, wFailed: agentpb.Outcome_FAILED,
}

// toOutcome is how an asked agent's turn ended, as the child sends it.
func toOutcome(r relay.AskResponse) *agentpb.Outcome {
	return &agentpb.Outcome{Status: outcomes.toWire(r.Status), Answer: r.Answer, Error: r.Error, CutOff: r.CutOff}
}

// fromOutcome is the child's Outcome as the relay types it; a status this
// side does not know (a newer child) is a failure.
func fromOutcome(o *agentpb.Outcome) relay.AskResponse {
	return relay.AskResponse{Status: outcomes.fromWire(o.Status), Answer: o.Answer, Error: o.Error, CutOff: o.CutOff}
}
