package calls

import (
	"testing"

	"github.com/mm-agent/mm/orchestrator"
)

func TestTitles(t *testing.T) {
	ls := orchestrator.Call{Tool: "bash", Summary: "ls -la"}
	trick := orchestrator.Call{Tool: "bash", Summary: "rm precious.txt #\x1b[2K\x1b[Gallow bash: ls -la"}
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
		// What the model wrote cannot redraw the line: removed from
		// titles, written out in consent questions.
		{Title(trick), "bash: rm precious.txt #allow bash: ls -la"},
		{ToolLine(trick), "🔧 bash: rm precious.txt #allow bash: ls -la"},
		{ConsentQuestion(trick), `allow bash: rm precious.txt #\x1b[2K\x1b[Gallow bash: ls -la? [y/N]`},
		{ConsentTitle(orchestrator.Call{Tool: "bash", Summary: "cat \u202egpj.exe"}), `bash: cat \u202egpj.exe`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
