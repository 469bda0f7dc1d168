package sessionfile

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mm-agent/mm/internal/model"
)

// The "shown" record goes with the tool message before it: Open gives it
// back aligned with the history, through a compaction too; the history
// itself is what it would be without the record (an older mm, which skips
// the record type, reads the same history).
func TestShownRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	f, _, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	call := model.ToolCall{ID: "call_1", Type: "function", Function: model.FunctionCall{Name: "bash", Arguments: `{"command":"ls"}`}}
	turn := []model.Message{
		{Role: "user", Content: "list"},
		{Role: "assistant", ToolCalls: []model.ToolCall{call}},
		{Role: "tool", ToolCallID: "call_1", Content: "a.txt\n\n[context added by a hook]\nmore"},
		{Role: "assistant", Content: "One file."},
	}
	shown := &Shown{Title: "bash: ls", Content: []string{"a.txt"}}
	if err := f.AppendTurnShown(turn, []*Shown{nil, nil, shown}); err != nil {
		t.Fatal(err)
	}
	if err := f.AppendTurn([]model.Message{{Role: "user", Content: "again"}, {Role: "assistant", Content: "Yes."}}); err != nil {
		t.Fatal(err)
	}
	f.Close()

	f, history, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]model.Message{}, turn...), model.Message{Role: "user", Content: "again"}, model.Message{Role: "assistant", Content: "Yes."})
	if len(history) != len(want) {
		t.Fatalf("history %+v, want %+v", history, want)
	}
	for i := range want {
		if history[i].Role != want[i].Role || history[i].Content != want[i].Content || len(history[i].ToolCalls) != len(want[i].ToolCalls) {
			t.Fatalf("message %d: %+v, want %+v", i, history[i], want[i])
		}
	}
	got := f.Shown()
	if len(got) != len(history) || !reflect.DeepEqual(got[2], shown) || got[0] != nil || got[3] != nil || got[5] != nil {
		t.Fatalf("shown %+v, want the record on message 2 only", got)
	}
	// Keep the last four messages: the tool message stays, after the
	// summary and its acknowledgement.
	if err := f.AppendCompaction("the summary", 4); err != nil {
		t.Fatal(err)
	}
	f.Close()
	f, history, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got = f.Shown()
	if len(history) != 6 || len(got) != 6 || history[2].Role != "tool" || !reflect.DeepEqual(got[2], shown) {
		t.Fatalf("after compaction: history %+v, shown %+v", history, got)
	}
	b, _ := os.ReadFile(path)
	if n := strings.Count(string(b), `"type":"shown"`); n != 1 {
		t.Fatalf("%d shown records in the file, want 1:\n%s", n, b)
	}
}
