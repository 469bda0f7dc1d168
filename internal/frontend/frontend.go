// Package frontend is what every front end (line mode, -p, the window, the
// editor) gets of an agent — the agent, its relays, its config and how to
// open a session (App, built by internal/agent) — and what they have in
// common: the slash commands (Parse), /ask… and what its outcome says, the
// footer that ends a turn, the titles of tool calls. Front ends show a
// turn; they never run hooks or relays themselves — those sit behind
// orchestrator and relay — and they never read an outcome from its text:
// statuses and agent paths are typed.
package frontend

import (
	"context"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// App is one agent as a front end drives it. It is built by
// internal/agent, the one place where an agent is put together from its
// config; a front end knows agents only through App and the orchestrator's
// interfaces, never the types behind them (child processes, remote
// agents, MCP servers).
type App struct {
	Config *config.Config
	Agent  *orchestrator.Agent
	// Relay is nil when the config has no mmConfigs.
	Relay *relay.Relay
	// Banner is the start-up line (line mode and the window).
	Banner string
	// Dir is the session's directory.
	Dir string
	// OpenSession starts a session whose history is kept in the session
	// file at path (loaded if it exists); "" keeps it in memory only.
	OpenSession func(path string) (*orchestrator.Session, error)
	// In is the same agent working in dir (an editor session's cwd): its
	// tools, hooks, @path lines and asked agents work there, and its AGENTS.md is dir's;
	// the model client and the config's MCP servers are shared, and
	// servers (the editor's, by name) are started for it alone. What it
	// starts ends with its Close, not with this one's.
	In func(ctx context.Context, dir string, servers map[string]config.MCPServer) (*App, error)
	// Close ends everything the agent started: asked agents' processes,
	// MCP servers, remote connections, the hooks log, session files.
	Close func()
}

// Ask runs an /ask… command line (via: command) in session s: the asked
// agent's events go to show as they happen; the exchange enters the
// history as the question sent, then "[<agent>'s answer]" with the answer;
// the asked agent's consent questions are put to consent (the front end's,
// as for its own turns);
// a denied or failed relay leaves the history unchanged (an answer cut
// off enters with its marker). The caller says
// what went wrong from the result: Denied (print relay.DeniedError),
// Status Cancelled, or Err; the error is for a command that could not run
// (or an exchange that could not be saved).
func (a *App) Ask(ctx context.Context, s *orchestrator.Session, line string, show func(orchestrator.Event), consent orchestrator.Consent) (relay.Result, error) {
	name, question, withContext, _ := ParseAsk(line)
	if a.Relay == nil {
		return relay.Result{}, ErrNoAgents
	}
	if name == "" || question == "" {
		return relay.Result{}, ErrAskUsage
	}
	req := relay.Request{Agent: name, Question: question, WithContext: withContext, Via: relay.ViaCommand, Show: show, Consent: consent}
	if withContext {
		req.Transcript = s.Transcript()
	}
	res := a.Relay.Ask(ctx, req)
	if !res.Denied && (res.Err == nil && res.Status == relay.Answered || res.Status == relay.CutOff) {
		if err := s.AddExchange(name, res.Sent, res.Answer); err != nil {
			return res, &NotKeptError{err}
		}
	}
	return res, nil
}

// NotKeptError is an exchange that could not be written to the session
// file: the conversation was not kept (line mode exits 1 for it).
type NotKeptError struct{ Err error }

func (e *NotKeptError) Error() string { return "session file: " + e.Err.Error() }
func (e *NotKeptError) Unwrap() error { return e.Err }
