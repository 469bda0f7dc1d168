package acp

import (
	"encoding/json"
	"path/filepath"

	"github.com/coder/acp-go-sdk"

	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/termtext"
	"github.com/mm-agent/mm/orchestrator"
)

// The editor's titles of the hooks reference ("Affichage", the éditeur
// (-acp) row); the tool calls' own are calls.Title and
// calls.DeniedTitle, as in the window.

// hookTitle is a hook run's title, the displayHooks line without its
// number: "🪝 <event> [<tool or agent>] · <command> → <decision>", cleaned
// of what a title must not carry (termtext.Clean): a hook's reason is the
// hook's text, and a denied call's the model's.
func hookTitle(r hooks.Run) string {
	target := ""
	if r.Target != "" {
		target = " [" + r.Target + "]"
	}
	return termtext.Clean("🪝 " + string(r.Event) + target + " · " + r.Label() + " → " + r.Decision)
}

// kindOf is the ACP kind of a tool, so the editor picks its icon.
func kindOf(tool string) acp.ToolKind {
	switch tool {
	case "bash":
		return acp.ToolKindExecute
	case "read_file":
		return acp.ToolKindRead
	case "write_file", "edit_file":
		return acp.ToolKindEdit
	}
	return acp.ToolKindOther
}

// rawInput is a call's arguments for the editor, as the tool runs with
// them; nil (left out) when there are none.
func rawInput(input json.RawMessage) any {
	if len(input) == 0 {
		return nil
	}
	if !json.Valid(input) {
		return string(input)
	}
	return input
}

// locations are the files a file tool works on, absolute, so the editor
// can follow the agent; nil for other tools.
func locations(call orchestrator.Call, dir string) []acp.ToolCallLocation {
	switch call.Tool {
	case "read_file", "write_file", "edit_file":
	default:
		return nil
	}
	var args struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(call.Input, &args) != nil || args.Path == "" {
		return nil
	}
	p := args.Path
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return []acp.ToolCallLocation{{Path: filepath.Clean(p)}}
}

func textContent(s string) acp.ToolCallContent { return acp.ToolContent(acp.TextBlock(s)) }
