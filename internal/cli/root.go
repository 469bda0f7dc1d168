package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/internal/acp"
	"github.com/mm-agent/mm/internal/agent"
	"github.com/mm-agent/mm/internal/frontend"
	"github.com/mm-agent/mm/internal/jsonevents"
	"github.com/mm-agent/mm/internal/model"
	"github.com/mm-agent/mm/internal/sessionfile"
	"github.com/mm-agent/mm/internal/tui"
	"github.com/mm-agent/mm/orchestrator"
)

type rootOptions struct {
	io         *IOStreams
	args       []string
	prompt     string
	promptSet  bool
	configPath string
	model      string
	yolo       bool
	yoloSet    bool
	tui, acp   bool
	// --ask and --ask-with-context name the agent; args[0] is the question.
	ask, askWithContext string
	session             string // --session FILE
	a2a                 string // -a2a <host:port>: serve the agent over A2A
	logPath             string // --log FILE: diagnostics (also MM_LOG)
	json                bool   // --json: -p writes the turn as JSON Lines events
}

func (o *rootOptions) run(ctx context.Context) error {
	asking := o.ask != "" || o.askWithContext != ""
	modes := 0
	for _, on := range []bool{o.tui, o.acp, o.promptSet, asking, o.a2a != ""} {
		if on {
			modes++
		}
	}
	switch {
	case modes > 1:
		return &exitError{exitFailure, "mm: -tui, -acp, -a2a, -p and --ask each start mm a different way: give one"}
	case o.ask != "" && o.askWithContext != "":
		return &exitError{exitFailure, "mm: --ask and --ask-with-context go alone"}
	case asking && len(o.args) != 1:
		return &exitError{exitFailure, `mm: --ask takes one question: mm --ask <agent> "<question>"`}
	case !asking && len(o.args) > 0:
		if flag := o.boolFlagValue(o.args[0]); flag != "" {
			return &exitError{exitFailure, fmt.Sprintf("mm: unexpected argument %q: a value of %s goes after \"=\" (%s=%s)", o.args[0], flag, flag, o.args[0])}
		}
		return &exitError{exitFailure, fmt.Sprintf("mm: unexpected argument %q (a prompt goes after -p, or on a line of line mode)", o.args[0])}
	case o.json && !o.promptSet:
		return &exitError{exitFailure, errJSONWithoutP}
	case o.promptSet && o.prompt != "-" && strings.TrimSpace(o.prompt) == "":
		return &exitError{exitFailure, errEmptyPrompt}
	}
	env, err := agent.ReadEnv(os.Environ(), executable())
	if err != nil {
		return &exitError{exitFailure, "mm: " + err.Error()}
	}
	logger, closeLog, err := openLog(o.logPath, &env)
	if err != nil {
		return &exitError{exitFailure, "mm: " + err.Error()}
	}
	defer closeLog()
	cfg, err := o.loadConfig()
	if err != nil {
		return err
	}
	// The session file is opened (locked, checked) before anything starts,
	// so a file that is refused is refused before anything else happens.
	var opened *agent.Opened
	if o.session != "" && !asking && !o.acp {
		f, history, err := sessionfile.Open(o.session)
		if err != nil {
			return &exitError{exitFailure, "mm: session file: " + err.Error()}
		}
		if d := f.Dropped(); d != nil {
			fmt.Fprintln(o.io.Err, "mm: "+d.String())
		}
		opened = &agent.Opened{Path: o.session, File: f, History: history}
	}
	built, err := agent.New(cfg, agent.Options{
		Env: env, Version: Version, Notices: o.io.Err, Session: opened, Log: logger,
		// --ask runs no turn of this agent: its MCP servers' tools would
		// never be offered, so they are not started.
		MCP: !asking,
	})
	if err != nil {
		if opened != nil {
			opened.File.Close()
		}
		return err
	}
	defer built.Close()
	app := &app{App: built.App, built: built, io: o.io, sessionPath: o.session, json: o.json}
	switch {
	case o.tui:
		err := tui.Run(ctx, app.App, tui.Options{In: o.io.In, Out: o.io.Out, Err: o.io.Err, Color: o.io.Color, Session: o.session})
		if errors.Is(err, tui.ErrInterrupted) {
			return errInterrupted
		}
		return err
	case o.acp:
		return acp.Serve(ctx, app.App, Version, o.io.In, o.io.Out, o.io.Err)
	case o.a2a != "":
		return app.serveA2A(ctx, o.a2a)
	case asking:
		return app.askCLI(ctx, o)
	case o.promptSet:
		prompt := o.prompt
		if prompt == "-" {
			b, err := io.ReadAll(o.io.In)
			if err != nil {
				return fmt.Errorf("read the prompt from stdin: %w", err)
			}
			prompt = strings.TrimRight(string(b), "\n")
			if strings.TrimSpace(prompt) == "" {
				return &exitError{exitFailure, "mm: the prompt read from stdin (-p -) is empty"}
			}
		}
		return app.once(ctx, prompt)
	}
	return app.lineMode(ctx)
}

// errEmptyPrompt refuses -p with nothing to ask (blank counts as
// nothing): a model given an empty question answers something anyway,
// which helps no one. -p - with an empty stdin is refused the same way.
const errEmptyPrompt = `mm: the prompt is empty: write it after -p, or use -p - to read it from stdin`

// errJSONWithoutP refuses --json without -p: only a one-shot turn has an
// end a script can wait for (the result event).
const errJSONWithoutP = `mm: --json goes with -p: mm -p "<prompt>" --json writes that turn as JSON Lines events`

// boolFlagValue is the boolean flag a stray "true" or "false" was most
// likely meant for (mm --yolo false), "" when none: a boolean flag takes
// its value joined with "=" only.
func (o *rootOptions) boolFlagValue(arg string) string {
	if arg != "true" && arg != "false" {
		return ""
	}
	switch {
	case o.yoloSet:
		return "--yolo"
	case o.tui:
		return "-tui"
	case o.acp:
		return "-acp"
	}
	return ""
}

// loadConfig finds and loads the config and applies the flags that
// override it.
func (o *rootOptions) loadConfig() (*config.Config, error) {
	path := o.configPath
	if path == "" {
		if _, err := os.Stat("agent.yaml"); err == nil {
			path = "agent.yaml"
		}
	}
	var cfg *config.Config
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		cfg = config.Default(wd)
	} else {
		c, err := config.Load(path)
		if err != nil {
			return nil, &exitError{exitFailure, err.Error()}
		}
		cfg = c
	}
	if o.model != "" {
		if _, err := cfg.Resolve(o.model); err != nil {
			return nil, &exitError{exitFailure, (&config.Error{Path: "--model", Msg: err.Error()}).Error()}
		}
		cfg.Model = o.model
	}
	if o.yoloSet {
		cfg.Yolo = o.yolo
	}
	return cfg, nil
}

// app is one agent as the command line's front ends drive it.
type app struct {
	*frontend.App
	built *agent.Agent
	io    *IOStreams
	// sessionPath is --session: the session file line mode and -p use.
	sessionPath string
	// json is --json: -p writes JSON Lines events on stdout.
	json bool
}

// openLog opens the diagnostics log (--log FILE, else MM_LOG) and makes
// env give its absolute path to what mm starts; no log is a nil logger.
func openLog(flag string, env *agent.Env) (*slog.Logger, func(), error) {
	path := flag
	if path == "" {
		path = env.Log
	}
	if path == "" {
		return nil, func() {}, nil
	}
	logger, abs, f, err := agent.OpenLog(path, env.Depth)
	if err != nil {
		return nil, nil, err
	}
	env.Log = abs
	logger.Info("mm started", "version", Version, "bin", env.Bin)
	return logger, func() {
		logger.Info("mm ended")
		f.Close()
	}, nil
}

// executable is the running mm, for MM_BIN and the asked agents'
// processes; "" when it cannot be found.
func executable() string {
	bin, _ := os.Executable()
	return bin
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
	if a.io.InTTY {
		consent := &lineConsent{lines: newTTYLines(a.io.In), out: d.out}
		if a.json {
			consent.out = a.io.Err // the question goes where a person reads it
		} else {
			defer consent.during(d)()
		}
		a.SetConsent(consent)
	}
	s, err := a.OpenSession(a.sessionPath)
	if err != nil {
		return &exitError{exitFailure, "mm: " + err.Error()}
	}
	if a.json {
		return a.onceJSON(ctx, s, prompt, d)
	}
	if a.Config.StructuredOutput != nil {
		return a.onceStructured(ctx, s, prompt, d)
	}
	res := s.Generate(ctx, prompt, d.show)
	d.footer(res)
	return a.onceExit(res)
}

// onceExit is how -p ends after the turn res: the exit code, and the
// error and what explains it on stderr.
func (a *app) onceExit(res orchestrator.TurnResult) error {
	if res.Err == nil && res.CutOff != "" {
		return &exitError{code: exitFailure} // the warning said it
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
func (a *app) onceJSON(ctx context.Context, s *orchestrator.Session, prompt string, d *display) error {
	stream := &jsonevents.Stream{W: jsonevents.NewWriter(a.io.Out), ShowReasoning: a.Config.ShowReasoning}
	structured := a.Config.StructuredOutput != nil
	res := s.Generate(ctx, prompt, func(ev orchestrator.Event) {
		stream.Show(ev)
		d.show(ev)
	})
	d.footer(res)
	var err error
	if structured {
		err = structuredExit(res)
	} else {
		err = a.onceExit(res)
	}
	stream.W.Write(jsonevents.ResultOf(res, structured))
	return err
}

// defaultsNotes are the lines that follow the error of a turn when mm ran
// on its built-in defaults and could not reach their model server: no
// config was found, which model that chose, and what llmman is.
func (a *app) defaultsNotes(err error) []string {
	var me *model.Error
	if a.Config.Path != "" || !errors.As(err, &me) || me.Kind != model.ErrUnreachable {
		return nil
	}
	notes := []string{noConfigNotice(a.Config.Model)}
	if strings.HasPrefix(a.Config.Model, "llmman/") {
		notes = append(notes, llmmanNotice)
	}
	return notes
}

// noConfigNotice says mm found no config and which model it chose.
func noConfigNotice(model string) string {
	return "mm: no config file was found (./agent.yaml, or -c FILE), so mm used its built-in model " + model
}

// llmmanNotice says what llmman is and where to get it.
const llmmanNotice = "mm: llmman is the local model server mm uses by default (https://github.com/llmmanorg/llmman: install it, then run llmman serve); " +
	`to use Ollama, llama.cpp or another server, write an agent.yaml naming it (README: "Point mm at a model server")`

// onceStructured is -p on an agent with structuredOutput: stdout holds the
// JSON document alone, for a script to parse; tool and failure lines go to
// stderr; no ⚙ line and no hook list.
func (a *app) onceStructured(ctx context.Context, s *orchestrator.Session, prompt string, d *display) error {
	res := s.Generate(ctx, prompt, func(ev orchestrator.Event) {
		if ev.Kind == orchestrator.Text && len(ev.Agent) == 0 {
			return // the answer, written below once the turn is over
		}
		d.show(ev)
	})
	d.done()
	if res.SaveErr != nil {
		fmt.Fprintln(a.io.Err, "mm: session file: "+res.SaveErr.Error())
	}
	if err := structuredExit(res); err != nil {
		return err
	}
	fmt.Fprintln(a.io.Out, strings.TrimSpace(res.Answer))
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

// turnError is the exit of a turn that did not answer.
func turnError(res orchestrator.TurnResult) error {
	switch {
	case res.Err == nil:
		return nil
	case res.Cancelled():
		return errInterrupted
	case errors.Is(res.Err, orchestrator.ErrMaxSteps), errors.Is(res.Err, orchestrator.ErrInvalidAnswer):
		return &exitError{exitFailure, "mm: " + res.Err.Error()}
	}
	return &exitError{exitFailure, res.Err.Error()}
}
