package remote

import (
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// Conversational agents — Google's Gemini CLI A2A server, ADK-style
// agents — send their answer as the text of working status messages, piece
// by piece, and no artifact; the Gemini CLI's ends its turn in a final
// input-required with no question, waiting for the next message of the
// conversation. Other agents send a working status message now and then
// to say what they are doing ("thinking"), and their answer as artifacts.
//
// The two cannot be told apart by the first message. So status text goes
// into the answer as a piece of its own (saidID) and one piece is held
// back: a second piece in a row says the agent streams its answer that way
// (conversational: everything is shown as text as it comes, as a local
// child's); anything else after it — an artifact, a final message, a
// question, a task that fails — says it was progress, shown as a notice
// as before. When the task ends
// with no artifact, the text said is the answer.

// saidID is the answer piece of the status text; no artifact's, since
// artifacts never reach it (the first one takes the piece over or drops it).
const saidID = "\x00said"

// saidState is what an ask did with status text.
type saidState struct {
	held string // a piece not shown yet: progress or answer, not known yet
	// streaming: two pieces came in a row: the agent streams its answer in
	// status messages, shown as text as it comes.
	streaming bool
	// artifacts: an artifact came: it is the answer, status text progress.
	artifacts bool
	// waiting: the last status message with parts held no text but a tool
	// call waiting for approval (the Gemini CLI's tool-call-confirmation):
	// a bare input-required then waits on that, not on the conversation.
	waiting bool
	// failure: the reason a status gave in its metadata's "error" (the
	// Gemini CLI's way to report a model error on a working status): the
	// relay fails with it when the turn ends.
	failure string
}

// said applies the text of a working status message that is not an mm
// peer's event: s its text, m the message, meta what its metadata and the
// status event's say.
func (t *askTask) said(s string, m *a2a.Message, meta func(string) any) {
	if m != nil && len(m.Parts) > 0 {
		t.saidText.waiting = s == "" && awaitsApproval(m, meta("coderAgent"))
	}
	if e, ok := meta("error").(string); ok && strings.TrimSpace(clean(e)) != "" {
		// Its text ("Agent Error, …") is no answer.
		t.saidText.failure = oneLine(clean(e), 300)
		return
	}
	if t.saidText.artifacts {
		if s := strings.TrimSpace(s); s != "" {
			t.show(orchestrator.Event{Kind: orchestrator.Notice, Text: s})
		}
		return
	}
	if s == "" {
		return
	}
	if t.answer.n+len(s) > maxAnswer {
		t.tooLarge = true
		return
	}
	more := t.answer.put(saidID, s, true)
	switch {
	case t.saidText.streaming:
	case t.saidText.held == "":
		t.saidText.held = more
		return
	default:
		t.saidText.streaming = true
		more = t.saidText.held + more
		t.saidText.held = ""
	}
	if more != "" {
		t.show(orchestrator.Event{Kind: orchestrator.Text, Text: more})
	}
}

// awaitsApproval reports whether a status message says a tool call waits
// for the user's approval: the Gemini CLI says so in its metadata
// (coderAgent.kind tool-call-confirmation) and in the call's data part
// (status awaiting_approval). Any other data — a finished call's update, a
// thought — waits on nothing.
func awaitsApproval(m *a2a.Message, coder any) bool {
	if c, ok := coder.(map[string]any); ok && c["kind"] == "tool-call-confirmation" {
		return true
	}
	for _, p := range m.Parts {
		var data map[string]any
		switch d := p.(type) {
		case a2a.DataPart:
			data = d.Data
		case *a2a.DataPart:
			data = d.Data
		}
		if data["status"] == "awaiting_approval" {
			return true
		}
	}
	return false
}

// onlyText reports whether m holds nothing but text (or nothing at all): a
// message with a data or file part — a form, a file to fill — asks
// something even when its text is blank.
func onlyText(m *a2a.Message) bool {
	if m == nil {
		return true
	}
	for _, p := range m.Parts {
		switch p.(type) {
		case a2a.TextPart, *a2a.TextPart:
		default:
			return false
		}
	}
	return true
}

// failure is the response of a turn whose status said it failed (its
// metadata's "error"), whatever state it ended in; ok is false when none did.
func (t *askTask) failure() (relay.AskResponse, bool) {
	if t.saidText.failure == "" {
		return relay.AskResponse{}, false
	}
	t.settle(false)
	return t.failed(fmt.Sprintf("the agent at %s failed: %s", t.agent.URL, t.saidText.failure)), true
}

// settle shows the piece held back: as answer text when the turn ended on
// it, else as the progress notice it was.
func (t *askTask) settle(asAnswer bool) {
	held := t.saidText.held
	if held == "" {
		return
	}
	t.saidText.held = ""
	if asAnswer {
		t.show(orchestrator.Event{Kind: orchestrator.Text, Text: held})
		return
	}
	if s := strings.TrimSpace(held); s != "" {
		t.show(orchestrator.Event{Kind: orchestrator.Notice, Text: s})
	}
}

// toArtifacts is called before each artifact's text: the first makes the
// artifacts the answer. Status text shown as text so far is taken over by
// the artifact (replace says its first update replaces it, so that an
// artifact repeating the text streamed — ADK's last one does — is not
// shown twice); text not shown was progress and leaves the answer.
func (t *askTask) toArtifacts(id string) (replace bool) {
	if t.saidText.artifacts {
		return false
	}
	t.saidText.artifacts = true
	t.settle(false)
	if t.saidText.streaming {
		return t.answer.rename(saidID, id)
	}
	t.answer.drop(saidID)
	return false
}

// ended is the response of a turn that ended waiting for input with no
// question (input-required with no text), as the Gemini CLI ends each of
// its turns; ok is false when nothing was said or sent before it, or the
// last status message was no text: then it is a question mm has no answer
// to.
func (t *askTask) ended() (resp relay.AskResponse, ok bool) {
	if resp, ok := t.failure(); ok {
		return resp, true
	}
	if t.answer.n == 0 || t.saidText.waiting {
		return relay.AskResponse{}, false
	}
	t.settle(true)
	return t.answeredResp(), true
}

// completed ends a completed task, msg the text of its final status
// message (or the message an agent answered with instead of a task): the
// answer when no artifact came; then the text said in status messages,
// shown as text, is the start of it (msg replacing it shows what it adds),
// and text held back was progress.
func (t *askTask) completed(msg string) relay.AskResponse {
	if resp, ok := t.failure(); ok {
		// An error said on the way is not undone by a completed state.
		return resp
	}
	switch {
	case t.answered:
	case msg == "":
		t.settle(true)
	case t.saidText.streaming:
		t.text(saidID, msg, false)
	default:
		t.settle(false)
		t.answer.drop(saidID)
		t.text("", msg, false)
	}
	return t.answeredResp()
}

// rename gives the piece of id from the id to; false when there is none.
func (a *answerText) rename(from, to string) bool {
	p := a.byID[from]
	if p == nil {
		return false
	}
	delete(a.byID, from)
	a.byID[to] = p
	return true
}

// drop takes the piece of id out of the answer.
func (a *answerText) drop(id string) {
	p := a.byID[id]
	if p == nil {
		return
	}
	delete(a.byID, id)
	for i, q := range a.pieces {
		if q == p {
			a.pieces = append(a.pieces[:i], a.pieces[i+1:]...)
			break
		}
	}
	a.n -= len(p.String())
}
