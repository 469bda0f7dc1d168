package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// The window, top to bottom:
//
//	the banner (as many lines as it takes)
//	─────
//	the conversation (scrolls; follows the end unless scrolled up)
//	─────
//	the consent dialog, when a tool waits for an answer
//	a status line
//	› the input

// layout sizes the parts for the window and lays the conversation out
// again. It runs after every message, so a resize, a new piece of answer
// or a dialog are all handled the same way: the conversation is laid out
// from its entries for the width it has now.
func (m *model) layout() {
	if m.width == 0 || m.height == 0 {
		return
	}
	m.box = dialog(m.st, m.asks, m.width)
	m.head = m.header()
	fixed := len(m.head) + 1 + len(m.box) + 2
	follow := m.vp.AtBottom()
	m.vp.SetWidth(m.width)
	m.vp.SetHeight(max(m.height-fixed, 1))
	m.vp.SetContentLines(m.tr.lines(m.width))
	if follow {
		m.vp.GotoBottom()
	}
	m.input.SetWidth(max(m.width-lipgloss.Width(m.input.Prompt)-1, 1))
}

// header is the banner and the rule under it; a window too low for it and
// a few lines of conversation goes without. It needs m.box.
func (m *model) header() []string {
	lines := paint(m.st.banner, clean(m.app.Banner), m.width)
	if m.height-len(lines)-1-len(m.box)-3 < 3 {
		return nil
	}
	return append(lines, m.st.rule.Render(strings.Repeat("─", m.width)))
}

// status is the line above the input: what is running and what waits.
func (m *model) status() string {
	var s string
	switch {
	case m.running != nil && m.running.cancelled:
		s = m.spin.View() + " cancelling…"
	case m.running != nil && m.running.thinking:
		s = m.spin.View() + " thinking… · Esc cancels"
	case m.running != nil:
		s = m.spin.View() + " working · Esc cancels"
	default:
		s = m.st.status.Render(idleStatus(m.width))
	}
	if n := len(m.queue); n > 0 {
		s += m.st.status.Render(fmt.Sprintf(" · %d waiting", n))
	}
	return fit(s, m.width)
}

// idleStatus is the status line with no turn running, as much of it as
// fits width: a narrow window drops the least needed parts whole rather
// than cutting a sentence in the middle.
func idleStatus(width int) string {
	for _, s := range []string{
		"Enter sends · /help · Ctrl-C at an empty input quits",
		"Enter sends · /help · Ctrl-C quits",
		"Enter sends · /help",
		"/help",
	} {
		if ansi.StringWidth(s) <= width {
			return s
		}
	}
	return ""
}

func (m *model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.WindowTitle = "mm"
	if m.width == 0 || m.height == 0 {
		return v
	}
	lines := append([]string{}, m.head...)
	lines = append(lines, m.vp.View(), m.st.rule.Render(strings.Repeat("─", m.width)))
	lines = append(lines, m.box...)
	lines = append(lines, m.status())
	inputY := len(m.head) + m.vp.Height() + 1 + len(m.box) + 1
	lines = append(lines, m.input.View())
	v.SetContent(strings.Join(lines, "\n"))
	if c := m.input.Cursor(); c != nil && len(m.box) == 0 {
		c.Y += inputY
		v.Cursor = c
	}
	return v
}
