package orchestrator

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// SummaryMax is the longest summary a display shows for a call.
const SummaryMax = 60

// Summary is the short text a display shows for a call: the first present,
// non-empty string among the input's command, path, url and agent fields, on
// one line, at most 60 characters; "" when the input has none of them.
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
		s = strings.Join(strings.Fields(s), " ")
		if s == "" {
			continue
		}
		if utf8.RuneCountInString(s) > SummaryMax {
			r := []rune(s)
			s = string(r[:SummaryMax-1]) + "…"
		}
		return s
	}
	return ""
}
