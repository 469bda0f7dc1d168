package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzArgs runs the built-in tools with arbitrary argument bytes, as a model
// may send them: a tool must never panic, and every failure is an output
// starting with "error: " that the model can read.
//
// The file tools really run, in a fresh temporary directory; an input whose
// path (as the tool itself decodes it) would leave that directory is not
// run. bash is only fuzzed up to its argument decoding: an input that
// decodes to a non-empty command is not run, so the fuzzer never executes
// what it invents. The seeds are in testdata/fuzz/FuzzArgs; the first value
// picks the tool (bash, read_file, write_file, edit_file, modulo 4).
func FuzzArgs(f *testing.F) {
	f.Add(uint8(1), []byte(`{"path":"note.txt"}`))
	f.Add(uint8(3), []byte(`{"path":"note.txt","old":"milk","new":"bread"}`))
	f.Fuzz(func(t *testing.T, which uint8, input []byte) {
		name := fuzzed[int(which)%len(fuzzed)]
		dir := t.TempDir()
		seedFiles(t, dir)
		tool, err := Builtin([]string{name}, dir)
		if err != nil {
			t.Fatal(err)
		}
		// The arguments as the tool itself decodes them: the same function
		// into a struct of the same fields, so the path checked below is the
		// path the tool will use.
		var args struct {
			Path    *string `json:"path"`
			Content *string `json:"content"`
			Old     *string `json:"old"`
			New     *string `json:"new"`
		}
		var decodeErr string
		switch name {
		case "read_file":
			var a struct {
				Path *string `json:"path"`
			}
			decodeErr = decode(json.RawMessage(input), &a)
			args.Path = a.Path
		case "write_file":
			var a struct {
				Path    *string `json:"path"`
				Content *string `json:"content"`
			}
			decodeErr = decode(json.RawMessage(input), &a)
			args.Path, args.Content = a.Path, a.Content
		case "edit_file":
			var a struct {
				Path *string `json:"path"`
				Old  *string `json:"old"`
				New  *string `json:"new"`
			}
			decodeErr = decode(json.RawMessage(input), &a)
			args.Path, args.Old, args.New = a.Path, a.Old, a.New
		}

		if name == "bash" {
			var cmd struct {
				Command *string `json:"command"`
			}
			if e := decode(json.RawMessage(input), &cmd); e == "" && cmd.Command != nil && *cmd.Command != "" {
				return // a real command: not run by the fuzzer
			}
			out := tool[0].Run(context.Background(), input).Output
			if !strings.HasPrefix(out, "error: ") {
				t.Fatalf("bash(%q) = %q, want an error: output", input, out)
			}
			return
		}

		full := ""
		if decodeErr == "" && args.Path != nil && *args.Path != "" {
			full = resolve(dir, *args.Path)
			if !inside(dir, full) {
				return // would read or write outside the temporary directory
			}
		}
		var before []byte
		var beforeErr error
		if full != "" {
			before, beforeErr = os.ReadFile(full)
		}

		out := tool[0].Run(context.Background(), input).Output
		if strings.HasPrefix(out, "error: ") {
			if name != "read_file" && full != "" && beforeErr == nil {
				after, _ := os.ReadFile(full)
				if !bytes.Equal(before, after) && name == "edit_file" {
					t.Fatalf("%s(%q) failed (%q) but changed the file", name, input, out)
				}
			}
			return
		}
		if decodeErr != "" {
			t.Fatalf("%s(%q) = %q, but its arguments do not decode: %s", name, input, out, decodeErr)
		}
		switch name {
		case "read_file":
			if beforeErr != nil {
				t.Fatalf("read_file(%q) = %q, but the file cannot be read: %v", input, out, beforeErr)
			}
			if out != string(before) && !strings.Contains(out, "[… truncated: ") {
				t.Fatalf("read_file(%q) = %q, want the file %q", input, out, before)
			}
		case "write_file":
			if !strings.HasPrefix(out, "wrote ") {
				t.Fatalf("write_file(%q) = %q: neither wrote nor error:", input, out)
			}
			after, err := os.ReadFile(full)
			if err != nil || string(after) != *args.Content {
				t.Fatalf("write_file(%q) = %q, file now %q (%v)", input, out, after, err)
			}
		case "edit_file":
			if out != "edited "+*args.Path {
				t.Fatalf("edit_file(%q) = %q: neither edited nor error:", input, out)
			}
			after, err := os.ReadFile(full)
			if err != nil || strings.Count(string(before), *args.Old) != 1 ||
				string(after) != strings.Replace(string(before), *args.Old, *args.New, 1) {
				t.Fatalf("edit_file(%q) = %q: file was %q, now %q (%v)", input, out, before, after, err)
			}
		}
	})
}

// fuzzed are the tools FuzzArgs knows how to run harmlessly, in the order
// the seeds' first value counts them; a tool added to Names is not fuzzed
// until this test learns how to confine it.
var fuzzed = []string{"bash", "read_file", "write_file", "edit_file"}

// seedFiles puts in dir the files the seeds name: text, a repeated line, a
// binary file and a directory.
func seedFiles(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"note.txt":        "remember the milk\n",
		"dup.txt":         "same\nsame\n",
		"bin.dat":         "ab\x00cd",
		"sub/nested.go":   "package sub\n\nfunc F() int { return 1 }\n",
		"utf8 é name.txt": "héllo wörld\n",
		"empty.txt":       "",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// inside reports whether path is dir or under it.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
