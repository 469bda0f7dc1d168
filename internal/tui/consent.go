package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/mm-agent/mm/internal/calls"
	"github.com/mm-agent/mm/internal/filechange"
	"github.com/mm-agent/mm/internal/termtext"

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
	// change, when set, is what a call will change in a file (a
	// write_file's or edit_file's): the dialog shows it.
	change func(orchestrator.Call) *filechange.Change
}

// consentReq is one question waiting in the dialog. answer has room for
// the one reply, so the window never waits on a turn.
type consentReq struct {
	call   orchestrator.Call
	answer chan bool
	// preview is what the call will change (a diff), "" for none.
	preview string
}

// consentAskMsg brings a question to the window; consentGoneMsg takes it
// back when its call's context ended first (the turn was cancelled).
type (
	consentAskMsg  struct{ req *consentReq }
	consentGoneMsg struct{ req *consentReq }
)

func (c *consent) Allow(ctx context.Context, call orchestrator.Call) (bool, error) {
	req := &consentReq{call: call, answer: make(chan bool, 1)}
	if c.change != nil {
		if ch := c.change(call); ch != nil {
			req.preview = ch.Preview()
		}
	}
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
	text := "Allow " + what + "?\n" + previewLines(reqs[0].preview) +
		st.key.Render("y") + " allows · " + st.key.Render("n") + " or " + st.key.Render("Esc") + " refuses"
	if n := len(reqs) - 1; n > 0 {
		text += fmt.Sprintf(" · %d more waiting", n)
	}
	inner := max(width-st.dialog.GetHorizontalFrameSize(), 8)
	box := st.dialog.Width(width).Render(lipgloss.Wrap(text, inner, ""))
	return splitLines(box)
}

// maxPreview is the most lines of a change the dialog shows: the
// conversation keeps some room.
const maxPreview = 12

// previewLines is a change's preview as the dialog's lines, cut to
// maxPreview lines with a line saying how many more there are.
func previewLines(preview string) string {
	if preview == "" {
		return ""
	}
	// The file's text is the model's: part of the question, its escapes
	// are shown, not drawn, as in the question's title.
	lines := strings.Split(clean(termtext.Visible(preview)), "\n")
	if len(lines) > maxPreview {
		n := len(lines) - maxPreview + 1
		var k int
		if _, err := fmt.Sscanf(lines[len(lines)-1], "… %d more line", &k); err == nil {
			n += k - 1 // the preview's own "… k more lines" (a new file's)
		}
		lines = append(lines[:maxPreview-1], fmt.Sprintf("… %d more lines", n))
	}
	return strings.Join(lines, "\n") + "\n"
}
