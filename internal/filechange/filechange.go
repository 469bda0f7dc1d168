// Package filechange says what a write_file or edit_file call will change
// before it runs, for the consent question: a unified diff against the
// file as it is, or, for a new file, its size and first lines. Line mode
// and the window show it as text; the editor sends the old and new text
// (ACP's diff content), which it draws itself.
package filechange

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mm-agent/mm/orchestrator"
)

// Change is the file a call will write, as it is and as it will be.
type Change struct {
	// Path is the path as the call names it; Abs the file it names.
	Path, Abs string
	// Exists: the file is there; Old is its text ("" when not).
	Exists   bool
	Old, New string
}

// maxRead is the largest file read for a preview: a bigger one is named,
// not diffed.
const maxRead = 4 << 20

// Of is the change call makes to a file of dir, the directory its tool
// works in: nil for another tool, arguments it cannot read, an edit whose
// text is not found exactly once (the tool will fail and change nothing),
// or a file too big to read for a preview.
func Of(call orchestrator.Call, dir string) *Change {
	var args struct {
		Path    string  `json:"path"`
		Content *string `json:"content"`
		Old     *string `json:"old"`
		New     *string `json:"new"`
	}
	if call.Tool != "write_file" && call.Tool != "edit_file" {
		return nil
	}
	if json.Unmarshal(call.Input, &args) != nil || args.Path == "" {
		return nil
	}
	c := &Change{Path: args.Path, Abs: args.Path}
	if !filepath.IsAbs(c.Abs) {
		c.Abs = filepath.Join(dir, c.Abs)
	}
	if st, err := os.Stat(c.Abs); err == nil {
		if !st.Mode().IsRegular() || st.Size() > maxRead {
			return nil
		}
		b, err := os.ReadFile(c.Abs)
		if err != nil {
			return nil
		}
		c.Exists, c.Old = true, string(b)
	}
	switch call.Tool {
	case "write_file":
		if args.Content == nil {
			return nil
		}
		c.New = *args.Content
	case "edit_file":
		if args.Old == nil || args.New == nil || *args.Old == "" || strings.Count(c.Old, *args.Old) != 1 {
			return nil
		}
		c.New = strings.Replace(c.Old, *args.Old, *args.New, 1)
	}
	return c
}

// newFileLines is how many lines of a new file the preview shows.
const newFileLines = 20

// Preview is the change as people read it: for a file that exists, a
// unified diff (--- a/path, +++ b/path, hunks with 3 lines of context),
// "no change" when it stays the same; for a new file, its size and first
// 20 lines.
func (c *Change) Preview() string {
	if !c.Exists {
		lines := splitLines(c.New)
		var b strings.Builder
		fmt.Fprintf(&b, "new file %s: %s, %s", c.Path, plural(len(c.New), "byte"), plural(len(lines), "line"))
		for i, l := range lines {
			if i == newFileLines {
				fmt.Fprintf(&b, "\n… %d more %s", len(lines)-newFileLines, strings.TrimPrefix(plural(len(lines)-newFileLines, "line"), fmt.Sprint(len(lines)-newFileLines)+" "))
				break
			}
			b.WriteString("\n+" + l)
		}
		return b.String()
	}
	if c.Old == c.New {
		return c.Path + ": no change"
	}
	return Unified(c.Path, c.Old, c.New)
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// splitLines are text's lines without their newlines; a last line without
// one counts.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}
