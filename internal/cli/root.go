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
}

func (o *rootOptions) run(ctx context.Context) error {
	asking := o.ask != "" || o.askWithContext != ""
	modes := 0
	for _, on := range []bool{o.tui, o.acp, o.promptSet, asking} {
		if on {
			modes++
		}
	}
	switch {
	case modes > 1:
		return &exitError{exitFailure, "mm: -tui, -acp, -p and --ask each start mm a different way: give one"}
	case o.ask != "" && o.askWithContext != "":
		return &exitError{exitFailure, "mm: --ask and --ask-with-context go alone"}
	case asking && len(o.args) != 1:
		return &exitError{exitFailure, `mm: --ask takes one question: mm --ask <agent> "<question>"`}
	case !asking && len(o.args) > 0:
		return &exitError{exitFailure, fmt.Sprintf("mm: unexpected argument %q (a prompt goes after -p, or on a line of line mode)", o.args[0])}
	}
	cfg, err := o.loadConfig()
	if err != nil {
		return err
	}
	app, err := newApp(cfg, o.io)
	if err != nil {
		return err
	}
	defer app.close()
	app.sessionPath = o.session
	switch {
	case o.tui:
		err := tui.Run(ctx, app.App, tui.Options{In: o.io.In, Out: o.io.Out, Err: o.io.Err, Color: o.io.Color, Session: o.session})
		if errors.Is(err, tui.ErrInterrupted) {
			return errInterrupted
		}
		return err
	case o.acp:
		return acp.Serve(ctx, app.App, Version, o.io.In, o.io.Out, o.io.Err)
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
		}
		return app.once(ctx, prompt)
	}
	return app.lineMode(ctx)
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
}

// openSession starts a session kept in the session file at path (loaded
// when it exists); "" keeps it in memory.
func (a *app) openSession(path string) (*orchestrator.Session, error) {
	s := orchestrator.NewSession(a.Agent)
	if path == "" {
		return s, nil
	}
	f, history, err := sessionfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("session file: %w", err)
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
	builtin, err := tools.Builtin(cfg.Tools, wd)
	if err != nil {
		return nil, &exitError{exitFailure, (&config.Error{Path: cfg.Path, Msg: "tools: " + err.Error()}).Error()}
	}
	ts := make([]orchestrator.Tool, len(builtin))
	for i, t := range builtin {
		ts[i] = t
	}
	a := &app{App: &frontend.App{Config: cfg, Dir: wd}, io: io, depth: depth}
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
			Agents: cfg.MMConfigs, Asker: a.supervisor,
			Depth: depth, MaxDepth: cfg.MaxAskDepth,
		}
		ts = append(ts, &relay.Tool{Relay: a.Relay})
	}
	a.Banner = banner(cfg)
	a.OpenSession = a.openSession
	a.Agent = &orchestrator.Agent{
		Model:         &model.Client{BaseURL: ep.BaseURL, APIKey: ep.APIKey, Stream: ep.Stream, Hint: ep.Hint},
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
	if a.io.InTTY {
		out := a.io.Out
		if a.Config.StructuredOutput != nil {
			out = a.io.Err // stdout holds the JSON document alone
		}
		a.SetConsent(&lineConsent{lines: newTTYLines(a.io.In), out: out})
	}
	s, err := a.OpenSession(a.sessionPath)
	if err != nil {
		return &exitError{exitFailure, "mm: " + err.Error()}
	}
	if a.Config.StructuredOutput != nil {
		return a.onceStructured(ctx, s, prompt)
	}
	d := newDisplay(a.io, a.Config)
	res := s.Generate(ctx, prompt, d.show)
	d.footer(res)
	return turnError(res)
}

// onceStructured is -p on an agent with structuredOutput: stdout holds the
// JSON document alone, for a script to parse; tool and failure lines go to
// stderr; no ⚙ line and no hook list.
func (a *app) onceStructured(ctx context.Context, s *orchestrator.Session, prompt string) error {
	d := &display{out: a.io.Err, cfg: a.Config}
	res := s.Generate(ctx, prompt, func(ev orchestrator.Event) {
		if ev.Kind == orchestrator.Text && ev.Agent == "" {
			return // the answer, written below once the turn is over
		}
		d.show(ev)
	})
	d.endLine()
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
	return fmt.Sprintf("mm %s | config: %s | model: %s | yolo: %s%s", Version, path, cfg.Model, yolo, cfg.Hooks.BannerSuffix())
}
