package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mm-agent/mm/internal/termtext"
)

// clean makes text from a model, a tool, a hook or another process safe to
// draw: escape sequences and control characters would move the cursor or
// change modes behind the renderer's back and garble the window, and
// bidirectional overrides would reorder what the user reads, so they go
// (termtext.Clean, the rule of every front end); tabs become spaces, whose
// width the renderer knows.
func clean(s string) string {
	return strings.ReplaceAll(termtext.Clean(s), "\t", "    ")
}

// wrap cuts s (which may hold SGR styles) into lines of at most width
// cells, at spaces when it can.
func wrap(s string, width int) []string {
	width = max(width, 1)
	var out []string
	for _, p := range strings.Split(s, "\n") {
		out = append(out, hanging(p, width)...)
	}
	return out
}

// hanging wraps one line for width cells; a hook's line ("🪝 …", indented
// or not) continues under its text, not under its emoji, so that one run
// reads as one item among the others.
func hanging(p string, width int) []string {
	lines := strings.Split(ansi.Wrap(p, width, ""), "\n")
	body := strings.TrimLeft(p, " ")
	if len(lines) < 2 || !strings.HasPrefix(body, "🪝 ") {
		return lines
	}
	indent := len(p) - len(body) + ansi.StringWidth("🪝 ")
	if indent > width/2 {
		return lines
	}
	rest := strings.Join(lines[1:], " ")
	pad := strings.Repeat(" ", indent)
	out := lines[:1]
	for _, l := range strings.Split(ansi.Wrap(rest, width-indent, ""), "\n") {
		out = append(out, pad+l)
	}
	return out
}

// fit cuts a line that is still too wide (a long banner, a Markdown table)
// so that the renderer never wraps it on its own.
func fit(line string, width int) string {
	if ansi.StringWidth(line) <= width {
		return line
	}
	return ansi.Truncate(line, max(width, 1), "…")
}

// paint wraps plain text and styles each line on its own, so that a line
// drawn without the ones above it (the conversation scrolls) keeps its
// style and none leaks into the next.
func paint(st lipgloss.Style, text string, width int) []string {
	lines := wrap(text, width)
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return lines
}

func splitLines(s string) []string { return strings.Split(s, "\n") }
