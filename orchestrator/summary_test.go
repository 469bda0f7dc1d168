package orchestrator

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	long := strings.Repeat("x", 70)
	tests := []struct {
		name, tool, input, want string
	}{
		{"command", "bash", `{"command": "ls -la"}`, "ls -la"},
		{"path", "read_file", `{"path": "main.go"}`, "main.go"},
		{"url", "fetch", `{"url": "https://example.com"}`, "https://example.com"},
		{"agent", "ask_agent", `{"agent": "reviewer", "prompt": "look"}`, "reviewer"},
		{"command before path", "x", `{"path": "p", "command": "c"}`, "c"},
		{"empty skipped", "x", `{"command": "  ", "path": "p"}`, "p"},
		{"non-string skipped", "x", `{"command": 5, "path": "p"}`, "p"},
		{"multi-line", "bash", `{"command": "cd src &&\n\tgo test   ./...\n"}`, "cd src && go test ./..."},
		{"exactly 60", "bash", `{"command": "` + long[:60] + `"}`, long[:60]},
		{"61 cut", "bash", `{"command": "` + long[:61] + `"}`, long[:59] + "…"},
		{"runes not bytes", "bash", `{"command": "` + strings.Repeat("é", 61) + `"}`, strings.Repeat("é", 59) + "…"},
		{"another tool: its first string", "every_echo", `{"n": 3, "message": "hello\n  there", "z": "not this"}`, "hello there"},
		{"another tool: blank strings skipped", "x", `{"a": " ", "b": ["list"], "c": "c"}`, "c"},
		{"none", "x", `{"n": 3, "o": {"s": "nested"}}`, ""},
		{"invalid JSON", "x", `{"command": `, ""},
		{"empty input", "x", ``, ""},
		{"double-encoded", "bash", `"{\"command\": \"pwd\"}"`, "pwd"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Summary(json.RawMessage(tc.input)); got != tc.want {
				t.Errorf("Summary = %q, want %q", got, tc.want)
			}
		})
	}
}
