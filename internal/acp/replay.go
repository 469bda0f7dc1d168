package acp

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/coder/acp-go-sdk"

	"github.com/mm-agent/mm/internal/model"
	"github.com/mm-agent/mm/orchestrator"
)

// replay is the conversation of a loaded session as session/update
// notifications: user messages as user_message_chunk, the assistant's text
// as agent_message_chunk, and each tool call as a completed tool call with
// its output. It is the history as the model reads it (a stopped prompt
// as its marker, a compressed past as its summary); hook runs and notices
// were never part of it and are not replayed.
func replay(history []model.Message, dir string) []acp.SessionUpdate {
	var out []acp.SessionUpdate
	for i, m := range history {
		switch m.Role {
		case "user":
			if m.Content != "" {
				out = append(out, acp.UpdateUserMessageText(m.Content))
			}
		case "assistant":
			if m.Content != "" {
				out = append(out, acp.UpdateAgentMessageText(m.Content))
			}
			for _, c := range m.ToolCalls {
				out = append(out, replayCall(c, outputOf(history[i+1:], c.ID), i, dir))
			}
		}
	}
	return out
}

// replayCall is a tool call of the history as an ended tool call (failed,
// and titled as denied, when its output says so, as it was shown); its
// id is new (the model's ids restart every turn) and stable across loads.
func replayCall(c model.ToolCall, output string, at int, dir string) acp.SessionUpdate {
	input := json.RawMessage(c.Function.Arguments)
	if !json.Valid(input) {
		input = json.RawMessage("{}")
	}
	call := orchestrator.Call{ID: c.ID, Tool: c.Function.Name, Input: input, Summary: orchestrator.Summary(input)}
	status, name := acp.ToolCallStatusCompleted, title(call.Tool, call.Summary)
	switch {
	case strings.HasPrefix(output, "[denied by a hook"), strings.HasPrefix(output, "[ask denied by a hook"):
		status, name = acp.ToolCallStatusFailed, deniedTitle(call.Tool, call.Summary)
	case failed(output):
		status = acp.ToolCallStatusFailed
	}
	opts := []acp.ToolCallStartOpt{
		acp.WithStartKind(kindOf(call.Tool)),
		acp.WithStartStatus(status),
		acp.WithStartRawInput(rawInput(input)),
		acp.WithStartContent([]acp.ToolCallContent{textContent(output)}),
	}
	if l := locations(call, dir); l != nil {
		opts = append(opts, func(tc *acp.SessionUpdateToolCall) { tc.Locations = l })
	}
	return acp.StartToolCall(acp.ToolCallId("h"+strconv.Itoa(at)+"/"+c.ID), name, opts...)
}

// outputOf is the output of call id among the tool messages that follow
// its assistant message.
func outputOf(after []model.Message, id string) string {
	for _, m := range after {
		if m.Role != "tool" {
			break
		}
		if m.ToolCallID == id {
			return m.Content
		}
	}
	return ""
}
