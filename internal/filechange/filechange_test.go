package filechange

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mm-agent/mm/orchestrator"
)

// The diff is diff -u's, headers aside.
func TestUnifiedMatchesDiff(t *testing.T) {
	if _, err := exec.LookPath("diff"); err != nil {
		t.Skip("no diff")
	}
	many := func(n int, f func(int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(f(i) + "\n")
		}
		return b.String()
	}
	cases := []struct{ old, new string }{
		{"a\nb\nc\n", "a\nB\nc\n"},
		{"a\n", "a\nb\n"},
		{"x\ny\n", "y\n"},
		{many(30, func(i int) string { return string(rune('a' + i%26)) }), many(30, func(i int) string {
			if i == 3 || i == 25 {
				return "changed"
			}
			return string(rune('a' + i%26))
		})},
		{many(12, func(i int) string { return "l" + string(rune('a'+i)) }), many(12, func(i int) string {
			if i == 4 || i == 8 {
				return "new"
			}
			return "l" + string(rune('a'+i))
		})},
	}
	dir := t.TempDir()
	for _, c := range cases {
		os.WriteFile(filepath.Join(dir, "old"), []byte(c.old), 0o644)
		os.WriteFile(filepath.Join(dir, "new"), []byte(c.new), 0o644)
		out, _ := exec.Command("diff", "-u", filepath.Join(dir, "old"), filepath.Join(dir, "new")).Output()
		want := strings.SplitN(strings.TrimSuffix(string(out), "\n"), "\n", 3)[2]
		got := strings.SplitN(Unified("f", c.old, c.new), "\n", 3)[2]
		if got != want {
			t.Errorf("old %q new %q:\n got:\n%s\nwant:\n%s", c.old, c.new, got, want)
		}
	}
}

func call(tool string, args map[string]string) orchestrator.Call {
	b, _ := json.Marshal(args)
	return orchestrator.Call{Tool: tool, Input: b}
}

func TestOf(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	c := Of(call("edit_file", map[string]string{"path": "notes.txt", "old": "two", "new": "2"}), dir)
	if c == nil || c.Old != "one\ntwo\nthree\n" || c.New != "one\n2\nthree\n" {
		t.Fatalf("edit: %+v", c)
	}
	if got := c.Preview(); got != "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three" {
		t.Errorf("preview:\n%s", got)
	}
	if c := Of(call("edit_file", map[string]string{"path": "notes.txt", "old": "absent", "new": "x"}), dir); c != nil {
		t.Errorf("an edit that cannot apply: %+v", c)
	}
	c = Of(call("write_file", map[string]string{"path": "new.txt", "content": strings.Repeat("line\n", 25)}), dir)
	if c == nil || c.Exists {
		t.Fatalf("new file: %+v", c)
	}
	p := c.Preview()
	if !strings.HasPrefix(p, "new file new.txt: 125 bytes, 25 lines\n+line\n") || strings.Count(p, "\n+line") != 20 || !strings.HasSuffix(p, "\n… 5 more lines") {
		t.Errorf("new file preview:\n%s", p)
	}
	if c := Of(call("bash", map[string]string{"command": "ls"}), dir); c != nil {
		t.Errorf("bash: %+v", c)
	}
}
