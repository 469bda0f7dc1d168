// Package docs holds mm's documentation; its test keeps the examples true.
package docs

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A fenced block in the docs is an example, and an example must be taken
// from a file the tests run: the comment line before its fence names the
// file ("<!-- from: demos/hooks/agent.yaml -->", relative to the repository
// root) and the block's lines must appear in it, in order and together
// (leading and trailing blank space of each line ignored). A block that is
// a syntax template, not an example, says so: "<!-- template -->".
var marker = regexp.MustCompile(`^<!-- (from: (\S+)|template) -->$`)

func TestExamplesComeFromTestedFiles(t *testing.T) {
	files, err := filepath.Glob("*/*.md")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("*.md")
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no documentation found")
	}
	for _, f := range files {
		for _, b := range blocks(t, f) {
			switch {
			case b.marker == "":
				t.Errorf("%s:%d: a code block needs <!-- from: FILE --> or <!-- template --> on the line before it", f, b.line)
			case b.marker == "template":
			default:
				src, err := os.ReadFile(filepath.Join("..", b.marker))
				if err != nil {
					t.Errorf("%s:%d: %v", f, b.line, err)
					continue
				}
				if !containsLines(string(src), b.text) {
					t.Errorf("%s:%d: the example is not in %s (or no longer matches it):\n%s", f, b.line, b.marker, b.text)
				}
			}
		}
	}
}

type block struct {
	line   int
	marker string // the from path, "template", or "" when missing
	text   string
}

func blocks(t *testing.T, path string) []block {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		out   []block
		prev  string // the last non-blank line outside a block
		in    bool
		cur   block
		body  []string
		fence string
		n     int
		sc    = bufio.NewScanner(f)
	)
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if !in && strings.HasPrefix(trimmed, "```") {
			in, fence, body = true, trimmed[:3], nil
			cur = block{line: n}
			if m := marker.FindStringSubmatch(prev); m != nil {
				cur.marker = m[1]
				if m[2] != "" {
					cur.marker = m[2]
				}
			}
			continue
		}
		if in {
			if trimmed == fence {
				in = false
				cur.text = strings.Join(body, "\n")
				out = append(out, cur)
				prev = ""
				continue
			}
			body = append(body, line)
			continue
		}
		if trimmed != "" {
			prev = trimmed
		}
	}
	return out
}

// containsLines reports whether the lines of want appear in src one after
// the other, each compared without its surrounding blank space.
func containsLines(src, want string) bool {
	norm := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			out = append(out, strings.TrimSpace(l))
		}
		for len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1]
		}
		for len(out) > 0 && out[0] == "" {
			out = out[1:]
		}
		return out
	}
	s, w := norm(src), norm(want)
	if len(w) == 0 {
		return true
	}
	for i := 0; i+len(w) <= len(s); i++ {
		ok := true
		for j := range w {
			if s[i+j] != w[j] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
