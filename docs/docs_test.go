// Package docs holds mm's documentation; its tests keep the examples true.
package docs

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// Every fenced block of the repository's Markdown files (README.md, docs/,
// demos/, bench/, …) is an example, and the comment on the line before its
// fence says what checks it. The forms, paths from the repository root:
//
//	<!-- from: FILE -->
//	    The block is FILE, whole. When FILE is an end-to-end script
//	    (cmd/mm/testdata/script/*.txtar), the block is one of the script's
//	    files, whole, and the script's commands use that file: an output it
//	    compares (cmp stdout want-x), an input it gives (stdin in.json), a
//	    config it runs, commands it runs (exec sh run.sh).
//	<!-- excerpt from: FILE -->
//	    The block is consecutive lines of FILE (or of one of a script's
//	    files, as above), each line whole, indented alike (the block may
//	    shift all of them by the same amount). For the part of a config, a
//	    hook or an output the text is about.
//	<!-- shape of: COMMAND -->
//	    Output whose figures depend on the machine (benchmarks): the test
//	    runs COMMAND (go run ./bench/<name> with fewer rounds than the
//	    page's) from the repository root and compares its lines with the
//	    block's, every figure (a number, with its unit of time) read as "#"
//	    and runs of spaces as one: the same lines, the same labels, in the
//	    same order.
//	<!-- run by: FILE -->
//	    The block's commands are run as they are written: each of its lines
//	    is a line of FILE (a script such as .ci/run), or FILE is a Go test
//	    that finds the block by this very marker and runs it.
//	<!-- checked by: FILE -->
//	    FILE is a Go test that finds the block by this very marker and
//	    compares it, whole, with what it got (README.md's demo output).
//	<!-- run by: the next block -->
//	    A command whose output the next block, a "shape of" block, shows:
//	    its COMMAND runs the same program, with fewer rounds.
//	<!-- template -->
//	    Not an example: a sketch of a syntax, with placeholders.
//	<!-- not run: REASON -->
//	    A command no test can run, and why (it needs the network, a GPU, a
//	    real model server).
//
// So, to show a new example: write it in a script's file (a want-x the
// script compares, a config or an input it uses), paste it into the page,
// and put <!-- from: cmd/mm/testdata/script/<script>.txtar --> above it.
var marker = regexp.MustCompile(`^<!-- (.+?) -->$`)

// A block is one fenced block of a Markdown file.
type block struct {
	file   string // from the repository root
	line   int    // of the opening fence
	marker string // the marker's text, "" when there is none
	lines  []string
}

func (b block) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

func (b block) text() string { return strings.Join(b.lines, "\n") }

// root is the repository's root, from this package's directory.
const root = ".."

func TestExamplesAreChecked(t *testing.T) {
	all := markdownBlocks(t)
	if len(all) < 100 {
		t.Fatalf("found %d code blocks: is the repository root %s?", len(all), root)
	}
	for i, b := range all {
		if err := check(b, all, i); err != nil {
			t.Errorf("%s: %v", b, err)
		}
	}
}

// check says what is wrong with block all[i], or nil.
func check(b block, all []block, i int) error {
	kind, arg, _ := strings.Cut(b.marker, ": ")
	switch {
	case b.marker == "":
		return fmt.Errorf("a code block needs a comment on the line before it that says what checks it, such as <!-- from: cmd/mm/testdata/script/<script>.txtar --> (the forms are in docs/README.md#examples-in-these-pages)")
	case b.marker == "template":
		return nil
	case kind == "not run":
		if strings.TrimSpace(arg) == "" {
			return fmt.Errorf("<!-- not run: REASON --> needs its reason")
		}
		return nil
	case kind == "from":
		return checkFrom(b, arg, false)
	case kind == "excerpt from":
		return checkFrom(b, arg, true)
	case kind == "run by" && arg == "the next block":
		if i+1 >= len(all) || all[i+1].file != b.file || !strings.HasPrefix(all[i+1].marker, "shape of: ") {
			return fmt.Errorf("<!-- run by: the next block --> is for the command of a <!-- shape of: COMMAND --> block, which does not follow")
		}
		_, err := shapeCommand(all[i+1], all, i+1)
		return err
	case kind == "run by":
		return checkRunBy(b, arg)
	case kind == "checked by":
		return checkByMarker(b, arg)
	case kind == "shape of":
		if _, err := shapeCommand(b, all, i); err != nil {
			return err
		}
		return nil
	}
	return fmt.Errorf("unknown marker <!-- %s --> (the forms are in docs/README.md#examples-in-these-pages)", b.marker)
}

func checkFrom(b block, path string, excerpt bool) error {
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		return err
	}
	what := "is not " + path + " whole"
	if excerpt {
		what = "is not in " + path
	}
	if !strings.HasSuffix(path, ".txtar") {
		if match(b.lines, lines(string(data)), excerpt) {
			return nil
		}
		return fmt.Errorf("the example %s (or no longer matches it):\n%s", what, b.text())
	}
	ar := txtar.Parse(data)
	for _, f := range ar.Files {
		content := string(f.Data)
		if usedBy(ar, f.Name, "cmpenv") {
			content = strings.ReplaceAll(content, "$$", "$")
		}
		if !match(b.lines, lines(content), excerpt) {
			continue
		}
		if !usedBy(ar, f.Name, "") {
			return fmt.Errorf("the example is %s's file %s, which none of the script's commands uses: compare the output with it (cmp stdout %s), or give it as an input", path, f.Name, f.Name)
		}
		return nil
	}
	what = "is none of " + path + "'s files whole"
	if excerpt {
		what = "is in none of " + path + "'s files"
	}
	return fmt.Errorf("the example %s (or no longer matches it):\n%s", what, b.text())
}

// usedBy reports whether the script's commands (its comment lines aside)
// use file: name it (by its path or its base name), or name a file of the
// archive that names it, and so on; an agent.yaml is also used by an mm
// started in its directory without -c. With cmd, whether a command of that
// name names it directly.
func usedBy(ar *txtar.Archive, file, cmd string) bool {
	var script []string
	for _, l := range strings.Split(string(ar.Comment), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			script = append(script, l)
		}
	}
	if cmd != "" {
		for _, l := range script {
			if slices.Contains(strings.Fields(l), cmd) && names(l, file) {
				return true
			}
		}
		return false
	}
	text := map[string]string{"": strings.Join(script, "\n")}
	for _, f := range ar.Files {
		text[f.Name] = string(f.Data)
	}
	used, todo := map[string]bool{"": true}, []string{""}
	for len(todo) > 0 {
		from := todo[0]
		todo = todo[1:]
		for _, f := range ar.Files {
			if !used[f.Name] && names(text[from], f.Name) {
				used[f.Name] = true
				todo = append(todo, f.Name)
			}
		}
	}
	if path.Base(file) == "agent.yaml" && regexp.MustCompile(`(?m)\bexec mm\b`).MatchString(text[""]) {
		return true
	}
	return used[file]
}

// names reports whether text names file by its path or its base name.
func names(text, file string) bool {
	for _, n := range []string{file, path.Base(file)} {
		re := regexp.MustCompile(`(^|[\s'"/=<>|;(${}])` + regexp.QuoteMeta(n) + `($|[\s'"/;)|>:}])`)
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// checkByMarker checks that the Go test path finds block b by its marker.
func checkByMarker(b block, path string) error {
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		return err
	}
	if !strings.HasSuffix(path, "_test.go") || !strings.Contains(string(data), "<!-- "+b.marker+" -->") {
		return fmt.Errorf("%s is not a Go test that reads this block by its marker <!-- %s -->", path, b.marker)
	}
	return nil
}

func checkRunBy(b block, path string) error {
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		return err
	}
	if strings.HasSuffix(path, "_test.go") {
		return checkByMarker(b, path)
	}
	have := map[string]bool{}
	for _, l := range lines(string(data)) {
		have[strings.TrimSpace(l)] = true
	}
	for _, l := range b.lines {
		if l = strings.TrimSpace(l); l != "" && !have[l] {
			return fmt.Errorf("%s neither runs %q nor reads this block by its marker", path, l)
		}
	}
	return nil
}

// match reports whether want is have (trailing blank lines aside) or, for
// an excerpt, consecutive lines of have with one indentation added to all.
func match(want, have []string, excerpt bool) bool {
	want, have = trimBlank(want), trimBlank(have)
	if !excerpt {
		return slices.Equal(want, have)
	}
	if len(want) == 0 {
		return false
	}
	first := 0
	for strings.TrimSpace(want[first]) == "" {
		first++
	}
	for i := 0; i+len(want) <= len(have); i++ {
		indent, ok := strings.CutSuffix(have[i+first], want[first])
		if !ok || strings.TrimSpace(indent) != "" {
			continue
		}
		same := true
		for j, w := range want {
			h := have[i+j]
			if strings.TrimSpace(w) == "" {
				same = strings.TrimSpace(h) == ""
			} else {
				same = h == indent+w
			}
			if !same {
				break
			}
		}
		if same {
			return true
		}
	}
	return false
}

func trimBlank(ls []string) []string {
	for len(ls) > 0 && strings.TrimSpace(ls[len(ls)-1]) == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

// markdownBlocks returns the fenced blocks of every Markdown file of the
// repository but the npm packages' and the test data's.
func markdownBlocks(t *testing.T) []block {
	t.Helper()
	var out []block
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "testdata", "dist":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".md") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		bs, err := blocks(path, filepath.ToSlash(rel))
		out = append(out, bs...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// blocks reads the fenced blocks of one file, each with the marker on the
// last non-blank line before its fence and its lines without the fence's
// indentation.
func blocks(path, name string) ([]block, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		out    []block
		prev   string // the last non-blank line outside a block
		in     bool
		cur    block
		fence  string
		indent int
		n      int
		sc     = bufio.NewScanner(f)
	)
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if !in && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			in, fence = true, trimmed[:3]
			indent = len(line) - len(strings.TrimLeft(line, " "))
			cur = block{file: name, line: n}
			if m := marker.FindStringSubmatch(prev); m != nil {
				cur.marker = m[1]
			}
			continue
		}
		if in {
			if trimmed == fence {
				in = false
				out = append(out, cur)
				prev = ""
				continue
			}
			for i := 0; i < indent && strings.HasPrefix(line, " "); i++ {
				line = line[1:]
			}
			cur.lines = append(cur.lines, line)
			continue
		}
		if trimmed != "" {
			prev = trimmed
		}
	}
	if in {
		return out, fmt.Errorf("%s:%d: the code block is not closed", name, cur.line)
	}
	return out, sc.Err()
}
