package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/acp"
	"github.com/mm-agent/mm/internal/agent"
	"github.com/mm-agent/mm/internal/frontend"
	"github.com/mm-agent/mm/internal/procs"
	"github.com/mm-agent/mm/internal/sessionfile"
	"github.com/mm-agent/mm/internal/tui"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/remote"
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
	publicURL           string // --public-url URL: the served card's url
	logPath             string // --log FILE: diagnostics (also MM_LOG)
	json                bool   // --json: -p writes the turn as JSON Lines events
	// Kept sessions (internal/sessions): --continue, --resume [id],
	// --no-session; resume is resumeList for --resume alone.
	cont, noSession bool
	resume          string
	resumeSet       bool
}

// resumeList is --resume without an id: list this directory's sessions.
const resumeList = "list"

// mode is one way the flags start mm; each has a function of its own
// (rootOptions.run dispatches), which takes what it needs of the app.
type mode int

const (
	modeLine   mode = iota // no flag: a prompt per line
	modePrompt             // -p: one turn
	modeAsk                // --ask, --ask-with-context: one relay
	modeWindow             // -tui
	modeEditor             // -acp
	modeServe              // -a2a: the agent served to other machines
	modeList               // --resume alone: the sessions kept for this directory
)

func (o *rootOptions) asking() bool { return o.ask != "" || o.askWithContext != "" }

// mode is the way the flags start mm, or why they do not go together.
func (o *rootOptions) mode() (mode, error) {
	chosen, n := modeLine, 0
	for _, f := range []struct {
		m  mode
		on bool
	}{{modeWindow, o.tui}, {modeEditor, o.acp}, {modePrompt, o.promptSet}, {modeAsk, o.asking()}, {modeServe, o.a2a != ""}} {
		if f.on {
			chosen, n = f.m, n+1
		}
	}
	switch {
	case n > 1:
		return 0, &exitError{exitFailure, "mm: -tui, -acp, -a2a, -p and --ask each start mm a different way: give one"}
	case o.ask != "" && o.askWithContext != "":
		return 0, &exitError{exitFailure, "mm: --ask and --ask-with-context go alone"}
	case chosen == modeAsk && len(o.args) != 1:
		return 0, &exitError{exitFailure, `mm: --ask takes one question: mm --ask <agent> "<question>"`}
	case chosen != modeAsk && len(o.args) > 0:
		if flag := o.boolFlagValue(o.args[0]); flag != "" {
			return 0, &exitError{exitFailure, fmt.Sprintf("mm: unexpected argument %q: a value of %s goes after \"=\" (%s=%s)", o.args[0], flag, flag, o.args[0])}
		}
		return 0, &exitError{exitFailure, fmt.Sprintf("mm: unexpected argument %q (a prompt goes after -p, or on a line of line mode)", o.args[0])}
	case o.resumeSet && o.resume == resumeList && n == 0 && !o.cont && o.session == "" && !o.noSession:
		return modeList, nil
	case o.sessionFlags() > 1:
		return 0, &exitError{exitFailure, "mm: --session, --continue, --resume and --no-session each choose the session a different way: give one"}
	case (o.cont || o.resumeSet || o.noSession) && chosen != modeLine && chosen != modePrompt && chosen != modeWindow:
		return 0, &exitError{exitFailure, "mm: --continue, --resume and --no-session go with line mode, -p or -tui"}
	case o.json && chosen != modePrompt:
		return 0, &exitError{exitFailure, errJSONWithoutP}
	case chosen == modePrompt && o.prompt != "-" && strings.TrimSpace(o.prompt) == "":
		return 0, &exitError{exitFailure, errEmptyPrompt}
	case o.publicURL != "" && chosen != modeServe:
		return 0, &exitError{exitFailure, "mm: --public-url goes with -a2a (it is the URL the served agent's card gives)"}
	case chosen == modeServe:
		if err := checkListenAddr(o.a2a); err != nil {
			return 0, &exitError{exitFailure, "mm -a2a: " + err.Error()}
		}
		if o.publicURL != "" {
			if _, err := remote.ParsePublicURL(o.publicURL); err != nil {
				return 0, &exitError{exitFailure, "mm -a2a: --public-url " + err.Error()}
			}
		}
	}
	return chosen, nil
}

// run starts mm the way the flags say: the agent is built, then handed to
// the mode's own function.
func (o *rootOptions) run(ctx context.Context) error {
	m, err := o.mode()
	if err != nil {
		return err
	}
	if m == modeList {
		return o.listSessions()
	}
	a, err := o.start(ctx, m)
	if err != nil {
		return err
	}
	defer a.close()
	switch m {
	case modeWindow:
		return a.window(ctx)
	case modeEditor:
		return acp.Serve(ctx, a.App, Version, a.io.In, a.io.Out, a.io.Err)
	case modeServe:
		return a.serveA2A(ctx, o.a2a, o.publicURL)
	case modeAsk:
		return a.askCLI(ctx, o)
	case modePrompt:
		return a.prompt(ctx, o.prompt)
	}
	return a.lineMode(ctx)
}

// start builds the agent of mode m: the environment, the log, the config,
// the session file (opened, locked and checked before anything starts, so
// that a file that is refused is refused before anything else happens).
func (o *rootOptions) start(ctx context.Context, m mode) (*app, error) {
	env, err := agent.ReadEnv(os.Environ(), executable())
	if err != nil {
		return nil, &exitError{exitFailure, "mm: " + err.Error()}
	}
	logger, closeLog, err := openLog(o.logPath, &env)
	if err != nil {
		return nil, &exitError{exitFailure, "mm: " + err.Error()}
	}
	cfg, err := o.loadConfig()
	if err != nil {
		closeLog()
		return nil, err
	}
	if cfg.Hooks.Commands() {
		// Hooks will run: the process warden and the shell's lookup start
		// now, beside mm's own start, rather than in the first hook's time.
		procs.Expect()
		go hooks.Shell()
	}
	sessionPath := o.session
	var opened *agent.Opened
	var kept *keptSession
	if m == modeLine || m == modePrompt || m == modeWindow {
		if kept, err = o.keptSession(); err != nil {
			closeLog()
			return nil, err
		}
		if kept != nil {
			sessionPath = kept.path
		}
	}
	if sessionPath != "" && m != modeAsk && m != modeEditor {
		f, history, err := sessionfile.Open(sessionPath)
		if err != nil {
			kept.discardIfEmpty()
			closeLog()
			return nil, &exitError{exitFailure, "mm: session file: " + err.Error()}
		}
		if d := f.Dropped(); d != nil {
			fmt.Fprintln(o.io.Err, "mm: "+d.String())
		}
		opened = &agent.Opened{Path: sessionPath, File: f, History: history}
	}
	built, err := agent.New(ctx, cfg, agent.Options{
		Env: env, Version: Version, Notices: o.io.Err, Session: opened, Log: logger,
		// --ask runs no turn of this agent: its MCP servers' tools would
		// never be offered, so they are not started.
		MCP: m != modeAsk,
	})
	if err != nil {
		if opened != nil {
			opened.File.Close()
		}
		kept.discardIfEmpty() // a start that failed keeps no session
		closeLog()
		return nil, err
	}
	return &app{App: built.App, built: built, io: o.io, sessionPath: sessionPath, json: o.json, modelFlag: o.model != "",
		close: func() {
			built.Close()
			kept.discardIfEmpty()
			closeLog()
		}}, nil
}

// window is -tui: the full-screen front end.
func (a *app) window(ctx context.Context) error {
	err := tui.Run(ctx, a.App, tui.Options{In: a.io.In, Out: a.io.Out, Err: a.io.Err, Color: a.io.Color, Session: a.sessionPath, ModelFlag: a.modelFlag})
	if errors.Is(err, tui.ErrInterrupted) {
		return errInterrupted
	}
	return err
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
		} else if user := userConfig(); user != "" {
			path = user
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

// userConfig is the user-level config, $XDG_CONFIG_HOME/mm/agent.yaml
// (default ~/.config/mm/agent.yaml), when it exists: mm's config where
// there is no ./agent.yaml and no -c, as each peer agent has one in the
// home directory. "" when there is none.
func userConfig() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) { // the XDG spec ignores a relative one
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	path := filepath.Join(dir, "mm", "agent.yaml")
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
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
	// close ends what start started: the agent, then the log.
	close func()
	// modelFlag: the model came from --model, not from a config.
	modelFlag bool
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

// defaultsNotes are the lines that follow the error of a turn when mm ran
// with no config file and could not reach the model server
// (frontend.DefaultsNotes).
func (a *app) defaultsNotes(err error) []string {
	return frontend.DefaultsNotes(a.Config, a.modelFlag, err)
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
