package tui

import (
	"context"
	"fmt"

	"github.com/mm-agent/mm/internal/calls"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/mm-agent/mm/orchestrator"
)

// consent puts the orchestrator's consent questions — this agent's and
// those of the agents it asks — to the user in a dialog of the window.
// Allow runs on a turn's goroutine: it hands the question to the program
// and waits for the answer, the end of the call's context, or the end of
// the window.
type consent struct {
	send func(tea.Msg)
	done <-chan struct{} // closed when the window is gone
}

// consentReq is one question waiting in the dialog. answer has room for
// the one reply, so the window never waits on a turn.
type consentReq struct {
	call   orchestrator.Call
	answer chan bool
}

// consentAskMsg brings a question to the window; consentGoneMsg takes it
// back when its call's context ended first (the turn was cancelled).
type (
	consentAskMsg  struct{ req *consentReq }
	consentGoneMsg struct{ req *consentReq }
)

func (c *consent) Allow(ctx context.Context, call orchestrator.Call) (bool, error) {
	req := &consentReq{call: call, answer: make(chan bool, 1)}
	c.send(consentAskMsg{req})
	select {
	case ok := <-req.answer:
		return ok, nil
	case <-ctx.Done():
		c.send(consentGoneMsg{req})
		return false, ctx.Err()
	case <-c.done:
		return false, orchestrator.ErrNoOneToAsk
	}
}

// dialog draws the first waiting question, width cells wide.
func dialog(st styles, reqs []*consentReq, width int) []string {
	if len(reqs) == 0 {
		return nil
	}
	what := clean(calls.ConsentTitle(reqs[0].call))
	text := "Allow " + what + "?\n" +
		st.key.Render("y") + " allows · " + st.key.Render("n") + " or " + st.key.Render("Esc") + " refuses"
	if n := len(reqs) - 1; n > 0 {
		text += fmt.Sprintf(" · %d more waiting", n)
	}
	inner := max(width-st.dialog.GetHorizontalFrameSize(), 8)
	box := st.dialog.Width(width).Render(lipgloss.Wrap(text, inner, ""))
	return splitLines(box)
}
