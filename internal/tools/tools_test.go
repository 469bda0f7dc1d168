package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mm-agent/mm/orchestrator"
)

var (
	_ orchestrator.Tool = (*bashTool)(nil)
	_ orchestrator.Tool = (*readTool)(nil)
	_ orchestrator.Tool = (*writeTool)(nil)
	_ orchestrator.Tool = (*editTool)(nil)
	_ orchestrator.Tool = Tool(nil)
)

// tool returns the built-in named name, rooted at dir.
func tool(t *testing.T, name, dir string) Tool {
	t.Helper()
	ts, err := Builtin([]string{name}, dir)
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}

// args marshals v as a tool's input.
func args(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func TestBuiltin(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		want  []string
		err   string
	}{
		{"nil is all", nil, Names, ""},
		{"empty is none", []string{}, []string{}, ""},
		{"subset in given order", []string{"edit_file", "bash"}, []string{"edit_file", "bash"}, ""},
		{"unknown", []string{"bash", "grep"}, nil,
			`unknown tool "grep" (want one of bash, read_file, write_file, edit_file)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts, err := Builtin(tc.names, t.TempDir())
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tl := range ts {
				d := tl.Def()
				got = append(got, d.Name)
				var s struct {
					Type       string                     `json:"type"`
					Properties map[string]json.RawMessage `json:"properties"`
					Required   []string                   `json:"required"`
				}
				if err := json.Unmarshal(d.Parameters, &s); err != nil {
					t.Fatalf("%s schema: %v", d.Name, err)
				}
				if s.Type != "object" || len(s.Required) == 0 || len(s.Required) != len(s.Properties) {
					t.Errorf("%s schema = %s", d.Name, d.Parameters)
				}
				if d.Description == "" {
					t.Errorf("%s has no description", d.Name)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("names = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestArgumentErrors(t *testing.T) {
	tests := []struct {
		tool, input, want string
	}{
		{"bash", `{"command":`, "error: invalid arguments: malformed JSON: "},
		{"bash", `[1,2]`, "error: invalid arguments: want a JSON object, got array"},
		{"bash", `{"command": 5}`, `error: invalid arguments: "command" must be a string, not number`},
		{"bash", `{}`, `error: missing "command"`},
		{"bash", ``, `error: missing "command"`},
		{"bash", `null`, `error: missing "command"`},
		{"bash", `{"command": ""}`, `error: missing "command"`},
		{"read_file", `{}`, `error: missing "path"`},
		{"read_file", `{"path": null}`, `error: missing "path"`},
		{"write_file", `{"content": "x"}`, `error: missing "path"`},
		{"write_file", `{"path": "a"}`, `error: missing "content"`},
		{"edit_file", `{"old": "a", "new": "b"}`, `error: missing "path"`},
		{"edit_file", `{"path": "a", "new": "b"}`, `error: missing "old"`},
		{"edit_file", `{"path": "a", "old": "b"}`, `error: missing "new"`},
		{"edit_file", `{"path": "a", "old": "", "new": "b"}`, `error: "old" is empty`},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.input, func(t *testing.T) {
			got := tool(t, tc.tool, t.TempDir()).Run(context.Background(), json.RawMessage(tc.input)).Output
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want prefix %q", got, tc.want)
			}
		})
	}
}

func TestDoubleEncodedArguments(t *testing.T) {
	in := args(`{"command": "echo hi"}`) // a JSON string holding the object
	got := tool(t, "bash", t.TempDir()).Run(context.Background(), in).Output
	if got != "hi\n[exit status 0]" {
		t.Errorf("got %q", got)
	}
}

func TestCapBufferKeepsCharacters(t *testing.T) {
	var b capBuffer
	euro := "€" // 3 bytes
	for b.total < 3*bashCap {
		b.Write([]byte(euro))
	}
	s := b.String()
	for _, part := range strings.Split(s, "\n") {
		if strings.HasPrefix(part, "[…") {
			continue
		}
		if strings.Trim(part, euro) != "" {
			t.Fatalf("broken character in %q…", part[:12])
		}
	}
}

// alive reports whether pid is a live process, as kill -0 sees it. A zombie
// counts as dead: where PID 1 does not reap orphans (some containers), a
// killed background child stays a zombie for good.

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", []byte("hello\nworld\n"))
	write("empty.txt", nil)
	write("bin", append([]byte("ELF"), 0, 1, 2))
	big := strings.Repeat("0123456789abcde\n", 20000) // 320000 bytes
	write("big.txt", []byte(big))
	lateNUL := append([]byte(strings.Repeat("x", 9000)), 0)
	write("late-nul.txt", lateNUL)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, path, want string
	}{
		{"relative", "a.txt", "hello\nworld\n"},
		{"absolute", filepath.Join(dir, "a.txt"), "hello\nworld\n"},
		{"empty", "empty.txt", ""},
		{"binary", "bin", "error: bin is a binary file (6 bytes)"},
		{"NUL after the sniffed part", "late-nul.txt", string(lateNUL)},
		{"truncated", "big.txt", big[:readCap] + "[… truncated: 320000 bytes in all]"},
		{"missing", "nope.txt", "error: read: nope.txt: no such file or directory"},
		{"directory", "sub", "error: read: sub: is a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tool(t, "read_file", dir).Run(context.Background(), args(map[string]string{"path": tc.path})).Output
			if got != tc.want {
				t.Errorf("got %q, want %q", clip(got), clip(tc.want))
			}
		})
	}
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:40] + "…" + s[len(s)-40:]
	}
	return s
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "old.txt"), []byte("old contents that are long"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, content, want string
		check                     string // path to read back, relative to dir
	}{
		{"new", "new.txt", "hi\n", "wrote 3 bytes to new.txt", "new.txt"},
		{"replaces", "old.txt", "short", "wrote 5 bytes to old.txt", "old.txt"},
		{"creates parents", "a/b/c.txt", "deep", "wrote 4 bytes to a/b/c.txt", "a/b/c.txt"},
		{"empty content", "empty.txt", "", "wrote 0 bytes to empty.txt", "empty.txt"},
		{"absolute", filepath.Join(dir, "abs.txt"), "x", "wrote 1 bytes to " + filepath.Join(dir, "abs.txt"), "abs.txt"},
		{"parent is a file", "file/x.txt", "x", "error: write: file/x.txt: not a directory", ""},
		{"path is a directory", "a", "x", "error: write: a: is a directory", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tool(t, "write_file", dir).Run(context.Background(),
				args(map[string]string{"path": tc.path, "content": tc.content})).Output
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if tc.check == "" {
				return
			}
			b, err := os.ReadFile(filepath.Join(dir, tc.check))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.content {
				t.Errorf("file holds %q, want %q", b, tc.content)
			}
		})
	}
}

func TestEditFile(t *testing.T) {
	const orig = "alpha\nbeta\ngamma\nbeta\n"
	tests := []struct {
		name, old, new, want, after string
	}{
		{"once", "gamma", "GAMMA", "edited f.txt", "alpha\nbeta\nGAMMA\nbeta\n"},
		{"with context", "beta\ngamma", "b\ng", "edited f.txt", "alpha\nb\ng\nbeta\n"},
		{"delete", "alpha\n", "", "edited f.txt", "beta\ngamma\nbeta\n"},
		{"not found", "delta", "x", "error: old text not found in f.txt", orig},
		{"ambiguous", "beta", "x", "error: old text occurs 2 times in f.txt; give more context so it occurs once", orig},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f.txt")
			if err := os.WriteFile(p, []byte(orig), 0o600); err != nil {
				t.Fatal(err)
			}
			got := tool(t, "edit_file", dir).Run(context.Background(),
				args(map[string]string{"path": "f.txt", "old": tc.old, "new": tc.new})).Output
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.after {
				t.Errorf("file holds %q, want %q", b, tc.after)
			}
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("mode changed: %v %v", fi.Mode(), err)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		got := tool(t, "edit_file", t.TempDir()).Run(context.Background(),
			args(map[string]string{"path": "nope.txt", "old": "a", "new": "b"})).Output
		if want := "error: edit: nope.txt: no such file or directory"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}
