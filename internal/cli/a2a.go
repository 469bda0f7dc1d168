package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/tools"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
	"github.com/mm-agent/mm/remote"
)

// tokenVar is the variable whose value a served agent requires as its
// bearer token (the contract, "Remote agents (A2A)").
const tokenVar = "MM_A2A_TOKEN"

// askers is the relay's Asker for cfg's agents: each remote one
// ({url:, tokenEnv:}) over A2A, the others as child processes of local.
func askers(cfg *config.Config, local relay.Asker) relay.Asker {
	if len(cfg.RemoteAgents) == 0 {
		return local
	}
	r := &relay.Router{ByAgent: map[string]relay.Asker{}, Default: local}
	for name, ra := range cfg.RemoteAgents {
		a := &remote.Agent{Name: name, URL: ra.URL, TokenEnv: ra.TokenEnv, IdleTimeout: ra.IdleTimeout}
		if ra.TokenEnv != "" {
			a.Token = os.Getenv(ra.TokenEnv)
		}
		r.ByAgent[name] = a
	}
	return r
}

// serveA2A is mm -a2a <host:port>: the config's agent served to other
// machines, one fresh turn per task, until SIGINT or SIGTERM.
func (a *app) serveA2A(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &exitError{exitFailure, fmt.Sprintf("mm -a2a: cannot listen on %s: %s", addr, listenCause(err))}
	}
	ctx, stop := signalContext(ctx)
	defer stop()
	name := agentName(a.Config)
	srv := &remote.Server{
		Agent: &a2aAgent{app: a},
		Card: remote.Card{
			Name: name, Description: agentDescription(a.Config),
			Model: a.Config.Model, Version: Version,
		},
		Token:    os.Getenv(tokenVar),
		MaxDepth: a.Config.MaxAskDepth,
		Log:      a.io.Err,
	}
	auth := "no token required"
	if srv.Token != "" {
		auth = "bearer token required (" + tokenVar + ")"
	}
	fmt.Fprintf(a.io.Err, "mm -a2a: serving %s at http://%s/ · card /.well-known/agent-card.json · %s\n", name, ln.Addr(), auth)
	err = srv.Serve(ctx, ln)
	fmt.Fprintln(a.io.Err, "mm -a2a: stopped")
	return err
}

func listenCause(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	return err.Error()
}

// agentName is the agent's name on its card: name: in the config, else its
// file's name without the extension.
func agentName(cfg *config.Config) string {
	if cfg.Name != "" {
		return cfg.Name
	}
	if cfg.File == "" {
		return "mm"
	}
	base := filepath.Base(cfg.File)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// agentDescription is the card's description: the first line of the
// system instructions (who the agent is), else a generic one.
func agentDescription(cfg *config.Config) string {
	line, _, _ := strings.Cut(strings.TrimSpace(cfg.System), "\n")
	line = strings.TrimSpace(line)
	if len([]rune(line)) > 200 {
		line = string([]rune(line)[:200]) + "…"
	}
	if line == "" {
		return "an mm agent (" + cfg.Model + ")"
	}
	return line
}

// a2aAgent runs one fresh turn of the app's agent per A2A task, at the
// task's depth: its hooks see asked.depth, its relays count from it, and
// what it starts — hooks, commands, children — reads it in MM_ASK_DEPTH.
type a2aAgent struct{ app *app }

func (s *a2aAgent) Turn(ctx context.Context, t remote.Task) relay.AskResponse {
	agent := s.app.agentAt(t.Depth, t.Consent)
	ctx = tools.WithEnv(ctx, agent.Hooks.Env)
	res := orchestrator.NewSession(agent).Generate(ctx, t.Prompt, t.Show)
	return turnResponse(res)
}

// agentAt is the app's agent as an agent asked at depth sees it, with
// consent put through c. The app's own agent is left as it is: tasks of
// different depths run at once.
func (a *app) agentAt(depth int, c orchestrator.Consent) *orchestrator.Agent {
	agent := *a.Agent
	agent.Consent = c
	{
		h := hooks.Runner{}
		if a.Agent.Hooks != nil {
			h = *a.Agent.Hooks
		}
		h.Depth = depth
		h.Env = envWith(os.Environ(), "MM_ASK_DEPTH", strconv.Itoa(depth))
		if a.hooksLog != nil {
			log, errs := a.hooksLog, a.io.Err
			var once sync.Once
			h.Observe = func(run hooks.Run) {
				if err := log.Write(run, depth); err != nil {
					once.Do(func() { fmt.Fprintln(errs, "mm: hooksLog: "+err.Error()) })
				}
			}
		}
		agent.Hooks = &h
	}
	if a.Relay != nil {
		r := *a.Relay
		r.Depth, r.Hooks, r.Consent = depth, agent.Hooks, c
		tools := make([]orchestrator.Tool, len(agent.Tools))
		for i, t := range agent.Tools {
			if _, ok := t.(*relay.Tool); ok {
				t = &relay.Tool{Relay: &r}
			}
			tools[i] = t
		}
		agent.Tools = tools
	}
	return &agent
}

// envWith is env with key set to value.
func envWith(env []string, key, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return append(out, key+"="+value)
}

// turnResponse is how an asked agent's turn ended, typed for the relay.
func turnResponse(res orchestrator.TurnResult) relay.AskResponse {
	switch {
	case res.Err == nil && res.CutOff != "":
		return relay.AskResponse{Status: relay.CutOff, Answer: res.Answer, Error: orchestrator.CutOffError(res.CutOff)}
	case res.Err == nil:
		return relay.AskResponse{Status: relay.Answered, Answer: res.Answer}
	case res.Cancelled():
		return relay.AskResponse{Status: relay.Cancelled, Answer: res.Answer, Error: "cancelled"}
	case errors.Is(res.Err, orchestrator.ErrMaxSteps):
		return relay.AskResponse{Status: relay.MaxSteps, Answer: res.Answer, Error: res.Err.Error()}
	}
	return relay.AskResponse{Status: relay.Failed, Answer: res.Answer, Error: res.Err.Error()}
}
