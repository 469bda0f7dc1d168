package calls

import (
	"testing"

	"github.com/mm-agent/mm/orchestrator"
)

func TestTitles(t *testing.T) {
	ls := orchestrator.Call{Tool: "bash", Summary: "ls -la"}
	asked := orchestrator.Call{Tool: "bash", Summary: "ls", Agent: orchestrator.Path{"expert", "librarian"}}
	tests := []struct{ got, want string }{
		{Title(ls), "bash: ls -la"},
		{Title(orchestrator.Call{Tool: "bash"}), "bash"},
		{Title(asked), "expert › librarian › bash: ls"},
		{ToolLine(ls), "🔧 bash: ls -la"},
		{DeniedTitle(ls), "bash: ls -la — denied by a hook"},
		{DeniedTitle(orchestrator.Call{Tool: "bash"}), "bash — denied by a hook"},
		{DeniedTitle(orchestrator.Call{Tool: "ask_agent", Summary: "expert"}), "ask_agent: expert — denied by a hook"},
		{ConsentQuestion(asked), "allow expert › librarian › bash: ls? [y/N]"},
		{ToolName(nil, "read_file"), "read_file"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
