package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/mm-agent/mm/agentproc"
	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/acp"
	"github.com/mm-agent/mm/internal/attach"
	"github.com/mm-agent/mm/internal/frontend"
	"github.com/mm-agent/mm/internal/mcptools"
	"github.com/mm-agent/mm/internal/model"
	"github.com/mm-agent/mm/internal/sandbox"
	"github.com/mm-agent/mm/internal/sessionfile"
	"github.com/mm-agent/mm/internal/tools"
	"github.com/mm-agent/mm/internal/tui"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
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
	case o.promptSet && o.prompt != "-" && strings.TrimSpace(o.prompt) == "":
		return &exitError{exitFailure, errEmptyPrompt}
	}
	cfg, err := o.loadConfig()
	if err != nil {
		return err
	}
	if asking {
		// --ask runs no turn of this agent: its MCP servers' tools would
		// never be offered, so they are not started.
		cfg.MCPServers = nil
	}
	// The session file is opened (locked, checked) before anything starts,
	// so a file that is refused is refused before anything else happens.
	var opened *openedSession
	if o.session != "" && !asking && !o.acp {
		f, history, err := sessionfile.Open(o.session)
		if err != nil {
			return &exitError{exitFailure, "mm: session file: " + err.Error()}
		}
		if d := f.Dropped(); d != nil {
			fmt.Fprintln(o.io.Err, "mm: "+d.String())
		}
		opened = &openedSession{path: o.session, f: f, history: history}
	}
	app, err := newApp(cfg, o.io)
	if err != nil {
		if opened != nil {
			opened.f.Close()
		}
		return err
	}
	defer app.close()
	app.sessionPath = o.session
	if opened != nil {
		app.opened = opened
		app.files = append(app.files, opened.f)
	}
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

// loadConfig finds and loads the config, applies the flags that override
// it, and sets the environment every process mm starts inherits.
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

// app is one agent as the front ends drive it, with what this process
// owns for it: the asked agents' processes, the audit log, MCP servers.
type app struct {
	*frontend.App
	io    *IOStreams
	depth int
	// sessionPath is --session: the session file line mode and -p use.
	sessionPath string

	supervisor *agentproc.Supervisor
	hooksLog   *hooks.Log
	mcp        *mcptools.Servers
	files      []*sessionfile.File
	// opened is the --session file, opened at start for the first
	// OpenSession of its path.
	opened *openedSession
}

// openedSession is a session file opened and its history.
type openedSession struct {
	path    string
	f       *sessionfile.File
	history []model.Message
}

// openSession starts a session kept in the session file at path (loaded
// when it exists); "" keeps it in memory.
func (a *app) openSession(path string) (*orchestrator.Session, error) {
	s := orchestrator.NewSession(a.Agent)
	if path == "" {
		return s, nil
	}
	if o := a.opened; o != nil && o.path == path {
		a.opened = nil
		s.History, s.Store = o.history, o.f
		return s, nil
	}
	f, history, err := sessionfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("session file: %w", err)
	}
	if d := f.Dropped(); d != nil {
		fmt.Fprintln(a.io.Err, "mm: "+d.String())
	}
	a.files = append(a.files, f)
	s.History, s.Store = history, f
	return s, nil
}

// close stops the asked agents' processes.
func (a *app) close() {
	if a.supervisor != nil {
		a.supervisor.Close()
	}
	if a.hooksLog != nil {
		a.hooksLog.Close()
	}
	if a.mcp != nil {
		a.mcp.Close()
	}
	for _, f := range a.files {
		f.Close()
	}
}

// newApp builds the agent of cfg: its model client, tools and hooks, and
// sets MM_BIN, MM_CONFIG and MM_ASK_DEPTH for every process it starts.
func newApp(cfg *config.Config, io *IOStreams) (*app, error) {
	ep, err := cfg.Resolve(cfg.Model)
	if err != nil {
		return nil, &exitError{exitFailure, (&config.Error{Path: cfg.Path, Msg: err.Error()}).Error()}
	}
	if cfg.Hooks.Count() > 0 {
		// Hooks run with sh: without one (Windows without Git for Windows),
		// none of them could run, guards included; say so before anything.
		if _, err := hooks.Shell(); err != nil {
			return nil, &exitError{exitFailure, (&config.Error{Path: cfg.Path, Msg: err.Error()}).Error()}
		}
	}
	if ep.APIKeyMissing {
		fmt.Fprintln(io.Err, apiKeyWarning(ep))
	}
	depth, _ := strconv.Atoi(os.Getenv("MM_ASK_DEPTH"))
	if bin, err := os.Executable(); err == nil {
		os.Setenv("MM_BIN", bin)
	}
	if cfg.File != "" {
		os.Setenv("MM_CONFIG", cfg.File)
	} else {
		os.Unsetenv("MM_CONFIG")
	}
	os.Setenv("MM_ASK_DEPTH", strconv.Itoa(depth))

	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	wd, _ = filepath.Abs(wd)
	// The sandbox is checked before anything starts: one asked for and
	// not working stops mm here, before any hook, server or tool runs.
	box, err := sandbox.New(context.Background(), cfg.Sandbox, wd)
	if err != nil {
		return nil, &exitError{exitFailure, "mm: " + err.Error()}
	}
	builtin, err := tools.Sandboxed(cfg.Tools, wd, box)
	if err != nil {
		return nil, &exitError{exitFailure, (&config.Error{Path: cfg.Path, Msg: "tools: " + err.Error()}).Error()}
	}
	ts := make([]orchestrator.Tool, len(builtin))
	for i, t := range builtin {
		ts[i] = t
	}
	a := &app{App: &frontend.App{Config: cfg, Dir: wd, Sandbox: box}, io: io, depth: depth}
	if len(cfg.MCPServers) > 0 {
		a.mcp = mcptools.Start(context.Background(), cfg.MCPServers, wd, Version, func(msg string) { fmt.Fprintln(io.Err, msg) })
		for _, t := range a.mcp.Tools() {
			ts = append(ts, t)
		}
	}
	if len(cfg.MMConfigs) > 0 {
		bin, _ := os.Executable()
		a.supervisor = &agentproc.Supervisor{Bin: bin, Dir: wd, Stderr: io.Err}
		a.Relay = &relay.Relay{
			Agents: cfg.MMConfigs, Asker: askers(cfg, a.supervisor),
			Depth: depth, MaxDepth: cfg.MaxAskDepth,
		}
		ts = append(ts, &relay.Tool{Relay: a.Relay})
	}
	a.Banner = banner(cfg)
	a.OpenSession = a.openSession
	a.Agent = &orchestrator.Agent{
		Model: &model.Client{BaseURL: ep.BaseURL, APIKey: ep.APIKey, Stream: ep.Stream, Hint: ep.Hint,
			Provider: ep.Provider, APIKeyEnv: ep.APIKeyEnv, IdleTimeout: ep.IdleTimeout},
		ModelRef:      cfg.Model,
		Name:          ep.Model,
		System:        cfg.System,
		Tools:         ts,
		Yolo:          cfg.Yolo,
		MaxSteps:      cfg.MaxSteps,
		Parallel:      8,
		Hooks:         &hooks.Runner{Hooks: cfg.Hooks, Cwd: wd, Model: cfg.Model, Depth: depth},
		ContextBudget: cfg.ContextBudget,
	}
	skills := attach.SkillsIn(filepath.Join(cfg.Dir, "skills"))
	for name, path := range cfg.Skills {
		skills[name] = path
	}
	a.Agent.Expand = (&attach.Expander{Dir: wd, Skills: skills}).Expand
	if cfg.StructuredOutput != nil {
		a.Agent.Structured = cfg.StructuredOutput
	}
	if a.Relay != nil {
		a.Relay.Hooks = a.Agent.Hooks
	}
	if cfg.HooksLog != "" {
		log, err := hooks.OpenLog(cfg.HooksLog)
		if err != nil {
			return nil, &exitError{exitFailure, (&config.Error{Path: cfg.Path, Msg: "hooksLog: " + err.Error()}).Error()}
		}
		a.hooksLog = log
		var once sync.Once
		a.Agent.Hooks.Observe = func(run hooks.Run) {
			if err := log.Write(run, depth); err != nil {
				once.Do(func() { fmt.Fprintln(io.Err, "mm: hooksLog: "+err.Error()) })
			}
		}
	}
	return a, nil
}

// once is -p: one turn, then exit (1 when it failed, 130 when interrupted).
func (a *app) once(ctx context.Context, prompt string) error {
	ctx, stop := signalContext(ctx)
	defer stop()
	d := newDisplay(a.io, a.Config)
	if a.Config.StructuredOutput != nil {
		d = &display{out: a.io.Err, cfg: a.Config} // stdout holds the JSON document alone
	}
	if a.io.InTTY {
		consent := &lineConsent{lines: newTTYLines(a.io.In), out: d.out}
		defer consent.during(d)()
		a.SetConsent(consent)
	}
	s, err := a.OpenSession(a.sessionPath)
	if err != nil {
		return &exitError{exitFailure, "mm: " + err.Error()}
	}
	if a.Config.StructuredOutput != nil {
		return a.onceStructured(ctx, s, prompt, d)
	}
	res := s.Generate(ctx, prompt, d.show)
	d.footer(res)
	if res.Err == nil && res.CutOff != "" {
		return &exitError{code: exitFailure} // the warning said it
	}
	err = turnError(res)
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

// apiKeyWarning is the start-up warning of a provider whose apiKeyEnv
// names a variable that is not set.
func apiKeyWarning(ep config.Endpoint) string {
	return fmt.Sprintf("mm: warning: %s is not set (apiKeyEnv of provider %s): requests to %s go without an API key", ep.APIKeyEnv, ep.Provider, ep.BaseURL)
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
		if ev.Kind == orchestrator.Text && ev.Agent == "" {
			return // the answer, written below once the turn is over
		}
		d.show(ev)
	})
	d.done()
	if res.SaveErr != nil {
		fmt.Fprintln(a.io.Err, "mm: session file: "+res.SaveErr.Error())
	}
	if err := turnError(res); err != nil {
		return err
	}
	if res.Stopped { // a hook's response is no JSON document
		return &exitError{exitFailure, res.Answer}
	}
	fmt.Fprintln(a.io.Out, strings.TrimSpace(res.Answer))
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

// banner is the start-up line of line mode and the window.
func banner(cfg *config.Config) string {
	path := cfg.Path
	if path == "" {
		path = "none (built-in defaults)"
	}
	yolo := "off"
	if cfg.Yolo {
		yolo = "on"
	}
	name := ""
	if cfg.Name != "" {
		name = " | agent: " + cfg.Name
	}
	sandboxed := ""
	if m := cfg.Sandbox.Mode; m != sandbox.Off && m != "" {
		sandboxed = " | sandbox: " + string(m)
	}
	return fmt.Sprintf("mm %s%s | config: %s | model: %s | yolo: %s%s%s", Version, name, path, cfg.Model, yolo, cfg.Hooks.BannerSuffix(), sandboxed)
}
