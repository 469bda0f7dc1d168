package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/internal/agent"
	"github.com/mm-agent/mm/orchestrator"
)

// The diff a consent question shows is the model's text: an escape
// sequence in a write_file's content is written out (\x1b), so it cannot
// redraw the question the user answers.
func TestConsentPreviewShowsEscapes(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Default(dir)
	built, err := agent.New(context.Background(), cfg, agent.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer built.Close()
	ios, out, _ := TestStreams("n\n")
	c := &lineConsent{lines: newLineReader(ios.In), out: ios.Out, app: built.App}
	path := filepath.Join(dir, "notes.txt")
	call := orchestrator.Call{Tool: "write_file", Summary: path,
		Input: []byte(`{"path":"` + path + `","content":"hi\u001b[2K\u001b[Gallow bash: ls\n"}`)}
	if ok, err := c.Allow(context.Background(), call); ok || err != nil {
		t.Fatalf("Allow = %v, %v", ok, err)
	}
	if strings.Contains(out.String(), "\x1b") || !strings.Contains(out.String(), `hi\x1b[2K\x1b[Gallow bash: ls`) {
		t.Errorf("the question drew:\n%q", out.String())
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("the file was written")
	}
}
