package orchestrator

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// SummaryMax is the longest summary a display shows for a call.
const SummaryMax = 60

// Summary is the short text a display shows for a call: the first present,
// non-empty string among the input's command, path, url and agent fields,
// else (another tool's, an MCP server's) its first string argument; on one
// line, at most 60 characters; "" when the input has no string at all.
func Summary(input json.RawMessage) string {
	var fields map[string]json.RawMessage
	var inner string
	if json.Unmarshal(input, &inner) == nil {
		input = json.RawMessage(inner) // arguments a small model encoded twice
	}
	if json.Unmarshal(input, &fields) != nil {
		return ""
	}
	for _, k := range []string{"command", "path", "url", "agent"} {
		var s string
		if json.Unmarshal(fields[k], &s) != nil {
			continue
		}
		if s = clip(s); s != "" {
			return s
		}
	}
	// Another tool (an MCP server's): its first string argument, as the
	// model wrote the arguments.
	return clip(firstString(input))
}

// clip is s on one line, at most SummaryMax characters.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > SummaryMax {
		r := []rune(s)
		s = string(r[:SummaryMax-1]) + "…"
	}
	return s
}

// firstString is the first non-blank string value of the JSON object
// input, in the order it was written; "" when it has none.
func firstString(input json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(input))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		if _, err := dec.Token(); err != nil { // the key
			return ""
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return ""
		}
		var s string
		if json.Unmarshal(v, &s) == nil && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
