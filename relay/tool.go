package relay

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/mm-agent/mm/internal/model"
	"github.com/mm-agent/mm/orchestrator"
)

// ToolName is the relay tool the model gets when mmConfigs is not empty.
const ToolName = "ask_agent"

// Tool is ask_agent: the model's way to relay a question (via: tool).
type Tool struct {
	Relay *Relay
}

var _ orchestrator.AskTool = (*Tool)(nil)

// AsksAgents makes ask_agent an orchestrator.AskTool: a reply's calls of
// it are bounded by maxParallelAsks, not by the other tools' bound.
func (t *Tool) AsksAgents() {}

// Def lists the agents the model may ask in the description.
func (t *Tool) Def() model.ToolDef {
	names := make([]string, 0, len(t.Relay.Agents))
	for n := range t.Relay.Agents {
		names = append(names, n)
	}
	sort.Strings(names)
	return model.ToolDef{
		Name: ToolName,
		Description: "Ask another agent a question and get its answer. Each agent has its own model, tools and rules. " +
			"Agents you can ask: " + strings.Join(names, ", ") + ". Set withContext to send this conversation along with the question.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"agent":{"type":"string","description":"the agent to ask: one of ` + strings.Join(names, ", ") + `"},` +
			`"question":{"type":"string","description":"the question, complete in itself"},` +
			`"withContext":{"type":"boolean","description":"also send the conversation so far"}},` +
			`"required":["agent","question"]}`),
	}
}

// Run relays outside a turn (no display, no conversation).
func (t *Tool) Run(ctx context.Context, input json.RawMessage) orchestrator.Result {
	return t.RunInTurn(ctx, input, orchestrator.Turn{Show: func(orchestrator.Event) {}})
}

// RunInTurn relays the call's question, streaming the asked agent's answer
// to the turn's display; its output is what the asking model reads, its
// status and summary how the relay went.
func (t *Tool) RunInTurn(ctx context.Context, input json.RawMessage, turn orchestrator.Turn) orchestrator.Result {
	var args struct {
		Agent       string `json:"agent"`
		Question    string `json:"question"`
		WithContext bool   `json:"withContext"`
	}
	if err := json.Unmarshal(input, &args); err != nil {
		return orchestrator.Failure("invalid arguments: " + err.Error())
	}
	if args.Agent == "" {
		return orchestrator.Failure(`missing "agent"`)
	}
	res := t.Relay.Ask(ctx, Request{
		Agent: args.Agent, Question: args.Question, WithContext: args.WithContext,
		Transcript: turn.Transcript, Via: ViaTool, Show: turn.Show, Consent: turn.Consent,
		Twin: turn.Twin,
	})
	if res.Denied {
		// Denied by preAsk: the call did not run (⚙ does not count it), so
		// postToolCall, which "runs after each tool call that ran", does not.
		return orchestrator.Result{Output: DeniedOutput(res.Reason), Status: orchestrator.Denied, Reason: res.Reason}
	}
	out := orchestrator.Result{Output: res.Answer, Summary: Summary(args.Agent, res)}
	switch {
	case res.Status == Cancelled:
		out.Output, out.Status = orchestrator.CancelledOutput, orchestrator.Cancelled
	case res.Status == CutOff:
		// The answer and its marker: an answer, said to be incomplete.
	case res.Err != nil:
		out.Output, out.Status = orchestrator.ErrorPrefix+res.Err.Error(), orchestrator.Failed
	}
	return out
}
