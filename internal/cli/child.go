package cli

// The child's side of a local relay: the hidden subcommand an asked
// agent's process runs (agentproc serves it; agentproc.Supervisor, in the
// asking mm, starts it).

import (
	"context"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/mm-agent/mm/agentproc"
	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/internal/agent"
	"github.com/mm-agent/mm/internal/tracing"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

var _ agentproc.Agent = (*agent.Agent)(nil)

// newCmdServeAgent is the hidden subcommand an asked agent's process runs:
// it serves one agent's config to the mm that started it (agentproc).
func newCmdServeAgent(ios *IOStreams, opts *rootOptions) *cobra.Command {
	return &cobra.Command{
		Use:    agentproc.ServeCommand,
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The asking mm exports to the same collector: it says alone
			// that spans were lost.
			tracing.Quiet()
			// Nothing may reach stdout before the handshake: problems are
			// reported to the asking agent as failed asks.
			env, err := agent.ReadEnv(os.Environ(), executable())
			var logger *slog.Logger
			closeLog := func() {}
			if err == nil {
				// The parent gave its log in MM_LOG: the child logs there too.
				var c func()
				if logger, c, err = openLog("", &env); err == nil {
					closeLog = c
				}
			}
			// The config is loaded and the agent built while the parent
			// connects: the handshake goes first (agentproc.Serve).
			var built *agent.Agent
			agentproc.Serve(func() agentproc.Agent {
				if err == nil {
					built, err = serveAgent(cmd.Context(), ios, opts, env, logger)
				}
				if err != nil {
					if logger != nil {
						logger.Error("asked agent could not start", "error", err.Error())
					}
					return brokenAgent(userMessage(err))
				}
				return built
			}, logger, func() {
				if built != nil {
					built.Close()
				}
				closeLog()
			})
			return nil
		},
	}
}

// serveAgent builds the agent an asked agent's process serves.
func serveAgent(ctx context.Context, ios *IOStreams, opts *rootOptions, env agent.Env, logger *slog.Logger) (*agent.Agent, error) {
	cfg, err := config.Load(opts.configPath)
	if err != nil {
		return nil, err
	}
	return agent.New(ctx, cfg, agent.Options{Env: env, MCP: true, Version: Version, Notices: ios.Err, Log: logger})
}

// brokenAgent fails every ask with the reason the agent could not start
// (a config error, typically), so the asking agent reads it.
type brokenAgent string

func (b brokenAgent) Turn(context.Context, string, func(orchestrator.Event), orchestrator.Consent) relay.AskResponse {
	return relay.AskResponse{Status: relay.Failed, Error: string(b)}
}
