// Package calls words tool calls for people: the titles, tool lines and
// consent questions that line mode, the window, the editor and a served
// agent's client all show. It is a leaf, so that every front end and the
// remote agents' server take the same words from one place without
// depending on each other.
package calls

import (
	"strings"

	"github.com/mm-agent/mm/internal/termtext"
	"github.com/mm-agent/mm/orchestrator"
)

// The tool calls' titles and lines of the hooks reference ("Affichage";
// preToolCall's deny row, "Effets sur le tour") and of the contract
// ("Line mode display").

// ToolName is a tool as displays name it, after the asked agents a call
// of it comes from: "bash", "expert › bash", "expert › librarian › bash".
// It is the names as they are: Title and ConsentTitle make them safe to
// draw.
func ToolName(agent orchestrator.Path, tool string) string {
	if len(agent) == 0 {
		return tool
	}
	return strings.Join(agent, " › ") + " › " + tool
}

// Title is a call's title, the line-mode tool line without its emoji:
// "bash: ls -la", or the tool alone when the input has no command, path,
// URL or agent; an asked agent's call is named after its agents
// ("expert › bash: ls -la"). The model wrote the summary (and a remote
// agent may name its tools): escape sequences, control characters and
// bidirectional overrides are removed (termtext.Clean), so that a title
// cannot rewrite the line it is drawn on.
func Title(c orchestrator.Call) string { return termtext.Clean(rawTitle(c)) }

// ConsentTitle is the title a consent question shows: Title with each
// character Title would remove written out instead (termtext.Visible:
// "rm x #\x1b[2K…"), so that the user who allows a call sees the whole
// of what runs — text that erases the line and writes "ls -la" over the
// command shows as such.
func ConsentTitle(c orchestrator.Call) string { return termtext.Visible(rawTitle(c)) }

func rawTitle(c orchestrator.Call) string {
	name := ToolName(c.Agent, c.Tool)
	if c.Summary == "" {
		return name
	}
	return name + ": " + c.Summary
}

// ToolLine is line mode's line of a call that starts: "🔧 bash: ls -la".
func ToolLine(c orchestrator.Call) string { return "🔧 " + Title(c) }

// DeniedSuffix ends the title of a call a hook denied, in the window and
// the editor.
const DeniedSuffix = " — denied by a hook"

// DeniedTitle is the title of a call a hook denied: "<tool>: <summary> —
// denied by a hook", or "<tool> — denied by a hook" with no summary.
func DeniedTitle(c orchestrator.Call) string { return Title(c) + DeniedSuffix }

// ConsentQuestion is the question that asks whether call may run, as line
// mode and a served agent's client read it: "allow expert › bash: ls? [y/N]",
// its title as ConsentTitle shows it.
func ConsentQuestion(c orchestrator.Call) string { return "allow " + ConsentTitle(c) + "? [y/N]" }
