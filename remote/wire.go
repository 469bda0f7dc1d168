package remote

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// What mm -a2a serves fits any SDK's reader: the Go SDK reads an SSE line
// of at most 64 KiB, and JSON escaping can make text six times longer (<
// is \u003c). So strings are measured as JSON writes them, and each event
// carries at most about 48 KiB of them: text in pieces of wirePiece,
// several events when there is more; a tool's input, output or error
// clipped, saying so (the served agent's tool got its whole input; what
// crosses the wire is for display).
const (
	// wirePiece bounds the JSON text of one piece of answer text (an
	// artifact update) or of a status update's text, which is written
	// twice (the message's text and EventKey's).
	wirePiece = 16 << 10
	// wireField bounds a tool's output, a reason or an error, each written
	// at most twice in an event.
	wireField = 8 << 10
	// wireInput bounds a tool's input (JSON), written twice in a consent
	// question.
	wireInput = 8 << 10
	// wireString bounds each string of a clipped input.
	wireString = 2 << 10
)

// jsonLen is the length of s as encoding/json writes it, quotes aside.
func jsonLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		w, size := jsonRuneLen(s[i:])
		n += w
		i += size
	}
	return n
}

// jsonRuneLen is the escaped length and the byte length of the first rune
// of s.
func jsonRuneLen(s string) (escaped, size int) {
	b := s[0]
	if b < utf8.RuneSelf {
		switch {
		case b == '"' || b == '\\' || b == '\n' || b == '\r' || b == '\t' || b == '\b' || b == '\f':
			return 2, 1
		case b < 0x20 || b == '<' || b == '>' || b == '&':
			return 6, 1
		}
		return 1, 1
	}
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
		return 6, size
	}
	return size, size
}

// wireCut is the largest index of s, on a rune boundary, whose prefix is
// at most budget bytes once JSON-escaped (at least one rune when s is not
// empty, so that cutting always advances).
func wireCut(s string, budget int) int {
	n := 0
	for i := 0; i < len(s); {
		w, size := jsonRuneLen(s[i:])
		if n+w > budget && i > 0 {
			return i
		}
		n += w
		i += size
	}
	return len(s)
}

// wirePieces splits s into pieces of at most budget escaped bytes each.
func wirePieces(s string, budget int) []string {
	var out []string
	for len(s) > 0 {
		i := wireCut(s, budget)
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// wireClip is s cut to budget escaped bytes, saying how long it was.
func wireClip(s string, budget int) string {
	if jsonLen(s) <= budget {
		return s
	}
	return s[:wireCut(s, budget-64)] + fmt.Sprintf("\n[… cut for the wire: %d bytes in all]", len(s))
}

// wireInputOf is a tool's input as an event carries it: whole when it
// fits wireInput, else with each long string clipped (saying so), the
// shape and the short fields (path, command…) kept; nil when even that
// does not fit.
func wireInputOf(in json.RawMessage) json.RawMessage {
	if len(in) == 0 || !json.Valid(in) {
		return nil
	}
	if out, err := json.Marshal(in); err == nil && len(out) <= wireInput {
		return in // as the SDK will write it, escaped
	}
	var v any
	if json.Unmarshal(in, &v) != nil {
		return nil
	}
	out, err := json.Marshal(clipStrings(v))
	if err != nil || len(out) > wireInput {
		return nil
	}
	return out
}

func clipStrings(v any) any {
	switch t := v.(type) {
	case string:
		return wireClip(t, wireString)
	case map[string]any:
		for k, x := range t {
			t[k] = clipStrings(x)
		}
	case []any:
		for i, x := range t {
			t[i] = clipStrings(x)
		}
	}
	return v
}
