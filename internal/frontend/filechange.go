package frontend

import (
	"strings"

	"github.com/mm-agent/mm/internal/filechange"
	"github.com/mm-agent/mm/orchestrator"
)

// FileChange is what call — a write_file or edit_file the front end is
// asked to allow — will change in the session's directory, for the
// consent question; nil for another tool, or for a call of a remote
// agent (or of an agent it asks), whose files are not these.
func (a *App) FileChange(call orchestrator.Call) *filechange.Change {
	switch len(call.Agent) {
	case 0:
	case 1:
		// A local asked agent works in this directory; a remote one does not.
		name, _, _ := strings.Cut(call.Agent[0], "#")
		if _, remote := a.Config.RemoteAgents[name]; remote {
			return nil
		}
	default:
		return nil
	}
	return filechange.Of(call, a.Dir)
}
