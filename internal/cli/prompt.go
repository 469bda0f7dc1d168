package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mm-agent/mm/internal/jsonevents"
	"github.com/mm-agent/mm/orchestrator"
)

// prompt is -p: the prompt given, or read from stdin with -p -, then one
// turn (once).
func (a *app) prompt(ctx context.Context, prompt string) error {
	if prompt == "-" {
		b, err := io.ReadAll(a.io.In)
		if err != nil {
			return fmt.Errorf("read the prompt from stdin: %w", err)
		}
		prompt = strings.TrimRight(string(b), "\n")
		if strings.TrimSpace(prompt) == "" {
			return &exitError{exitFailure, "mm: the prompt read from stdin (-p -) is empty"}
		}
	} else if a.io.InPiped {
		piped, err := readPiped(a.io.In)
		if err != nil {
			return err
		}
		if piped != "" {
			prompt += "\n\n" + piped
		}
	}
	return a.once(ctx, prompt)
}

// maxPiped is the most -p appends from a piped stdin: more is an error, not
// a prompt cut where the reader cannot see it.
const maxPiped = 1 << 20

// readPiped is what a pipe or a file on stdin gives -p (git diff | mm -p
// "review this", as Claude Code and Gemini CLI read it), its last newlines
// trimmed; more than maxPiped bytes is an error.
func readPiped(in io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(in, maxPiped+1))
	if err != nil {
		return "", fmt.Errorf("read stdin: %w", err)
	}
	if len(b) > maxPiped {
		return "", &exitError{exitFailure, "mm: stdin holds more than 1 MiB: -p appends at most 1 MiB of it to the prompt (write it to a file and give the model its path)"}
	}
	return strings.TrimRight(string(b), "\n"), nil
}

// once is -p: one turn, then exit (1 when it failed, 130 when interrupted).
func (a *app) once(ctx context.Context, prompt string) error {
	ctx, stop := signalContext(ctx)
	defer stop()
	d := newDisplay(a.io, a.Config)
	switch {
	case a.json:
		// stdout holds the events alone; stderr gets what it gets without
		// --json (warnings, notices, the error), the display lines nowhere.
		d = &display{out: io.Discard, err: a.io.Err, cfg: a.Config}
	case a.Config.StructuredOutput != nil:
		d = &display{out: a.io.Err, cfg: a.Config} // stdout holds the JSON document alone
	}
	// With no terminal there is no one to ask: calls that need consent
	// are refused (NoConsent).
	var consent orchestrator.Consent
	if a.io.InTTY {
		c := &lineConsent{lines: newTTYLines(a.io.In), out: d.out, app: a.App}
		if a.json {
			c.out = a.io.Err // the question goes where a person reads it
		} else {
			defer c.during(d)()
		}
		consent = c
	}
	s, err := a.OpenSession(a.sessionPath)
	if err != nil {
		return &exitError{exitFailure, "mm: " + err.Error()}
	}
	if a.json {
		return a.onceJSON(ctx, s, prompt, d, consent)
	}
	if a.Config.StructuredOutput != nil {
		return a.onceStructured(ctx, s, prompt, d, consent)
	}
	res := s.Generate(ctx, prompt, d.show, consent)
	d.footer(res)
	return a.onceExit(res)
}

// onceExit is how -p ends after the turn res: the exit code, and the
// error and what explains it on stderr.
func (a *app) onceExit(res orchestrator.TurnResult) error {
	if res.Err == nil && (res.CutOff != "" || res.SaveErr != nil) {
		// The warning said it: an answer cut off, or a conversation that
		// was not kept (the session file could not be written).
		return &exitError{code: exitFailure}
	}
	err := turnError(res)
	if notes := a.defaultsNotes(res.Err); len(notes) > 0 {
		// The error first, then what explains it.
		fmt.Fprintln(a.io.Err, err.Error())
		for _, n := range notes {
			fmt.Fprintln(a.io.Err, n)
		}
		return &exitError{code: exitFailure}
	}
	return err
}

// onceJSON is -p --json: every event of the turn as a JSON line on stdout
// as it happens (internal/jsonevents), then the result; the exit code and
// stderr as without --json.
func (a *app) onceJSON(ctx context.Context, s *orchestrator.Session, prompt string, d *display, consent orchestrator.Consent) error {
	stream := &jsonevents.Stream{W: jsonevents.NewWriter(a.io.Out), ShowReasoning: a.Config.ShowReasoning}
	structured := a.Config.StructuredOutput != nil
	res := s.Generate(ctx, prompt, func(ev orchestrator.Event) {
		stream.Show(ev)
		d.show(ev)
	}, consent)
	d.footer(res)
	var err error
	if structured {
		err = structuredExit(res)
		if err == nil && res.SaveErr != nil {
			err = &exitError{code: exitFailure}
		}
	} else {
		err = a.onceExit(res)
	}
	stream.W.Write(jsonevents.ResultOf(res, structured))
	return err
}

// onceStructured is -p on an agent with structuredOutput: stdout holds the
// JSON document alone, for a script to parse; tool and failure lines go to
// stderr; no ⚙ line and no hook list.
func (a *app) onceStructured(ctx context.Context, s *orchestrator.Session, prompt string, d *display, consent orchestrator.Consent) error {
	res := s.Generate(ctx, prompt, func(ev orchestrator.Event) {
		if ev.Kind == orchestrator.Text && len(ev.Agent) == 0 {
			return // the answer, written below once the turn is over
		}
		d.show(ev)
	}, consent)
	d.done()
	if res.SaveErr != nil {
		fmt.Fprintln(a.io.Err, "mm: session file: "+res.SaveErr.Error())
	}
	if err := structuredExit(res); err != nil {
		return err
	}
	fmt.Fprintln(a.io.Out, strings.TrimSpace(res.Answer))
	if res.SaveErr != nil {
		return &exitError{code: exitFailure} // the answer is given, the conversation not kept
	}
	return nil
}

// structuredExit is how -p ends on an agent with structuredOutput.
func structuredExit(res orchestrator.TurnResult) error {
	if err := turnError(res); err != nil {
		return err
	}
	if res.Stopped { // a hook's response is no JSON document
		return &exitError{exitFailure, res.Answer}
	}
	return nil
}
