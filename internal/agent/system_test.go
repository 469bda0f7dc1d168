package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/mm-agent/mm/internal/tools"
	"github.com/mm-agent/mm/orchestrator"
)

// The built-in system message says where, on which system and day, and
// gives one line to each tool.
func TestBuiltinSystem(t *testing.T) {
	built, err := tools.New([]string{"bash", "read_file"}, tools.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ts := []orchestrator.Tool{}
	for _, b := range built {
		ts = append(ts, b)
	}
	got := builtinSystem("/work/p", ts, time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC))
	for _, want := range []string{"coding agent working in the directory /work/p", "Today is Friday 4 December 2026.", "\n- bash: Run a shell command", "\n- read_file: Read a text file and return its contents."} {
		if !strings.Contains(got, want) {
			t.Errorf("the system message does not say %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n- "); n != 2 {
		t.Errorf("%d tool lines, want 2:\n%s", n, got)
	}
}
