package acp

import (
	"fmt"
	"path/filepath"

	"github.com/mm-agent/mm/agentproc"
	"github.com/mm-agent/mm/internal/attach"
	"github.com/mm-agent/mm/internal/frontend"
	"github.com/mm-agent/mm/internal/tools"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// agentFor is app's agent as it works for session s in dir, the session's
// directory (the editor's cwd, not mm's): the reference runs hooks "in the
// session's folder … the cwd of the editor's session in ACP", and the
// built-in tools, @path lines and asked agents must work where the user
// is. The asked agents' processes are the session's own (sup, which the
// caller closes; nil when app's relay does not start processes); the
// model and the MCP servers (started once, in mm's directory) are shared
// with app's agent.
//
// It also makes the session the one that asks for consent, and wraps
// ask_agent so that what an asked agent shows lands in the editor under
// the call that asked it.
func agentFor(app *frontend.App, dir string, s *session) (_ *orchestrator.Agent, sup *agentproc.Supervisor, _ error) {
	a := *app.Agent
	builtin, err := tools.Sandboxed(app.Config.Tools, dir, app.Sandbox)
	if err != nil {
		return nil, nil, fmt.Errorf("tools: %w", err)
	}
	here := map[string]orchestrator.Tool{}
	for _, t := range builtin {
		here[t.Def().Name] = t
	}
	if app.Agent.Hooks != nil {
		h := *app.Agent.Hooks
		h.Cwd = dir
		a.Hooks = &h
	}
	a.Consent = &consent{s: s}
	a.Tools = make([]orchestrator.Tool, len(app.Agent.Tools))
	for i, t := range app.Agent.Tools {
		switch t := t.(type) {
		case *relay.Tool:
			// preAsk and postAsk are this agent's hooks: they run in dir too.
			r := *t.Relay
			r.Hooks, r.Consent = a.Hooks, a.Consent
			if shared, ok := r.Asker.(*agentproc.Supervisor); ok {
				sup = &agentproc.Supervisor{Bin: shared.Bin, Dir: dir, Stderr: shared.Stderr}
				r.Asker = sup
			}
			a.Tools[i] = &askTool{inner: &relay.Tool{Relay: &r}, s: s}
		default:
			if b, ok := here[t.Def().Name]; ok {
				a.Tools[i] = b
			} else {
				a.Tools[i] = t
			}
		}
	}
	if app.Agent.Expand != nil {
		a.Expand = (&attach.Expander{Dir: dir, Skills: skills(app)}).Expand
	}
	return &a, sup, nil
}

// skills are the config's skills as the CLI finds them: the skills/ folder
// next to the config, then the config's skills: entries.
func skills(app *frontend.App) map[string]string {
	out := attach.SkillsIn(filepath.Join(app.Config.Dir, "skills"))
	for name, path := range app.Config.Skills {
		out[name] = path
	}
	return out
}
