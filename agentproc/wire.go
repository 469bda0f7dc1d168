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

// toolStatuses pairs each tool call status with its wire value.
var toolStatuses = []struct {
	status orchestrator.Status
	wire   agentpb.ToolStatus
}{
	{orchestrator.OK, agentpb.ToolStatus_OK},
	{orchestrator.Failed, agentpb.ToolStatus_FAILED},
	{orchestrator.Denied, agentpb.ToolStatus_DENIED},
	{orchestrator.NoOneToAsk, agentpb.ToolStatus_NO_ONE_TO_ASK},
	{orchestrator.Cancelled, agentpb.ToolStatus_CANCELLED},
}

func toToolStatus(s orchestrator.Status) agentpb.ToolStatus {
	for _, p := range toolStatuses {
		if p.status == s {
			return p.wire
		}
	}
	return agentpb.ToolStatus_FAILED
}

func fromToolStatus(w agentpb.ToolStatus) orchestrator.Status {
	for _, p := range toolStatuses {
		if p.wire == w {
			return p.status
		}
	}
	return orchestrator.Failed
}

// outcomes pairs each relay status with its wire value.
var outcomes = []struct {
	status relay.Status
	wire   agentpb.Outcome_Status
}{
	{relay.Answered, agentpb.Outcome_ANSWERED},
	{relay.Failed, agentpb.Outcome_FAILED},
	{relay.Cancelled, agentpb.Outcome_CANCELLED},
	{relay.MaxSteps, agentpb.Outcome_MAX_STEPS},
	{relay.CutOff, agentpb.Outcome_CUT_OFF},
}

// toOutcome is how an asked agent's turn ended, as the child sends it.
func toOutcome(r relay.AskResponse) *agentpb.Outcome {
	o := &agentpb.Outcome{Answer: r.Answer, Error: r.Error, CutOff: r.CutOff, Status: agentpb.Outcome_FAILED}
	for _, p := range outcomes {
		if p.status == r.Status {
			o.Status = p.wire
		}
	}
	return o
}

// fromOutcome is the child's Outcome as the relay types it; a status this
// side does not know (a newer child) is a failure.
func fromOutcome(o *agentpb.Outcome) relay.AskResponse {
	r := relay.AskResponse{Status: relay.Failed, Answer: o.Answer, Error: o.Error, CutOff: o.CutOff}
	for _, p := range outcomes {
		if p.wire == o.Status {
			r.Status = p.status
		}
	}
	return r
}
