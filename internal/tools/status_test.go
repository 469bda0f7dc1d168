package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mm-agent/mm/orchestrator"
)

// Every result says how the call went, so front ends never read it from
// the text: a failure is Failed with an "error: " output, a command that
// exits non-zero did its work (its status is in its output), a cancelled
// call is Cancelled.
func TestResultStatus(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name, tool, input string
		ctx               context.Context
		want              orchestrator.Status
	}{
		{"read", "read_file", `{"path":"a.txt"}`, nil, orchestrator.OK},
		{"read a missing file", "read_file", `{"path":"nope.txt"}`, nil, orchestrator.Failed},
		{"bad arguments", "read_file", `[1]`, nil, orchestrator.Failed},
		{"missing argument", "write_file", `{"path":"b.txt"}`, nil, orchestrator.Failed},
		{"write", "write_file", `{"path":"b.txt","content":"x"}`, nil, orchestrator.OK},
		{"edit, old text absent", "edit_file", `{"path":"a.txt","old":"zz","new":"y"}`, nil, orchestrator.Failed},
		{"edit", "edit_file", `{"path":"a.txt","old":"hi","new":"ho"}`, nil, orchestrator.OK},
		{"a command that fails did its work", "bash", `{"command":"exit 3"}`, nil, orchestrator.OK},
		{"bash cancelled", "bash", `{"command":"true"}`, cancelled, orchestrator.Cancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			res := tool(t, tt.tool, dir).Run(ctx, json.RawMessage(tt.input))
			if res.Status != tt.want {
				t.Errorf("status %v, want %v (output %q)", res.Status, tt.want, res.Output)
			}
			if failed := res.Status == orchestrator.Failed || res.Status == orchestrator.Cancelled; failed != (len(res.Output) >= 7 && res.Output[:7] == "error: ") {
				t.Errorf("status %v with output %q: a failure, and only a failure, reads \"error: …\"", res.Status, res.Output)
			}
		})
	}
}
