package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"

	"github.com/mm-agent/mm/internal/calls"
	"github.com/mm-agent/mm/internal/termtext"

	"github.com/mm-agent/mm/internal/frontend"
	"github.com/mm-agent/mm/orchestrator"
)

// lineConsent asks on the terminal, or reads the next line of a piped
// stdin, whether a tool call may run. y or yes allows it.
type lineConsent struct {
	mu    sync.Mutex // one question at a time
	lines *lineReader
	out   io.Writer

	dmu sync.Mutex
	d   *display // the running turn's, when the question shares its writer

	// app, when set, says what a write_file or edit_file will change: the
	// question shows it first.
	app *frontend.App
}

// during makes the questions go through d, the display of the turn (or
// relay) that starts: nothing else is written while one is asked. It
// returns what ends that.
func (c *lineConsent) during(d *display) (end func()) {
	c.dmu.Lock()
	defer c.dmu.Unlock()
	c.d = d
	return func() {
		c.dmu.Lock()
		defer c.dmu.Unlock()
		c.d = nil
	}
}

func (c *lineConsent) Allow(ctx context.Context, call orchestrator.Call) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	question := "  " + calls.ConsentQuestion(call) + " "
	question = c.preview(call) + question
	c.dmu.Lock()
	d := c.d
	c.dmu.Unlock()
	if d != nil {
		defer d.ask(question)()
	} else {
		fmt.Fprint(c.out, question)
	}
	line, ok := c.lines.next(ctx)
	if !ok {
		fmt.Fprintln(c.out)
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, orchestrator.ErrNoOneToAsk
	}
	if !c.lines.tty {
		fmt.Fprintln(c.out, line)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// preview is what call will change, indented under its tool line, ""
// for a call that changes no file.
func (c *lineConsent) preview(call orchestrator.Call) string {
	if c.app == nil {
		return ""
	}
	ch := c.app.FileChange(call)
	if ch == nil {
		return ""
	}
	// The file's text is the model's: part of the question, its escapes
	// are shown, not drawn (a line could otherwise redraw the question).
	var b strings.Builder
	for _, l := range strings.Split(ch.Preview(), "\n") {
		b.WriteString("    " + termtext.Visible(l) + "\n")
	}
	return b.String()
}

const helpText = `Type a prompt and press Enter. Commands:
  /help      this help
  /compact   replace the earlier turns by a summary the model writes
  /exit      leave mm (Ctrl-D at an empty prompt too)
Ctrl-C during a turn cancels the turn; Ctrl-C at an empty prompt exits.`

// lineMode is the interactive session: one prompt per line, from the
// terminal or a pipe, until /exit or end of input.
func (a *app) lineMode(ctx context.Context) error {
	fmt.Fprintln(a.io.Out, a.Banner)
	lines := newLineReader(a.io.In)
	lines.tty = a.io.InTTY
	consent := &lineConsent{lines: lines, out: a.io.Out, app: a.App}
	session, err := a.OpenSession(a.sessionPath)
	if err != nil {
		return &exitError{exitFailure, "mm: " + err.Error()}
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)

	// unkept: a turn or an exchange could not be written to the session
	// file (said when it happened); line mode goes on, and exits 1.
	unkept := false
	end := func() error {
		if unkept {
			return &exitError{code: exitFailure}
		}
		return nil
	}
	for {
		if a.io.InTTY {
			fmt.Fprint(a.io.Out, "› ")
		}
		var line string
		select {
		case <-sigs:
			fmt.Fprintln(a.io.Out)
			return errInterrupted
		case l, ok := <-lines.lines:
			if !ok {
				if a.io.InTTY { // Ctrl-D: the shell's prompt goes on a line of its own
					fmt.Fprintln(a.io.Out)
				}
				return end()
			}
			line = l
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		switch frontend.Parse(line) {
		case frontend.Exit:
			return end()
		case frontend.Compact:
			n, err := session.Compact(ctx)
			if err != nil {
				fmt.Fprintln(a.io.Err, "mm: "+err.Error())
			} else {
				fmt.Fprintf(a.io.Out, orchestrator.CompactedNotice+"\n", n)
			}
			continue
		case frontend.Help:
			fmt.Fprintln(a.io.Out, helpText)
			if a.Relay != nil {
				fmt.Fprintln(a.io.Out, frontend.AskHelp(a.Config.AgentNames()))
			}
			continue
		case frontend.Ask:
			unkept = !a.askLine(ctx, session, line, sigs, consent) || unkept
			continue
		case frontend.Unknown, frontend.Abort: // no /abort: Ctrl-C cancels a turn here
			fmt.Fprintln(a.io.Out, frontend.UnknownCommand(line))
			continue
		}
		unkept = !a.turn(ctx, session, line, sigs, consent) || unkept
	}
}

// turn runs one line-mode turn; Ctrl-C cancels the turn, not the program:
// the display then says so on a line of its own. kept is false when the
// turn could not be written to the session file.
func (a *app) turn(ctx context.Context, s *orchestrator.Session, prompt string, sigs chan os.Signal, consent *lineConsent) (kept bool) {
	tctx, stop := cancelOn(ctx, sigs)
	defer stop()
	d := newDisplay(a.io, a.Config)
	defer consent.during(d)()
	res := s.Generate(tctx, prompt, d.show, consent)
	d.footer(res)
	if res.Err != nil && !res.Cancelled() {
		fmt.Fprintln(a.io.Err, a.io.errText(res.Err.Error()))
		for _, n := range a.defaultsNotes(res.Err) {
			fmt.Fprintln(a.io.Err, n)
		}
	}
	return res.SaveErr == nil
}
