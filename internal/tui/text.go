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
	return strings.Split(ansi.Wrap(s, width, ""), "\n")
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
