package agent

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/internal/sandbox"
)

// An editor session in another folder: its hooks run there, so what they
// name relative to it is protected there, for bash's mounts and for the
// file tools, though mm started elsewhere.
func TestInProtectsTheSessionFolder(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("MM_REQUIRE_ALL") != "" {
			t.Fatal("bwrap is missing and MM_REQUIRE_ALL is set: apt-get install bubblewrap")
		}
		t.Skip("bwrap is not installed (apt-get install bubblewrap)")
	}
	start, _ := filepath.EvalSymlinks(t.TempDir())
	session, _ := filepath.EvalSymlinks(t.TempDir())
	write(t, filepath.Join(start, ".mm", "agent.yaml"), "model: llmman/test\nsandbox: workspace\nhooks:\n  preToolCall:\n    - command: sh tools/check.sh\n")
	check := filepath.Join(session, "tools", "check.sh")
	write(t, check, "cat >/dev/null\n")
	cfg, err := config.Load(filepath.Join(start, ".mm", "agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), cfg, Options{Dir: start})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if slices.Contains(a.box.Protected(start), check) {
		t.Fatalf("mm's own folder protects %s", check)
	}
	b, err := a.In(context.Background(), session, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !slices.Contains(b.box.Protected(session), check) {
		t.Errorf("the session's protected paths %q lack %s", b.box.Protected(session), check)
	}
	var pe *sandbox.ProtectedError
	if err := b.box.Files(session).Check(check); !errors.As(err, &pe) {
		t.Errorf("write_file on %s: %v, want it protected", check, err)
	}
}
