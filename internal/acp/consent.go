package acp

import (
	"context"

	"github.com/mm-agent/mm/internal/calls"
	"github.com/mm-agent/mm/internal/termtext"

	"github.com/coder/acp-go-sdk"

	"github.com/mm-agent/mm/orchestrator"
)

// The answers a consent question offers. "Always" lasts for the session
// and is kept per tool as the question names it (calls.ToolName):
// allowing bash does not allow "expert › bash".
const (
	optOnce   acp.PermissionOptionId = "allow"
	optAlways acp.PermissionOptionId = "allow-always"
	optReject acp.PermissionOptionId = "reject"
)

// consent is orchestrator.Consent for an ACP session: each question is a
// session/request_permission about the tool call the editor already shows.
// parent is "" for the session's own agent, and the ACP id of the
// ask_agent call for the questions of the agent it asked.
type consent struct {
	s      *session
	parent string
}

// Allow asks the editor's user. A refused or cancelled question refuses
// the call ("[denied by the user]"); an editor that cannot be asked is "no
// one to ask", as in -p without a terminal.
func (c *consent) Allow(ctx context.Context, call orchestrator.Call) (bool, error) {
	v := c.s.view()
	if v == nil {
		return false, orchestrator.ErrNoOneToAsk
	}
	id := v.callID(c.parent, call.Agent, call.ID)
	name := termtext.Clean(calls.ToolName(call.Agent, call.Tool))
	c.s.mu.Lock()
	always := c.s.always[name]
	c.s.mu.Unlock()
	if always {
		v.running(id)
		return true, nil
	}
	resp, err := c.s.srv.client().RequestPermission(ctx, acp.RequestPermissionRequest{
		SessionId: acp.SessionId(c.s.id),
		ToolCall: acp.ToolCallUpdate{
			ToolCallId: acp.ToolCallId(id),
			Title:      acp.Ptr(calls.ConsentTitle(call)),
			Kind:       acp.Ptr(kindOf(call.Tool)),
			Status:     acp.Ptr(acp.ToolCallStatusPending),
			RawInput:   rawInput(call.Input),
			Content:    c.diff(call),
		},
		Options: []acp.PermissionOption{
			{OptionId: optOnce, Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionId: optAlways, Name: "Always allow " + name + " in this session", Kind: acp.PermissionOptionKindAllowAlways},
			{OptionId: optReject, Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		},
	})
	switch {
	case ctx.Err() != nil:
		return false, ctx.Err()
	case err != nil:
		c.s.srv.log.line("mm: session/request_permission: " + err.Error())
		return false, orchestrator.ErrNoOneToAsk
	case resp.Outcome.Selected == nil: // the editor cancelled the question
		return false, nil
	}
	switch resp.Outcome.Selected.OptionId {
	case optAlways:
		c.s.mu.Lock()
		c.s.always[name] = true
		c.s.mu.Unlock()
		fallthrough
	case optOnce:
		v.running(id)
		return true, nil
	}
	return false, nil
}

// diff is the ACP diff content of a write_file or edit_file call, which
// editors draw as a diff (path, the file's text as it is — none for a new
// file — and as it will be); nil for another call.
func (c *consent) diff(call orchestrator.Call) []acp.ToolCallContent {
	here := c.s.here
	if here == nil {
		return nil
	}
	ch := here.FileChange(call)
	if ch == nil {
		return nil
	}
	if !ch.Exists {
		return []acp.ToolCallContent{acp.ToolDiffContent(ch.Abs, ch.New)}
	}
	return []acp.ToolCallContent{acp.ToolDiffContent(ch.Abs, ch.New, ch.Old)}
}
