package tui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// markdown draws complete answers as Markdown: headings, paragraphs, lists,
// block quotes, code blocks, tables and rules, with emphasis, inline code
// and links. An answer streams as plain text (half-written Markdown renders
// badly and re-rendering the whole answer on every piece would be slow);
// once it is complete it is drawn as Markdown.
//
// It is written here, on the terminal's sixteen colours, rather than taken
// from a Markdown library: every mm process — an asked agent, a one-shot
// `mm --ask` in a hook — pays the package initialisation of everything the
// binary links, and the renderers at hand register syntax-highlighting
// lexers, styles and HTML sanitisers at start-up, costing each process far
// more than it takes to start (issue 17). This one registers nothing.
//
// What the model wrote stays: its line breaks are kept (a model writes
// "Here is the folder:\nagent.yaml" meaning two lines), so is the
// whitespace of code blocks, and Markdown it does not understand shows as
// the text it is.
type markdown struct {
	st mdStyles
}

func newMarkdown() *markdown { return &markdown{st: newMDStyles()} }

// render returns text as Markdown lines of at most width cells.
func (m *markdown) render(text string, width int) []string {
	width = max(width, 1)
	lines := m.blocks(parseBlocks(strings.Split(text, "\n")), width, 0)
	for i, l := range lines {
		lines[i] = fit(l, width)
	}
	return lines
}

// The blocks of a Markdown document (CommonMark's, and GitHub's tables).
type blockKind int

const (
	blockParagraph blockKind = iota
	blockHeading
	blockCode
	blockQuote
	blockList
	blockRule
	blockTable
)

type block struct {
	kind blockKind
	// blankBefore: a blank line separated it from the block before; the
	// window keeps that spacing, and no more.
	blankBefore bool
	level       int      // a heading's level, 1 to 6
	lines       []string // a paragraph's or heading's lines, a code block's lines
	children    []block  // a block quote's blocks
	items       []item   // a list's items
	ordered     bool
	start       int  // an ordered list's first number
	delim       byte // an ordered list's '.' or ')'
	table       *table
}

type item struct {
	blankBefore bool
	blocks      []block
}

type table struct {
	align []byte // per column: 'l', 'c' or 'r'
	rows  [][]string
}

// The matchers below read a line the way CommonMark does; they are written
// out rather than regular expressions, which would be compiled when the
// package initialises, in every mm process.

// lead is the line after up to three spaces of indentation; false when
// the line is indented more (code, or a continuation).
func lead(l string) (string, bool) {
	n := indentOf(l)
	return l[n:], n <= 3
}

// atxHeading reads "## Title ##": the level and the title.
func atxHeading(l string) (int, string, bool) {
	t, ok := lead(l)
	if !ok {
		return 0, "", false
	}
	level := runOf(t, 0, '#')
	if level == 0 || level > 6 || level < len(t) && t[level] != ' ' && t[level] != '\t' {
		return 0, "", false
	}
	title := strings.Trim(t[level:], " \t")
	if c := strings.TrimRight(title, "#"); c == "" || strings.HasSuffix(c, " ") || strings.HasSuffix(c, "\t") {
		title = strings.TrimRight(c, " \t") // a closing run of #
	}
	return level, title, true
}

// isRule: three or more *, - or _ alone on the line (spaces between).
func isRule(l string) bool {
	t, ok := lead(l)
	if !ok || t == "" || t[0] != '*' && t[0] != '-' && t[0] != '_' {
		return false
	}
	n := 0
	for k := 0; k < len(t); k++ {
		switch t[k] {
		case t[0]:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// setextLevel is the heading level a line of = (1) or - (2) gives the
// paragraph above it; 0 for any other line.
func setextLevel(l string) int {
	t, ok := lead(l)
	t = strings.TrimRight(t, " \t")
	switch {
	case !ok || t == "":
		return 0
	case strings.Trim(t, "=") == "":
		return 1
	case strings.Trim(t, "-") == "":
		return 2
	}
	return 0
}

// quoted is a block quote's line without its "> ".
func quoted(l string) (string, bool) {
	t, ok := lead(l)
	if !ok || !strings.HasPrefix(t, ">") {
		return "", false
	}
	return strings.TrimPrefix(t[1:], " "), true
}

func isQuote(l string) bool {
	_, ok := quoted(l)
	return ok
}

// marker is a list item's marker on its first line.
type marker struct {
	bullet  byte // '-', '+' or '*'; 0 for an ordered item
	number  int
	delim   byte
	indent  int // where the item's content starts
	content string
}

// listMarker reads "- ", "* ", "+ ", "1. " or "1) " at the start of a line.
func listMarker(line string) (marker, bool) {
	t, ok := lead(line)
	if !ok || t == "" {
		return marker{}, false
	}
	m := marker{}
	end := len(line) - len(t) // past the marker
	switch d := runDigits(t); {
	case t[0] == '-' || t[0] == '+' || t[0] == '*':
		m.bullet = t[0]
		end++
	case d >= 1 && d <= 9 && d < len(t) && (t[d] == '.' || t[d] == ')'):
		m.number, _ = strconv.Atoi(t[:d])
		m.delim = t[d]
		end += d + 1
	default:
		return marker{}, false
	}
	spaces := indentOf(line[end:])
	switch {
	case end+spaces == len(line): // an empty item
		m.indent = end + 1
	case spaces == 0:
		return marker{}, false
	case spaces > 4: // the content is indented code: one space belongs to the marker
		m.indent = end + 1
	default:
		m.indent = end + spaces
	}
	if m.indent < len(line) {
		m.content = line[m.indent:]
	}
	return m, true
}

func runDigits(s string) int {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return n
}

// sameList: b continues the list a started.
func (a marker) sameList(b marker) bool {
	return a.bullet == b.bullet && a.delim == b.delim
}

// interrupts: a list item may start in the middle of a paragraph only if it
// cannot be the paragraph's text (CommonMark: not empty, ordered from 1).
func (m marker) interrupts() bool {
	return strings.TrimSpace(m.content) != "" && (m.bullet != 0 || m.number == 1)
}

func isBlank(l string) bool { return strings.TrimSpace(l) == "" }

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// fence is an open code fence: its character, length and indentation.
type fence struct {
	char   byte
	n      int
	indent int
}

func openFence(l string) (fence, bool) {
	t, ok := lead(l)
	if !ok || t == "" || t[0] != '`' && t[0] != '~' {
		return fence{}, false
	}
	n := runOf(t, 0, t[0])
	if n < 3 || t[0] == '`' && strings.Contains(t[n:], "`") {
		return fence{}, false
	}
	return fence{char: t[0], n: n, indent: len(l) - len(t)}, true
}

func (f fence) closes(l string) bool {
	t := strings.TrimRight(l, " \t")
	if indentOf(t) > 3 {
		return false
	}
	t = strings.TrimLeft(t, " ")
	return len(t) >= f.n && strings.Trim(t, string(f.char)) == ""
}

// startsBlock: l begins a block that ends a paragraph.
func startsBlock(l string) bool {
	if _, ok := openFence(l); ok {
		return true
	}
	if m, ok := listMarker(l); ok && m.interrupts() {
		return true
	}
	_, _, heading := atxHeading(l)
	return heading || isRule(l) || isQuote(l)
}

// parseBlocks reads lines (of a document, a quote or a list item) as
// blocks.
func parseBlocks(lines []string) []block {
	var out []block
	blank := false
	add := func(b block) {
		b.blankBefore = blank && len(out) > 0
		out = append(out, b)
		blank = false
	}
	for i := 0; i < len(lines); {
		l := lines[i]
		if isBlank(l) {
			blank = true
			i++
			continue
		}
		if indentOf(l) >= 4 { // indented code
			j := i
			for j < len(lines) && (isBlank(lines[j]) || indentOf(lines[j]) >= 4) {
				j++
			}
			for j > i && isBlank(lines[j-1]) {
				j--
			}
			code := make([]string, 0, j-i)
			for _, c := range lines[i:j] {
				code = append(code, cutIndent(c, 4))
			}
			add(block{kind: blockCode, lines: code})
			i = j
			continue
		}
		if f, ok := openFence(l); ok {
			j := i + 1
			var code []string
			for ; j < len(lines) && !f.closes(lines[j]); j++ {
				code = append(code, cutIndent(lines[j], f.indent))
			}
			add(block{kind: blockCode, lines: code})
			i = j + 1
			continue
		}
		if level, title, ok := atxHeading(l); ok {
			add(block{kind: blockHeading, level: level, lines: []string{title}})
			i++
			continue
		}
		if isRule(l) {
			add(block{kind: blockRule})
			i++
			continue
		}
		if isQuote(l) {
			var inner []string
			j := i
			for ; j < len(lines); j++ {
				q := lines[j]
				if t, ok := quoted(q); ok {
					inner = append(inner, t)
					continue
				}
				// A lazy line continues the quote's paragraph.
				if isBlank(q) || startsBlock(q) || len(inner) == 0 || isBlank(inner[len(inner)-1]) {
					break
				}
				inner = append(inner, q)
			}
			add(block{kind: blockQuote, children: parseBlocks(inner)})
			i = j
			continue
		}
		if m, ok := listMarker(l); ok {
			b, j := parseList(lines, i, m)
			add(b)
			i = j
			continue
		}
		if t, j, ok := parseTable(lines, i); ok {
			add(block{kind: blockTable, table: t})
			i = j
			continue
		}
		// A paragraph: its lines up to a blank line or another block; a
		// line of = or - under it makes it a heading.
		j := i + 1
		level := 0
		for ; j < len(lines); j++ {
			p := lines[j]
			if level = setextLevel(p); level > 0 {
				break
			}
			if isBlank(p) || startsBlock(p) {
				break
			}
			if _, _, ok := parseTable(lines, j); ok {
				break
			}
		}
		para := make([]string, 0, j-i)
		for _, p := range lines[i:j] {
			para = append(para, strings.TrimLeft(p, " "))
		}
		if level > 0 {
			add(block{kind: blockHeading, level: level, lines: para})
			j++
		} else {
			add(block{kind: blockParagraph, lines: para})
		}
		i = j
	}
	return out
}

// cutIndent removes up to n spaces from the start of l.
func cutIndent(l string, n int) string {
	return l[min(indentOf(l), n):]
}

// parseList reads the list whose first item starts at lines[i] (marker
// m) and returns it with the index of the line after it.
func parseList(lines []string, i int, m marker) (block, int) {
	b := block{kind: blockList, ordered: m.bullet == 0, start: m.number, delim: m.delim}
	blank := false
	for {
		content := []string{m.content}
		j := i + 1
		for ; j < len(lines); j++ {
			l := lines[j]
			if isBlank(l) {
				content = append(content, "")
				continue
			}
			if indentOf(l) >= m.indent {
				content = append(content, l[m.indent:])
				continue
			}
			// A less indented line: a lazy continuation of the item's
			// paragraph, or the item's end.
			if isBlank(content[len(content)-1]) || startsBlock(l) || inFence(content) {
				break
			}
			if _, ok := listMarker(l); ok {
				break
			}
			content = append(content, strings.TrimLeft(l, " "))
		}
		for j > i+1 && isBlank(lines[j-1]) {
			j--
			content = content[:len(content)-1]
		}
		b.items = append(b.items, item{blankBefore: blank, blocks: parseBlocks(content)})
		// The next item, after blank lines or not, of the same list.
		k := j
		for k < len(lines) && isBlank(lines[k]) {
			k++
		}
		next, ok := marker{}, false
		if k < len(lines) {
			next, ok = listMarker(lines[k])
		}
		if !ok || !m.sameList(next) || isRule(lines[k]) {
			return b, j
		}
		i, m, blank = k, next, k > j
	}
}

// inFence: lines leave a code fence open.
func inFence(lines []string) bool {
	var open *fence
	for _, l := range lines {
		if open != nil {
			if open.closes(l) {
				open = nil
			}
			continue
		}
		if f, ok := openFence(l); ok {
			open = &f
		}
	}
	return open != nil
}

// parseTable reads a table (GitHub's: a header row, a delimiter row with as
// many cells, then rows) starting at lines[i].
func parseTable(lines []string, i int) (*table, int, bool) {
	if i+1 >= len(lines) || !strings.Contains(lines[i], "|") {
		return nil, 0, false
	}
	header, delims := splitRow(lines[i]), splitRow(lines[i+1])
	if len(header) != len(delims) || !strings.Contains(lines[i+1], "-") {
		return nil, 0, false
	}
	t := &table{}
	for _, d := range delims {
		if c := strings.TrimSuffix(strings.TrimPrefix(d, ":"), ":"); c == "" || strings.Trim(c, "-") != "" {
			return nil, 0, false
		}
		a := byte('l')
		switch {
		case d[0] == ':' && d[len(d)-1] == ':' && len(d) > 1:
			a = 'c'
		case d[len(d)-1] == ':':
			a = 'r'
		}
		t.align = append(t.align, a)
	}
	t.rows = append(t.rows, header)
	j := i + 2
	for ; j < len(lines); j++ {
		l := lines[j]
		if isBlank(l) || !strings.Contains(l, "|") || startsBlock(l) {
			break
		}
		t.rows = append(t.rows, splitRow(l))
	}
	for _, r := range t.rows { // a row with more cells than the header keeps them
		for len(t.align) < len(r) {
			t.align = append(t.align, 'l')
		}
	}
	return t, j, true
}

// splitRow cuts a table row into its cells at the pipes that are not
// escaped; the row's outer pipes are optional.
func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	if strings.HasSuffix(l, "|") && !strings.HasSuffix(l, `\|`) {
		l = l[:len(l)-1]
	}
	var cells []string
	var cell strings.Builder
	for k := 0; k < len(l); k++ {
		switch {
		case l[k] == '\\' && k+1 < len(l) && l[k+1] == '|':
			cell.WriteByte('|')
			k++
		case l[k] == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(l[k])
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
}

// blocks draws bs in width cells; depth is how deep in lists they are.
func (m *markdown) blocks(bs []block, width, depth int) []string {
	var out []string
	for i, b := range bs {
		if i > 0 && b.blankBefore {
			out = append(out, "")
		}
		out = append(out, m.block(b, width, depth)...)
	}
	return out
}

func (m *markdown) block(b block, width, depth int) []string {
	switch b.kind {
	case blockHeading:
		st := styleHeading
		if b.level == 1 {
			st |= styleUnderline
		}
		return m.st.lines(wrapSpans(withStyle(parseInline(strings.Join(b.lines, "\n")), st), width))
	case blockCode:
		return m.code(b.lines, width)
	case blockRule:
		return []string{m.st.render(strings.Repeat("─", width), styleFaint)}
	case blockQuote:
		bar := m.st.render("│", styleFaint) + " "
		lines := m.blocks(b.children, max(width-2, 1), depth)
		for i, l := range lines {
			lines[i] = bar + l
		}
		return lines
	case blockList:
		return m.list(b, width, depth)
	case blockTable:
		return m.table(b.table, width)
	}
	return m.st.lines(wrapSpans(parseInline(strings.Join(b.lines, "\n")), width))
}

// code draws a code block's lines as they are, indented by two cells;
// a line too wide for the window goes on over the next lines.
func (m *markdown) code(lines []string, width int) []string {
	w := max(width-2, 1)
	var out []string
	for _, l := range lines {
		l = strings.TrimRight(l, " ")
		if l == "" {
			out = append(out, "")
		}
		for l != "" {
			piece := l
			if ansi.StringWidth(l) > w {
				piece = ansi.Truncate(l, w, "")
				if piece == "" { // one character wider than the line
					_, n := firstRune(l)
					piece = l[:n]
				}
			}
			out = append(out, "  "+m.st.render(piece, styleCode))
			l = l[len(piece):]
		}
	}
	return out
}

// bullets are the list markers by depth.
var bullets = []string{"•", "◦", "▪"}

// list draws a list's items behind their markers, their later lines
// indented under the first's text.
func (m *markdown) list(b block, width, depth int) []string {
	markers := make([]string, len(b.items))
	mw := 0
	for i := range b.items {
		if b.ordered {
			markers[i] = strconv.Itoa(b.start+i) + string(b.delim)
		} else {
			markers[i] = bullets[min(depth, len(bullets)-1)]
		}
		mw = max(mw, ansi.StringWidth(markers[i]))
	}
	mw++ // a space after the marker
	var out []string
	for i, it := range b.items {
		if i > 0 && it.blankBefore {
			out = append(out, "")
		}
		lines := m.blocks(it.blocks, max(width-mw, 1), depth+1)
		if len(lines) == 0 {
			lines = []string{""}
		}
		pad := mw - ansi.StringWidth(markers[i])
		if b.ordered { // numbers line up on the right
			markers[i] = strings.Repeat(" ", pad-1) + markers[i] + " "
		} else {
			markers[i] += strings.Repeat(" ", pad)
		}
		indent := strings.Repeat(" ", mw)
		for k, l := range lines {
			prefix := indent
			if k == 0 {
				prefix = markers[i]
			}
			if l == "" {
				out = append(out, strings.TrimRight(prefix, " "))
				continue
			}
			out = append(out, prefix+l)
		}
	}
	return out
}

// table draws a table with its columns lined up, the header bold and
// ruled off; columns too wide for the window share its width and their
// cells wrap.
func (m *markdown) table(t *table, width int) []string {
	cols := len(t.align)
	cells := make([][][]span, len(t.rows))
	natural := make([]int, cols)
	for r, row := range t.rows {
		cells[r] = make([][]span, cols)
		for c := range cols {
			text := ""
			if c < len(row) {
				text = row[c]
			}
			sp := parseInline(text)
			if r == 0 {
				sp = withStyle(sp, styleBold)
			}
			cells[r][c] = sp
			natural[c] = max(natural[c], spansWidth(sp))
		}
	}
	widths, ok := shareWidth(natural, width-3*(cols-1))
	sep := m.st.render(" │ ", styleFaint)
	if !ok { // not even a cell per column: one cell a line
		var out []string
		for _, row := range cells {
			for _, c := range row {
				out = append(out, m.st.lines(wrapSpans(c, width))...)
			}
		}
		return out
	}
	var out []string
	for r, row := range cells {
		wrapped := make([][][]span, cols)
		height := 1
		for c, cell := range row {
			wrapped[c] = wrapSpans(cell, widths[c])
			height = max(height, len(wrapped[c]))
		}
		for k := range height {
			var line strings.Builder
			for c := range cols {
				if c > 0 {
					line.WriteString(sep)
				}
				var text string
				w := 0
				if k < len(wrapped[c]) {
					text, w = m.st.line(wrapped[c][k]), spansWidth(wrapped[c][k])
				}
				gap := widths[c] - w
				switch t.align[c] {
				case 'r':
					line.WriteString(strings.Repeat(" ", gap) + text)
				case 'c':
					line.WriteString(strings.Repeat(" ", gap/2) + text + strings.Repeat(" ", gap-gap/2))
				default:
					line.WriteString(text + strings.Repeat(" ", gap))
				}
			}
			out = append(out, strings.TrimRight(line.String(), " "))
		}
		if r == 0 {
			parts := make([]string, cols)
			for c, w := range widths {
				parts[c] = strings.Repeat("─", w)
			}
			out = append(out, m.st.render(strings.Join(parts, "─┼─"), styleFaint))
		}
	}
	return out
}

// shareWidth gives columns of natural widths at most avail cells in all:
// the narrow ones keep their width, the wide ones share what is left.
// false when there is not a cell for each column.
func shareWidth(natural []int, avail int) ([]int, bool) {
	widths := make([]int, len(natural))
	total := 0
	for c, w := range natural {
		widths[c] = max(w, 1)
		total += widths[c]
	}
	if total <= avail {
		return widths, true
	}
	if avail < len(natural) {
		return nil, false
	}
	left, open := avail, map[int]bool{}
	for c := range natural {
		open[c] = true
	}
	for len(open) > 0 {
		share := left / len(open)
		settled := false
		for c := range open {
			if widths[c] <= share {
				left -= widths[c]
				delete(open, c)
				settled = true
			}
		}
		if settled {
			continue
		}
		extra := left - share*len(open)
		for c := range natural { // in order, so the first columns get the rest
			if open[c] {
				widths[c] = share
				if extra > 0 {
					widths[c]++
					extra--
				}
			}
		}
		break
	}
	return widths, true
}
