// Package termtext makes text mm did not write safe to draw on a
// terminal. A model, a tool's output, a hook's reason or a remote agent's
// answer may hold escape sequences and control characters: drawn as they
// are, they move the cursor, erase what was written before them, retitle
// the terminal or reverse the text's direction, so that what the user
// reads is not what the text says — a consent question that reads "allow
// bash: ls -la" about a command that deletes a file. Every front end that
// draws such text (line mode, the window, the editor's titles, what a
// remote agent sends) cleans it here, with one rule; --json keeps the raw
// text, JSON-escaped.
//
// It is a leaf: it knows nothing of mm's other packages.
package termtext

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Hidden reports whether r is removed by Clean and shown by Visible: the
// C0 controls but newline and tab, DEL, the C1 controls, and the
// bidirectional embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069), which reorder the text around them.
func Hidden(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\n' && r != '\t'
	case r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Clean is s as a terminal may draw it: escape sequences (CSI, OSC and
// the others, whole) and every Hidden character removed. Text without
// any is returned as it is, at no cost.
func Clean(s string) string {
	if !strings.ContainsFunc(s, Hidden) {
		return s
	}
	if strings.ContainsRune(s, 0x1b) {
		s = ansi.Strip(s)
	}
	return strings.Map(func(r rune) rune {
		if Hidden(r) {
			return -1
		}
		return r
	}, s)
}

// Visible is s with each Hidden character written out as its escape —
// \x1b, \x07, \u202e — and everything else as it is, so that a question
// the user answers shows the whole of what they allow: an escape
// sequence's ESC becomes \x1b and the rest of it ([2K) stays readable.
// Newlines and tabs are kept; a question that must stay on one line
// flattens them itself.
func Visible(s string) string {
	if !strings.ContainsFunc(s, Hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !Hidden(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// Stream cleans text that arrives in pieces (an answer streamed chunk by
// chunk), where an escape sequence may be cut between two pieces: Clean
// on each piece alone would leave the second half ("2K") as text. Piece
// holds back an unfinished sequence at the end of a piece, up to
// maxHeld bytes, and cleans it with the next. The zero Stream is ready.
type Stream struct{ held string }

// maxHeld bounds what a Stream holds back: a sequence longer than that is
// no sequence a terminal waits for.
const maxHeld = 256

// Piece is the next piece, cleaned, with what the last one held back.
func (s *Stream) Piece(p string) string {
	p, s.held = s.held+p, ""
	if i := strings.LastIndexByte(p, 0x1b); i >= 0 && len(p)-i <= maxHeld && unfinished(p[i:]) {
		p, s.held = p[:i], p[i:]
	}
	return Clean(p)
}

// unfinished reports whether seq, which starts with ESC, ends before its
// sequence does: a lone ESC, a CSI without its final byte, an OSC, DCS or
// the like without its terminator (BEL or ESC \).
func unfinished(seq string) bool {
	if len(seq) == 1 {
		return true
	}
	switch seq[1] {
	case '[':
		for _, c := range []byte(seq[2:]) {
			if c >= 0x40 && c <= 0x7e {
				return false
			}
		}
		return true
	case ']', 'P', '_', '^', 'X':
		return !strings.ContainsRune(seq[2:], 0x07)
	}
	return false
}
