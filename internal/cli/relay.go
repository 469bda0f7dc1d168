package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/mm-agent/mm/agentproc"
	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/agent"
	"github.com/mm-agent/mm/internal/frontend"
	"github.com/mm-agent/mm/internal/sessionfile"
	"github.com/mm-agent/mm/internal/termtext"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// askCLI is mm --ask / --ask-with-context (via: cli): the answer on stdout
// — streamed, or held until the postAsk hooks ran when there are any —
// everything else on stderr; exit 1 on a denied or failed relay.
func (a *app) askCLI(ctx context.Context, o *rootOptions) error {
	name, withContext := o.ask, false
	if o.askWithContext != "" {
		name, withContext = o.askWithContext, true
	}
	if a.Relay == nil {
		return &exitError{exitFailure, fmt.Sprintf("[ask: unknown agent %q (this agent has no mmConfigs)]", name)}
	}
	transcript := ""
	if withContext && o.session != "" {
		history, dropped, err := sessionfile.Load(o.session)
		if err != nil {
			return &exitError{exitFailure, "[ask: session file: " + err.Error() + "]"}
		}
		if dropped != nil {
			fmt.Fprintln(a.io.Err, "mm: "+dropped.String())
		}
		transcript = orchestrator.Transcript(history)
	} else if withContext && !a.io.InTTY {
		b, err := io.ReadAll(a.io.In)
		if err != nil {
			return fmt.Errorf("read the conversation from stdin: %w", err)
		}
		transcript = strings.TrimRight(string(b), "\n")
	}
	ctx, stop := signalContext(ctx)
	defer stop()

	hold := len(a.Config.Hooks[hooks.PostAsk]) > 0
	errDisplay := &display{out: a.io.Err, err: a.io.Err, color: false, cfg: a.Config}
	if a.io.InTTY {
		consent := &lineConsent{lines: newTTYLines(a.io.In), out: a.io.Err}
		defer consent.during(errDisplay)()
		a.SetConsent(consent)
	}
	streamed := false
	res := a.Relay.Ask(ctx, relay.Request{
		Agent: name, Question: o.args[0], WithContext: withContext, Transcript: transcript, Via: relay.ViaCLI,
		Show: func(ev orchestrator.Event) {
			if !hold && ev.Kind == orchestrator.Text && slices.Equal(ev.Agent, orchestrator.Path{name}) {
				io.WriteString(a.io.Out, a.onTerminal(ev.Text))
				streamed = streamed || ev.Text != ""
				return
			}
			if ev.Kind == orchestrator.Text || ev.Kind == orchestrator.HookRun {
				return // what nested agents write reaches the asked one's answer
			}
			errDisplay.show(ev)
		},
	})
	errDisplay.done()
	switch {
	case res.Denied:
		return &exitError{exitFailure, "[ask: " + relay.DeniedError(res.Reason) + "]"}
	case res.Status == relay.Cancelled:
		endLine(a.io.Out, streamed)
		return errInterrupted
	case res.Err != nil:
		endLine(a.io.Out, streamed)
		return &exitError{exitFailure, "[ask: " + res.Err.Error() + "]"}
	}
	if hold {
		io.WriteString(a.io.Out, a.onTerminal(res.Answer))
		endLine(a.io.Out, res.Answer != "")
	} else {
		endLine(a.io.Out, streamed)
	}
	return nil
}

// onTerminal is an asked agent's text as stdout gets it: cleaned of
// escape sequences and control characters (termtext.Clean) when stdout is
// a terminal, as it is everywhere mm draws; as it is for a pipe, whose
// reader wants the answer.
func (a *app) onTerminal(s string) string {
	if a.io.OutTTY {
		return termtext.Clean(s)
	}
	return s
}

func endLine(w io.Writer, wrote bool) {
	if wrote {
		io.WriteString(w, "\n")
	}
}

// signalContext is ctx cancelled by Ctrl-C or SIGTERM.
func signalContext(ctx context.Context) (context.Context, func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, stop := cancelOn(ctx, sigs)
	return ctx, func() {
		signal.Stop(sigs)
		stop()
	}
}

// cancelOn is ctx cancelled when a signal arrives on sigs (line mode
// shares one channel between its prompt and its turns).
func cancelOn(ctx context.Context, sigs <-chan os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

func newTTYLines(r io.Reader) *lineReader {
	l := newLineReader(r)
	l.tty = true
	return l
}

// askLine runs an /ask… command of line mode (via: command): the asked
// agent's answer streams labelled; the exchange enters the history as the
// question sent and "[<agent>'s answer]"; a denied or failed relay leaves
// the history unchanged. Its hook runs are not listed (they run outside a
// turn).
func (a *app) askLine(ctx context.Context, s *orchestrator.Session, line string, sigs chan os.Signal, consent *lineConsent) {
	ctx, stop := cancelOn(ctx, sigs)
	defer stop()
	d := newDisplay(a.io, a.Config)
	defer consent.during(d)()
	res, err := a.App.Ask(ctx, s, line, d.show)
	d.done()
	if msg := frontend.AskFailure(line, res, err); msg != "" {
		if err != nil || !res.Denied {
			msg = "mm: " + msg // a denial is the reference's own line
		}
		fmt.Fprintln(a.io.Err, msg)
	}
}

// newCmdServeAgent is the hidden subcommand an asked agent's process runs:
// it serves one agent's config to the mm that started it (agentproc).
func newCmdServeAgent(ios *IOStreams, opts *rootOptions) *cobra.Command {
	return &cobra.Command{
		Use:    agentproc.ServeCommand,
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
					built, err = serveAgent(ios, opts, env, logger)
				}
				if err != nil {
					if logger != nil {
						logger.Error("asked agent could not start", "error", err.Error())
					}
					return brokenAgent(userMessage(err))
				}
				return servedAgent{built}
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
func serveAgent(ios *IOStreams, opts *rootOptions, env agent.Env, logger *slog.Logger) (*agent.Agent, error) {
	cfg, err := config.Load(opts.configPath)
	if err != nil {
		return nil, err
	}
	return agent.New(cfg, agent.Options{Env: env, MCP: true, Version: Version, Notices: ios.Err, Log: logger})
}

// servedAgent runs one fresh turn of its agent per ask.
type servedAgent struct{ *agent.Agent }

func (s servedAgent) Ask(ctx context.Context, prompt string, show func(orchestrator.Event), consent orchestrator.Consent) relay.AskResponse {
	return s.Turn(ctx, prompt, show, consent)
}

// brokenAgent fails every ask with the reason the agent could not start
// (a config error, typically), so the asking agent reads it.
type brokenAgent string

func (b brokenAgent) Ask(context.Context, string, func(orchestrator.Event), orchestrator.Consent) relay.AskResponse {
	return relay.AskResponse{Status: relay.Failed, Error: string(b)}
}
