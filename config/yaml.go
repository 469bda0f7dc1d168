package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// decodeDocument parses data as one YAML document. A second document with
// anything in it is an error: the YAML library would read the first and
// ignore the rest without a word. A syntax error names the line of the
// mistake (see syntaxError). An empty file is an empty document.
func decodeDocument(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &doc, nil
		}
		return nil, syntaxError(data, err)
	}
	for {
		var next yaml.Node
		err := dec.Decode(&next)
		switch {
		case errors.Is(err, io.EOF):
			return &doc, nil
		case err != nil:
			return nil, syntaxError(data, err)
		case !emptyDocument(&next):
			return nil, fmt.Errorf(`line %d: a second YAML document (after "---"): a config is one document; merge the two or remove one`, next.Line)
		}
	}
}

// emptyDocument: a document holding nothing, as after a last "---".
func emptyDocument(d *yaml.Node) bool {
	return len(d.Content) == 0 || (d.Content[0].Kind == yaml.ScalarNode && d.Content[0].ShortTag() == "!!null" && d.Content[0].Value == "")
}

// checkDuplicates rejects a key written twice in one mapping, at any depth
// (hooks, a hook entry, a provider, an MCP server's env, a schema). YAML
// libraries keep the last one silently, which is how a second `hooks:`
// drops the guards of the first and a second `yolo:` turns consent off.
// Aliases are not followed: what they point at is checked where it is
// written.
func checkDuplicates(n *yaml.Node, path string) error {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := checkDuplicates(c, path); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := checkDuplicates(c, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		first := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode {
				if f, ok := first[k.Value]; ok {
					prefix, fix := "", "keep one"
					if path != "" {
						prefix = path + ": "
					}
					if v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode {
						fix = "merge them into one"
					}
					return fmt.Errorf("%sline %d: key %q written twice (first on line %d): %s", prefix, k.Line, k.Value, f.Line, fix)
				}
				first[k.Value] = k
			}
			sub := k.Value
			if path != "" {
				sub = path + "." + k.Value
			}
			if err := checkDuplicates(v, sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// libraryLine is the "line N: " the YAML library starts its messages with.
var libraryLine = regexp.MustCompile(`^line (\d+): (.*)$`)

// maxSearchLines bounds the search for a syntax error's line: each step
// parses a prefix of the file.
const maxSearchLines = 600

// syntaxError turns the YAML library's syntax error into one naming the
// line of the mistake. The library names the line where the enclosing
// block began, not the mistake — an indentation slip on line 8 inside a
// block opened on line 3 is reported at line 3 — and nothing at all when
// that block is on the first line. The line of the mistake is the one
// after the longest prefix of whole lines that still parses. A tab in a
// line's indentation, and a line indented to no level above it, are then
// said in so many words.
func syntaxError(data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := libraryLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	if found := mistakeLine(lines); found > 0 {
		line = found
	}
	if line < 1 || line > len(lines) {
		return errors.New(msg)
	}
	text := string(lines[line-1])
	indent := text[:len(text)-len(strings.TrimLeft(text, " \t"))]
	if strings.Contains(indent, "\t") {
		return fmt.Errorf("line %d: a tab indents this line; YAML indents with spaces", line)
	}
	if key, quoted, ok := colonInPlainValue(text); ok && indentationProblem(msg) {
		return fmt.Errorf("line %d: the value of %s holds \": \", which YAML reads as the start of another key: put the value in quotes: %s", line, key, quoted)
	}
	if indentationProblem(msg) {
		levels := levelsAbove(lines[:line-1])
		if len(levels) > 0 && !containsInt(levels, len(indent)) {
			return fmt.Errorf("line %d: indented by %d spaces, which lines up with no key above it (those are indented by %s)", line, len(indent), spaces(levels))
		}
	}
	return fmt.Errorf("line %d: %s", line, msg)
}

// colonInPlainValue recognises the commonest YAML slip in a config: a
// plain (unquoted) value holding ": " — command: jq -c '{a: .b}', system:
// Note: be brief — which YAML reads as a mapping inside the value. It
// returns the key and the line with its value quoted, the fix.
func colonInPlainValue(text string) (key, quoted string, ok bool) {
	line := strings.TrimRight(text, "\r\n")
	body := strings.TrimLeft(line, " ")
	lead := line[:len(line)-len(body)]
	for strings.HasPrefix(body, "- ") {
		lead += "- "
		body = strings.TrimLeft(body[2:], " ")
	}
	k, value, found := strings.Cut(body, ": ")
	value = strings.TrimSpace(value)
	if !found || k == "" || strings.ContainsAny(k, " '\"{[") || value == "" ||
		strings.ContainsRune("'\"{[|>&*!#", rune(value[0])) || !strings.Contains(value, ": ") {
		return "", "", false
	}
	switch {
	case !strings.Contains(value, "'"):
		quoted = "'" + value + "'"
	default:
		quoted = strconv.Quote(value)
	}
	return k, strings.TrimLeft(lead, " ") + k + ": " + quoted, true
}

// mistakeLine is the line just after the longest prefix of lines that
// parses, 0 when the file is too long to search.
func mistakeLine(lines [][]byte) int {
	if len(lines) > maxSearchLines {
		return 0
	}
	for k := len(lines) - 1; k > 0; k-- {
		if parses(bytes.Join(lines[:k], nil)) {
			return k + 1
		}
	}
	return 1
}

func parses(data []byte) bool {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			return errors.Is(err, io.EOF)
		}
	}
}

// indentationProblem: the parser's messages for a line that belongs to no
// block above it.
func indentationProblem(msg string) bool {
	for _, m := range []string{"did not find expected key", "did not find expected '-' indicator", "mapping values are not allowed in this context", "block sequence entries are not allowed in this context"} {
		if strings.HasPrefix(msg, m) {
			return true
		}
	}
	return false
}

// levelsAbove lists the indentations a next line may line up with: that of
// the last line, and of each line above that is less indented than the
// ones below it (the blocks still open), with the indentation of what
// follows a "- ".
func levelsAbove(lines [][]byte) []int {
	var levels []int
	limit := -1 // no limit yet
	for i := len(lines) - 1; i >= 0; i-- {
		s := strings.TrimRight(string(lines[i]), "\r\n")
		body := strings.TrimLeft(s, " ")
		if body == "" || strings.HasPrefix(body, "#") {
			continue
		}
		ind := len(s) - len(body)
		if limit >= 0 && ind >= limit {
			continue
		}
		col := ind
		levels = append(levels, col)
		for strings.HasPrefix(body, "- ") {
			rest := strings.TrimLeft(body[1:], " ")
			col += len(body) - len(rest)
			body = rest
			if limit < 0 || col < limit {
				levels = append(levels, col)
			}
		}
		limit = ind
		if ind == 0 {
			break
		}
	}
	// Smallest first, without repeats.
	out := []int{}
	for l := 0; l <= maxInt(levels); l++ {
		if containsInt(levels, l) {
			out = append(out, l)
		}
	}
	return out
}

func containsInt(list []int, x int) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}

func maxInt(list []int) int {
	m := -1
	for _, v := range list {
		m = max(m, v)
	}
	return m
}

// spaces writes 0, 2 and 4 as "0, 2 or 4 spaces".
func spaces(levels []int) string {
	s := make([]string, len(levels))
	for i, l := range levels {
		s[i] = strconv.Itoa(l)
	}
	if len(s) == 1 {
		return s[0] + " spaces"
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1] + " spaces"
}

// jsonDuplicates is checkDuplicates for a JSON file (a structuredOutput
// schema): encoding/json, like YAML, keeps the last of two keys. What is
// not JSON passes: the schema compiler says what is wrong with it.
func jsonDuplicates(data []byte) error {
	type frame struct {
		object  bool
		path    string
		keys    map[string]int // the object's keys → their line
		key     string         // the object's last key
		needKey bool           // the next token is a key (or the object's end)
		index   int            // the array's next index
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	line := func() int { return 1 + bytes.Count(data[:dec.InputOffset()], []byte("\n")) }
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if tok == json.Delim('}') || tok == json.Delim(']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if top != nil && top.object && top.needKey {
			k := tok.(string) // the decoder checks that keys are strings
			if first, dup := top.keys[k]; dup {
				prefix := ""
				if top.path != "" {
					prefix = top.path + ": "
				}
				return fmt.Errorf("%sline %d: key %q written twice (first on line %d): keep one", prefix, line(), k, first)
			}
			top.keys[k], top.key, top.needKey = line(), k, false
			continue
		}
		// A value: of the object's last key, the array's next item, or the
		// document.
		path := ""
		switch {
		case top == nil:
		case top.object:
			path, top.needKey = top.key, true
			if top.path != "" {
				path = top.path + "." + top.key
			}
		default:
			path = fmt.Sprintf("%s[%d]", top.path, top.index)
			top.index++
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, path: path, keys: map[string]int{}, needKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{path: path})
		}
	}
}
