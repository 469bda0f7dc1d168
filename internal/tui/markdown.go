package tui

import (
	"regexp"
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	gstyles "charm.land/glamour/v2/styles"
)

// markdown renders complete answers with Glamour. An answer streams as
// plain text (half-written Markdown renders badly and re-rendering the whole
// answer on every piece would be slow); once it is complete it is drawn as
// Markdown. Renderers depend on the width, so they are kept per width.
type markdown struct {
	dark      bool
	renderers map[int]*glamour.TermRenderer
}

func newMarkdown() *markdown {
	return &markdown{dark: true, renderers: map[int]*glamour.TermRenderer{}}
}

// setDark picks the style for the terminal's background.
func (m *markdown) setDark(dark bool) {
	if m.dark != dark {
		m.dark = dark
		clear(m.renderers)
	}
}

// render returns text as Markdown lines of at most width cells; nil when
// Glamour fails (the caller then shows the text as it is).
func (m *markdown) render(text string, width int) []string {
	r := m.renderers[width]
	if r == nil {
		var err error
		r, err = glamour.NewTermRenderer(glamour.WithStyles(m.style()), glamour.WithWordWrap(width))
		if err != nil {
			return nil
		}
		m.renderers[width] = r
	}
	out, err := r.Render(text)
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.Trim(out, "\n"), "\n")
	for i, l := range lines {
		lines[i] = fit(trimPadding(l), width)
	}
	return lines
}

// style is Glamour's dark or light style without the document's margin and
// surrounding blank lines, so a rendered answer starts where its streamed
// text was.
func (m *markdown) style() gansi.StyleConfig {
	s := gstyles.DarkStyleConfig
	if !m.dark {
		s = gstyles.LightStyleConfig
	}
	zero := uint(0)
	s.Document.Margin = &zero
	s.Document.BlockPrefix, s.Document.BlockSuffix = "", ""
	return s
}

// padding is what Glamour writes after a line's text: spaces up to the
// wrap width, between style codes.
var padding = regexp.MustCompile(`(?:\x1b\[[0-9;:]*m| )+$`)

// trimPadding drops a line's padding (a copied answer should not end in
// spaces), keeping its styles closed.
func trimPadding(l string) string {
	return padding.ReplaceAllStringFunc(l, func(tail string) string {
		if strings.Contains(tail, "\x1b") {
			return "\x1b[m"
		}
		return ""
	})
}
