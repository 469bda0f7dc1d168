package tui

import (
	"strings"
	"testing"

	"github.com/mm-agent/mm/orchestrator"
)

// The dialog shows what a file call will change, cut to maxPreview lines
// with a count of the rest.
func TestDialogPreview(t *testing.T) {
	var long []string
	for range 30 {
		long = append(long, "+x")
	}
	reqs := []*consentReq{{call: orchestrator.Call{Tool: "write_file", Summary: "f.txt"}, preview: "new file f.txt: 90 bytes, 30 lines\n" + strings.Join(long[:20], "\n") + "\n… 10 more lines"}}
	text := strings.Join(dialog(newStyles(), reqs, 60), "\n")
	if !strings.Contains(text, "new file f.txt: 90 bytes, 30 lines") || !strings.Contains(text, "… 20 more lines") {
		t.Errorf("dialog:\n%s", text)
	}
	if n := strings.Count(text, "+x"); n != maxPreview-2 {
		t.Errorf("%d lines of the file, want %d:\n%s", n, maxPreview-2, text)
	}
}

// The file's text in the dialog is the model's: an escape sequence in it
// is shown, not drawn (it could redraw the question above it).
func TestDialogPreviewShowsEscapes(t *testing.T) {
	reqs := []*consentReq{{call: orchestrator.Call{Tool: "write_file", Summary: "f.txt"},
		preview: "new file f.txt: 20 bytes, 1 line\n+x\x1b[2K\x1b[Gallow bash: ls"}}
	text := strings.Join(dialog(newStyles(), reqs, 80), "\n")
	if strings.Contains(text, "\x1b[2K") || !strings.Contains(text, `+x\x1b[2K\x1b[Gallow bash: ls`) {
		t.Errorf("dialog:\n%q", text)
	}
}
