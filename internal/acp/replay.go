package acp

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/mm-agent/mm/internal/calls"

	"github.com/coder/acp-go-sdk"

	"github.com/mm-agent/mm/internal/model"
	"github.com/mm-agent/mm/internal/sessionfile"
	"github.com/mm-agent/mm/orchestrator"
)

// replay is the conversation of a loaded session as session/update
// notifications: user messages as user_message_chunk, the assistant's text
// as agent_message_chunk, and each tool call as a completed tool call. It
// is the history as the model reads it (a stopped prompt as its marker, a
// compressed past as its summary); hook runs and notices were never part
// of it and are not replayed. A tool call shows what the editor showed
// when it ran, as shown (kept with the history, message by message) has
// it: "what was shown never changes" — not the output with postToolCall's
// context after it, nor an asked agent's answer as postAsk replaced it.
// With nothing kept (older session files), it shows the output the model
// read.
func replay(history []model.Message, shown []*sessionfile.Shown, dir string) []acp.SessionUpdate {
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
				j := toolMessage(history, i, c.ID)
				what := replayed(c, "")
				if j >= 0 {
					what = replayed(c, history[j].Content)
					if j < len(shown) && shown[j] != nil {
						what = *shown[j]
					}
				}
				out = append(out, replayCall(c, what, i, dir))
			}
		}
	}
	return out
}

// replayed is what the history alone lets the editor show of a call
// whose output the model read: failed, and titled as denied, when the
// output says so, as it was shown.
func replayed(c model.ToolCall, output string) sessionfile.Shown {
	call := orchestrator.Call{Tool: c.Function.Name, Summary: orchestrator.Summary(callInput(c))}
	shown := sessionfile.Shown{Title: calls.Title(call), Failed: failedInHistory(output), Content: []string{output}}
	if strings.HasPrefix(output, "[denied by a hook") || strings.HasPrefix(output, "[ask denied by a hook") {
		shown.Title, shown.Failed = calls.DeniedTitle(call), true
	}
	return shown
}

// failedInHistory is what the history's text alone tells of a call: its
// output reads as a failure ("error: …", as every mm tool reports one) or
// a refusal. A session file keeps text, not statuses: this is the guess
// replay makes for a call the file kept no "shown" record of (files
// written before mm kept them). A live call is shown by its status, and
// where that and this guess differ, the session file keeps what was shown
// (shownStore), so a replay never depends on the guess being right.
func failedInHistory(output string) bool {
	return strings.HasPrefix(output, orchestrator.ErrorPrefix) ||
		output == orchestrator.NoConsent || output == orchestrator.UserRefused
}

func callInput(c model.ToolCall) json.RawMessage {
	input := json.RawMessage(c.Function.Arguments)
	if !json.Valid(input) {
		input = json.RawMessage("{}")
	}
	return input
}

// replayCall is a tool call of the history as an ended tool call showing
// what; its id is new (the model's ids restart every turn) and stable
// across loads.
func replayCall(c model.ToolCall, what sessionfile.Shown, at int, dir string) acp.SessionUpdate {
	input := callInput(c)
	call := orchestrator.Call{ID: c.ID, Tool: c.Function.Name, Input: input, Summary: orchestrator.Summary(input)}
	status := acp.ToolCallStatusCompleted
	if what.Failed {
		status = acp.ToolCallStatusFailed
	}
	content := make([]acp.ToolCallContent, len(what.Content))
	for i, t := range what.Content {
		content[i] = textContent(t)
	}
	opts := []acp.ToolCallStartOpt{
		acp.WithStartKind(kindOf(call.Tool)),
		acp.WithStartStatus(status),
		acp.WithStartRawInput(rawInput(input)),
		acp.WithStartContent(content),
	}
	if l := locations(call, dir); l != nil {
		opts = append(opts, func(tc *acp.SessionUpdateToolCall) { tc.Locations = l })
	}
	return acp.StartToolCall(acp.ToolCallId("h"+strconv.Itoa(at)+"/"+c.ID), what.Title, opts...)
}

// toolMessage is the index of the output of call id among the tool
// messages that follow the assistant message at, -1 when there is none.
func toolMessage(history []model.Message, at int, id string) int {
	for j := at + 1; j < len(history) && history[j].Role == "tool"; j++ {
		if history[j].ToolCallID == id {
			return j
		}
	}
	return -1
}

// shownStore is the session's Store in the editor: the session file, with
// what the editor showed of each tool call of a turn where the history
// would not show it again (sessionfile's "shown" records), so that
// session/load replays what the user saw. shown goes with the session's
// history, message by message.
type shownStore struct {
	file  *sessionfile.File
	s     *session
	shown []*sessionfile.Shown
}

// keepShown makes s keep what it shows with its session file, when it has
// one.
func keepShown(s *session) {
	f, ok := s.mm.Store.(*sessionfile.File)
	if !ok {
		return
	}
	st := &shownStore{file: f, s: s, shown: f.Shown()}
	if len(st.shown) != len(s.mm.History) {
		st.shown = make([]*sessionfile.Shown, len(s.mm.History))
	}
	s.mm.Store = st
}

// shownHistory is what replay needs of s besides its history.
func shownHistory(s *session) []*sessionfile.Shown {
	if st, ok := s.mm.Store.(*shownStore); ok {
		return st.shown
	}
	return nil
}

func (st *shownStore) AppendTurn(msgs []model.Message) error {
	shown := make([]*sessionfile.Shown, len(msgs))
	if v := st.s.view(); v != nil {
		for i, m := range msgs {
			if m.Role != "tool" {
				continue
			}
			live := v.shownOf(m.ToolCallID)
			call, ok := callOf(msgs[:i], m.ToolCallID)
			if live != nil && ok && !reflect.DeepEqual(*live, replayed(call, m.Content)) {
				shown[i] = live
			}
		}
	}
	st.shown = append(st.shown, shown...)
	return st.file.AppendTurnShown(msgs, shown)
}

func (st *shownStore) AppendCompaction(summary string, kept int) error {
	kept = min(max(kept, 0), len(st.shown))
	st.shown = append([]*sessionfile.Shown{nil, nil}, st.shown[len(st.shown)-kept:]...)
	return st.file.AppendCompaction(summary, kept)
}

// callOf is the tool call id of the last assistant message of msgs.
func callOf(msgs []model.Message, id string) (model.ToolCall, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "assistant" {
			continue
		}
		for _, c := range msgs[i].ToolCalls {
			if c.ID == id {
				return c, true
			}
		}
		break
	}
	return model.ToolCall{}, false
}
