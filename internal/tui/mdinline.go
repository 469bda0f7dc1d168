package tui

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// mdStyle is the set of looks a piece of Markdown text has.
type mdStyle uint16

const (
	styleBold mdStyle = 1 << iota
	styleItalic
	styleStrike
	styleCode
	styleLink
	styleFaint
	styleHeading
	styleUnderline
)

// mdStyles draws styled pieces, each combination of looks made once. The
// window draws on one goroutine, so the cache needs no lock.
type mdStyles struct{ cache map[mdStyle]lipgloss.Style }

func newMDStyles() mdStyles { return mdStyles{cache: map[mdStyle]lipgloss.Style{}} }

func (s mdStyles) style(st mdStyle) lipgloss.Style {
	if ls, ok := s.cache[st]; ok {
		return ls
	}
	ls := lipgloss.NewStyle()
	if st&(styleBold|styleHeading) != 0 {
		ls = ls.Bold(true)
	}
	if st&styleItalic != 0 {
		ls = ls.Italic(true)
	}
	if st&styleStrike != 0 {
		ls = ls.Strikethrough(true)
	}
	if st&(styleLink|styleUnderline) != 0 {
		ls = ls.Underline(true)
	}
	if st&styleFaint != 0 {
		ls = ls.Faint(true)
	}
	switch {
	case st&styleCode != 0:
		ls = ls.Foreground(lipgloss.Yellow)
	case st&styleLink != 0:
		ls = ls.Foreground(lipgloss.Blue)
	case st&styleHeading != 0:
		ls = ls.Foreground(lipgloss.Magenta)
	}
	s.cache[st] = ls
	return ls
}

func (s mdStyles) render(text string, st mdStyle) string {
	if st == 0 || text == "" {
		return text
	}
	return s.style(st).Render(text)
}

// line draws one line's pieces, each styled on its own so that no style
// leaks into the next line.
func (s mdStyles) line(sp []span) string {
	var b strings.Builder
	for i := 0; i < len(sp); {
		j, text := i+1, sp[i].text
		for j < len(sp) && sp[j].st == sp[i].st {
			text += sp[j].text
			j++
		}
		b.WriteString(s.render(text, sp[i].st))
		i = j
	}
	return b.String()
}

func (s mdStyles) lines(ls [][]span) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = s.line(l)
	}
	return out
}

// span is a piece of text with its looks. A span's text may hold line
// breaks: the model's own, kept.
type span struct {
	text string
	st   mdStyle
}

func withStyle(spans []span, st mdStyle) []span {
	out := make([]span, len(spans))
	for i, sp := range spans {
		out[i] = span{sp.text, sp.st | st}
	}
	return out
}

func spansWidth(spans []span) int {
	w := 0
	for _, sp := range spans {
		w += ansi.StringWidth(sp.text)
	}
	return w
}

// inode is a piece of inline Markdown on its way to spans: text, a code
// span, a link, or a run of *, _ or ~ that may open or close emphasis.
type inode struct {
	text    string
	st      mdStyle // the emphasis around it
	literal bool    // an escaped character: no entity in it
	code    bool
	link    *ilink

	delim       byte // '*', '_' or '~'; 0: not a delimiter run
	n, orig     int  // the run's characters left, and at first
	open, close bool // whether it can open or close emphasis
}

type ilink struct {
	spans []span
	url   string
	auto  bool // <https://…>: the text is the address
}

// parseInline reads a paragraph's inline Markdown (CommonMark's emphasis,
// code spans, links, escapes; GitHub's ~~strikethrough~~) as spans.
func parseInline(s string) []span {
	var nodes []inode
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			nodes = append(nodes, inode{text: text.String()})
			text.Reset()
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			flush()
			nodes = append(nodes, inode{text: s[i+1 : i+2], literal: true})
			i += 2
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n': // a hard line break
			text.WriteByte('\n')
			i += 2
		case c == '`':
			n := runOf(s, i, '`')
			if end := closingTicks(s, i+n, n); end >= 0 {
				flush()
				nodes = append(nodes, inode{text: codeText(s[i+n : end]), code: true})
				i = end + n
			} else {
				text.WriteString(s[i : i+n])
				i += n
			}
		case c == '[' || c == '!' && i+1 < len(s) && s[i+1] == '[':
			start := i
			if c == '!' {
				start++
			}
			label, dest, end, ok := parseLink(s, start)
			if !ok {
				text.WriteByte(c)
				i++
				break
			}
			flush()
			nodes = append(nodes, inode{link: &ilink{spans: parseInline(label), url: dest}})
			i = end
		case c == '<':
			if url, end, ok := autolink(s, i); ok {
				flush()
				nodes = append(nodes, inode{link: &ilink{spans: []span{{text: url}}, url: url, auto: true}})
				i = end
			} else if end, ok := lineBreakTag(s, i); ok {
				text.WriteByte('\n')
				i = end
			} else {
				text.WriteByte(c)
				i++
			}
		case c == '*' || c == '_' || c == '~':
			n := runOf(s, i, c)
			flush()
			open, close := flanking(s, i, i+n, c)
			nodes = append(nodes, inode{text: s[i : i+n], delim: c, n: n, orig: n, open: open, close: close})
			i += n
		default:
			text.WriteByte(c)
			i++
		}
	}
	flush()
	emphasis(nodes)
	return flatten(nodes)
}

func isASCIIPunct(c byte) bool {
	return c < 0x80 && c > ' ' && !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') && c != 0x7f
}

// runOf is the length of the run of c starting at s[i].
func runOf(s string, i int, c byte) int {
	j := i
	for j < len(s) && s[j] == c {
		j++
	}
	return j - i
}

// closingTicks finds, from s[from], a run of exactly n backticks: the end
// of a code span. -1 when there is none.
func closingTicks(s string, from, n int) int {
	for i := from; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		k := runOf(s, i, '`')
		if k == n {
			return i
		}
		i += k
	}
	return -1
}

// codeText is a code span's text as CommonMark reads it: line breaks are
// spaces, and one space is taken off each side when both have one.
func codeText(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) >= 2 && s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "" {
		s = s[1 : len(s)-1]
	}
	return s
}

// parseLink reads [label](destination "title") from s[i] ('['): the
// label, the destination and where the link ends.
func parseLink(s string, i int) (label, dest string, end int, ok bool) {
	depth, j := 0, i
	for ; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
			continue
		case '`':
			n := runOf(s, j, '`')
			if e := closingTicks(s, j+n, n); e >= 0 {
				j = e + n - 1
			} else {
				j += n - 1
			}
			continue
		case '[':
			depth++
		case ']':
			depth--
		}
		if depth == 0 {
			break
		}
	}
	if j >= len(s) || j+1 >= len(s) || s[j+1] != '(' {
		return "", "", 0, false
	}
	label = s[i+1 : j]
	k := skipSpaces(s, j+2)
	if k < len(s) && s[k] == '<' {
		e := strings.IndexAny(s[k+1:], ">\n")
		if e < 0 || s[k+1+e] != '>' {
			return "", "", 0, false
		}
		dest, k = s[k+1:k+1+e], k+e+2
	} else {
		start, parens := k, 0
	scan:
		for ; k < len(s); k++ {
			switch s[k] {
			case '\\':
				k++
			case ' ', '\t', '\n':
				break scan
			case '(':
				parens++
			case ')':
				if parens == 0 {
					break scan
				}
				parens--
			}
		}
		k = min(k, len(s))
		dest = s[start:k]
	}
	k = skipSpaces(s, k)
	if k < len(s) && (s[k] == '"' || s[k] == '\'' || s[k] == '(') {
		closer := s[k]
		if closer == '(' {
			closer = ')'
		}
		e := strings.IndexByte(s[k+1:], closer)
		if e < 0 {
			return "", "", 0, false
		}
		k = skipSpaces(s, k+e+2)
	}
	if k >= len(s) || s[k] != ')' {
		return "", "", 0, false
	}
	return label, dest, k + 1, true
}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	return i
}

// autolink reads <scheme:address> or <name@host> from s[i] ('<').
func autolink(s string, i int) (string, int, bool) {
	e := strings.IndexAny(s[i+1:], "<> \t\n")
	if e <= 0 || s[i+1+e] != '>' {
		return "", 0, false
	}
	inner := s[i+1 : i+1+e]
	if colon := strings.IndexByte(inner, ':'); colon >= 2 && colon <= 32 && isScheme(inner[:colon]) {
		return inner, i + e + 2, true
	}
	if at := strings.IndexByte(inner, '@'); at > 0 && strings.Contains(inner[at+1:], ".") && !strings.Contains(inner[at+1:], "@") {
		return inner, i + e + 2, true
	}
	return "", 0, false
}

func isScheme(s string) bool {
	for k := 0; k < len(s); k++ {
		c := s[k]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (k == 0 || !('0' <= c && c <= '9' || c == '+' || c == '.' || c == '-')) {
			return false
		}
	}
	return true
}

// lineBreakTag reads <br>, <br/> or <br /> (models put them in table
// cells): a line break.
func lineBreakTag(s string, i int) (int, bool) {
	for _, tag := range []string{"<br>", "<br/>", "<br />"} {
		if len(s)-i >= len(tag) && strings.EqualFold(s[i:i+len(tag)], tag) {
			return i + len(tag), true
		}
	}
	return 0, false
}

// flanking says whether the run s[start:end] of c can open and close
// emphasis (CommonMark's left- and right-flanking rules).
func flanking(s string, start, end int, c byte) (open, close bool) {
	before, after := ' ', ' '
	if start > 0 {
		before, _ = utf8.DecodeLastRuneInString(s[:start])
	}
	if end < len(s) {
		after, _ = utf8.DecodeRuneInString(s[end:])
	}
	space := unicode.IsSpace
	punct := func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }
	left := !space(after) && (!punct(after) || space(before) || punct(before))
	right := !space(before) && (!punct(before) || space(after) || punct(after))
	if c == '_' { // no emphasis inside a word_with_underscores
		return left && (!right || punct(before)), right && (!left || punct(after))
	}
	return left, right
}

// emphasis matches the delimiter runs' closers with their openers, as
// CommonMark does, and styles what each pair encloses.
func emphasis(nodes []inode) {
	for c := range nodes {
		cl := &nodes[c]
		if cl.delim == 0 || !cl.close {
			continue
		}
		for cl.n > 0 {
			o := opener(nodes, c)
			if o < 0 {
				break
			}
			op := &nodes[o]
			use, st := 1, styleItalic
			switch {
			case cl.delim == '~':
				use, st = 2, styleStrike
			case op.n >= 2 && cl.n >= 2:
				use, st = 2, styleBold
			}
			for k := o + 1; k < c; k++ {
				nodes[k].st |= st
				nodes[k].open, nodes[k].close = false, false // runs inside are text now
			}
			op.n -= use
			cl.n -= use
		}
	}
}

// opener finds the run that nodes[c] closes; -1 when there is none.
func opener(nodes []inode, c int) int {
	cl := nodes[c]
	for o := c - 1; o >= 0; o-- {
		op := nodes[o]
		if op.delim != cl.delim || !op.open || op.n == 0 {
			continue
		}
		if cl.delim == '~' { // ~~strikethrough~~ only: a lone ~ means "about"
			if op.n == 2 && cl.n == 2 {
				return o
			}
			continue
		}
		if (op.close || cl.open) && (op.orig+cl.orig)%3 == 0 && !(op.orig%3 == 0 && cl.orig%3 == 0) {
			continue
		}
		return o
	}
	return -1
}

// flatten turns nodes into spans: the runs' unused characters are text,
// a link is its text and, when it says more, its address.
func flatten(nodes []inode) []span {
	var out []span
	for _, n := range nodes {
		switch {
		case n.link != nil:
			plain := ""
			for _, sp := range n.link.spans {
				out = append(out, span{sp.text, sp.st | n.st | styleLink})
				plain += sp.text
			}
			switch {
			case n.link.auto || n.link.url == "" || n.link.url == plain:
			case plain == "":
				out = append(out, span{n.link.url, n.st | styleFaint})
			default:
				out = append(out, span{" (" + n.link.url + ")", n.st | styleFaint})
			}
		case n.code:
			out = append(out, span{n.text, n.st | styleCode})
		case n.delim != 0:
			if n.n > 0 {
				out = append(out, span{strings.Repeat(string(n.delim), n.n), n.st})
			}
		case n.literal || !strings.Contains(n.text, "&"):
			out = append(out, span{n.text, n.st})
		default:
			out = append(out, span{html.UnescapeString(n.text), n.st})
		}
	}
	return out
}

// wrapSpans lays spans out in lines of at most width cells: at the text's
// own line breaks, and at spaces (a word wider than the line is cut).
func wrapSpans(spans []span, width int) [][]span {
	width = max(width, 1)
	var out [][]span
	var cur []span
	for _, sp := range spans {
		for k, p := range strings.Split(sp.text, "\n") {
			if k > 0 {
				out = append(out, wrapLine(cur, width)...)
				cur = nil
			}
			if p != "" {
				cur = append(cur, span{p, sp.st})
			}
		}
	}
	return append(out, wrapLine(cur, width)...)
}

// word is a run of spaces or of other characters, over spans.
type word struct {
	parts []span
	space bool
	w     int
}

func wrapLine(spans []span, width int) [][]span {
	var words []word
	for _, sp := range spans {
		for t := sp.text; t != ""; {
			space := t[0] == ' '
			k := len(t) - len(strings.TrimLeft(t, " "))
			if !space {
				if k = strings.IndexByte(t, ' '); k < 0 {
					k = len(t)
				}
			}
			piece := span{t[:k], sp.st}
			t = t[k:]
			if n := len(words); n > 0 && words[n-1].space == space {
				words[n-1].parts = append(words[n-1].parts, piece)
				words[n-1].w += ansi.StringWidth(piece.text)
				continue
			}
			words = append(words, word{parts: []span{piece}, space: space, w: ansi.StringWidth(piece.text)})
		}
	}
	var lines [][]span
	var line []span
	w := 0
	var gap *word // the spaces before the next word, dropped at a line's end
	for i := range words {
		wd := &words[i]
		if wd.space {
			if w > 0 {
				gap = wd
			}
			continue
		}
		if w > 0 && gap != nil && w+gap.w+wd.w <= width {
			line = append(append(line, gap.parts...), wd.parts...)
			w += gap.w + wd.w
			gap = nil
			continue
		}
		if w > 0 {
			lines = append(lines, line)
			line, w = nil, 0
		}
		gap = nil
		parts, pw := wd.parts, wd.w
		for pw > width {
			var head []span
			head, parts = cutSpans(parts, width)
			lines = append(lines, head)
			pw = spansWidth(parts)
		}
		line, w = append(line, parts...), pw
	}
	return append(lines, line)
}

// cutSpans cuts spans after n cells (at least one character).
func cutSpans(spans []span, n int) (head, rest []span) {
	used := 0
	for i, sp := range spans {
		sw := ansi.StringWidth(sp.text)
		if used+sw <= n {
			head = append(head, sp)
			used += sw
			continue
		}
		piece := ansi.Truncate(sp.text, n-used, "")
		if piece == "" && used == 0 {
			_, size := firstRune(sp.text)
			piece = sp.text[:size]
		}
		if piece != "" {
			head = append(head, span{piece, sp.st})
		}
		rest = append([]span{{sp.text[len(piece):], sp.st}}, spans[i+1:]...)
		return head, rest
	}
	return head, nil
}

func firstRune(s string) (rune, int) { return utf8.DecodeRuneInString(s) }
