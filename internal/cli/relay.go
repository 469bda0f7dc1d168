package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/mm-agent/mm/hooks"
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
	var consent orchestrator.Consent // nil with no terminal: no one to ask
	if a.io.InTTY {
		c := &lineConsent{lines: newTTYLines(a.io.In), out: a.io.Err, app: a.App}
		defer c.during(errDisplay)()
		consent = c
	}
	streamed := false
	// open: the streamed text does not end its line. A tool call ends it
	// ("Let me look." then the call, then the answer on a line of its
	// own), so the last lines of stdout are the answer, as when held.
	open := false
	res := a.Relay.Ask(ctx, relay.Request{
		Agent: name, Question: o.args[0], WithContext: withContext, Transcript: transcript, Via: relay.ViaCLI, Consent: consent,
		Show: func(ev orchestrator.Event) {
			if !hold && ev.Kind == orchestrator.Text && slices.Equal(ev.Agent, orchestrator.Path{name}) {
				io.WriteString(a.io.Out, a.onTerminal(ev.Text))
				streamed = streamed || ev.Text != ""
				if ev.Text != "" {
					open = !strings.HasSuffix(ev.Text, "\n")
				}
				return
			}
			if open && (ev.Kind == orchestrator.ToolStart || ev.Kind == orchestrator.ToolDenied) {
				io.WriteString(a.io.Out, "\n")
				open = false
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

// stopSignals end a turn the way Ctrl-C does: cut off, kept in the
// session with its marker, its postGeneration hooks run. SIGHUP is one:
// a terminal closed mid-turn must not lose the turn (its tools have run).
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// signalContext is ctx cancelled by Ctrl-C, SIGTERM or SIGHUP.
func signalContext(ctx context.Context) (context.Context, func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals...)
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
// turn). kept is false when the exchange could not be written to the
// session file.
func (a *app) askLine(ctx context.Context, s *orchestrator.Session, line string, sigs chan os.Signal, consent *lineConsent) (kept bool) {
	ctx, stop := cancelOn(ctx, sigs)
	defer stop()
	d := newDisplay(a.io, a.Config)
	defer consent.during(d)()
	res, err := a.App.Ask(ctx, s, line, d.show, consent)
	d.done()
	if msg := frontend.AskFailure(line, res, err); msg != "" {
		if err != nil || !res.Denied {
			msg = "mm: " + msg // a denial is the reference's own line
		}
		fmt.Fprintln(a.io.Err, msg)
	}
	var notKept *frontend.NotKeptError
	return !errors.As(err, &notKept)
}
