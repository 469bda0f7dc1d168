// Package tui is mm's window front end (-tui): a full-screen terminal UI
// built with Bubble Tea. It shows what line mode shows — the banner, the
// answers as they stream, a line per tool call, hook failure lines, the ⚙
// line with the displayHooks notices — in a conversation that scrolls and
// is laid out again when the terminal is resized, with an input that stays
// usable during a turn and a dialog for consent questions. Like every
// front end it only shows turns: hooks and relays run behind
// orchestrator and relay.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"golang.org/x/term"

	"github.com/mm-agent/mm/internal/frontend"
)

// Options are what the window needs of the command line.
type Options struct {
	// In and Out are the terminal. When In is not one (stdin is a pipe),
	// the window reads the controlling terminal, as Bubble Tea does.
	In  io.Reader
	Out io.Writer
	// Err gets the messages written after the window is gone.
	Err io.Writer
	// Color is false when NO_COLOR is set: the window then draws no
	// colour, only bold and faint.
	Color bool
	// Session is --session: the session file, "" for none.
	Session string
	// ModelFlag: the model came from --model (what the window says when
	// there is no config and no server, frontend.DefaultsNotes).
	ModelFlag bool
}

// ErrInterrupted is how Run ends when the user quit with Ctrl-C, so the
// command line exits 130 as line mode does.
var ErrInterrupted = errors.New("interrupted")

// stderrMsg is a line written to stderr while the window is up.
type stderrMsg string

// Run shows the window until the user leaves it (/exit, Ctrl-D, or Ctrl-C
// at an empty input with no turn running). A turn still running then is
// cancelled, and Run waits for it — its postGeneration hooks included —
// after the terminal is restored.
func Run(ctx context.Context, app *frontend.App, opts Options) error {
	if f, ok := opts.Out.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		return errors.New("-tui needs a terminal: stdout is not one (use -p or line mode in a pipe)")
	}
	session, err := app.OpenSession(opts.Session)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	m := newModel(ctx, app, session)
	popts := []tea.ProgramOption{tea.WithOutput(opts.Out)}
	if f, ok := opts.In.(*os.File); ok && f != os.Stdin && term.IsTerminal(int(f.Fd())) {
		popts = append(popts, tea.WithInput(f))
	}
	if !opts.Color {
		popts = append(popts, tea.WithColorProfile(colorprofile.ASCII))
	}
	p := tea.NewProgram(m, popts...)
	m.send = p.Send
	done := make(chan struct{})
	m.consent = &consent{send: p.Send, done: done, change: app.FileChange}
	m.modelFlag = opts.ModelFlag

	restore := captureStderr(func(line string) { p.Send(stderrMsg(line)) })
	_, err = p.Run()
	restore()
	close(done)
	if m.running != nil {
		m.running.cancel()
		if opts.Err != nil {
			fmt.Fprintln(opts.Err, "mm: turn cancelled")
		}
	}
	m.jobs.Wait()
	switch {
	case errors.Is(err, tea.ErrInterrupted) || m.interrupted:
		return ErrInterrupted
	case err != nil:
		return fmt.Errorf("window: %w", err)
	}
	return nil
}
