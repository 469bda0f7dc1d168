// Package agent is the one place where an mm agent is put together from
// its config: the model client, the tools (built-in, MCP, ask_agent), the
// hooks runner and its audit log, the relay and what answers it (a child
// process per local agent, an A2A connection per remote one), the sandbox,
// the session files. Every front end — line mode, -p, --ask, the window,
// the editor, an asked agent's process (mm __agent) and a served agent
// (mm -a2a) — gets its agent from New, so a new part of an agent (a
// sandbox, an event stream) is added here once and reaches all of them.
//
// New returns an Agent: what front ends drive (a frontend.App: the
// orchestrator's agent, its relay, its banner, a way to open a session)
// and Close, which ends everything the agent started. Two variants of an
// agent are built from the same parts: In, the agent working in another
// directory (an editor session's cwd), and At, the agent asked at another
// depth (a task of mm -a2a).
package agent

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mm-agent/mm/agentproc"
	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/attach"
	"github.com/mm-agent/mm/internal/frontend"
	"github.com/mm-agent/mm/internal/mcptools"
	"github.com/mm-agent/mm/internal/model"
	"github.com/mm-agent/mm/internal/sandbox"
	"github.com/mm-agent/mm/internal/sessionfile"
	"github.com/mm-agent/mm/internal/tools"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
	"github.com/mm-agent/mm/remote"
)

// Options are what an agent needs besides its config.
type Options struct {
	// Dir is the session's directory, absolute: where tools, hooks, @path
	// lines and asked agents work. "" is the working directory.
	Dir string
	// Env is the environment mm inherited (ReadEnv): the agent's relay
	// depth, the mm binary asked agents start from, and what every process
	// the agent starts inherits.
	Env Env
	// MCP starts the config's MCP servers. mm --ask runs no turn of its
	// agent, so their tools would never be offered: it does not start them.
	MCP bool
	// Version is mm's, for the banner and the MCP servers' client info.
	Version string
	// Notices gets the lines the user reads about the agent itself: a
	// missing API key, an MCP server that did not start, a session file's
	// dropped turn, a hooks log that cannot be written, an asked agent's
	// stray stderr. nil discards them.
	Notices io.Writer
	// Session is a session file opened before the agent was built (so that
	// one it refuses is refused before anything starts): the first
	// OpenSession of its path uses it.
	Session *Opened
	// Log gets the agent's diagnostics (OpenLog); nil for none.
	Log *slog.Logger
}

// Opened is a session file opened and the history read from it.
type Opened struct {
	Path    string
	File    *sessionfile.File
	History []model.Message
}

// Agent is an agent built from its config, with what it started.
type Agent struct {
	// App is the agent as front ends drive it.
	*frontend.App

	parts *parts
	dir   string
	depth int
	// box is the sandbox of the tools working in dir, protecting what
	// dir's hooks name (In recomputes it); nil for none.
	box *sandbox.Sandbox
	// system is the system instructions in dir: the config's system:,
	// then dir's AGENTS.md when agentsFile is on; agentsFile says one was
	// read (the banner says so).
	system     string
	agentsFile bool
	// mcp are the MCP servers started for this agent alone (an editor
	// session's, In), closed with it; nil for none.
	mcp *mcptools.Servers
	// sup runs the asked agents of this directory; nil without local ones.
	sup *agentproc.Supervisor
	// owner: this Agent started parts (New), and Close ends them; shared:
	// sup is another Agent's (At).
	owner, shared bool
}

// parts are what every variant of an agent shares: started once, ended by
// the Agent New returned.
type parts struct {
	cfg     *config.Config
	opts    Options
	model   orchestrator.Model
	box     *sandbox.Sandbox
	mcp     *mcptools.Servers
	remote  map[string]*remote.Agent // the remote agents of mmConfigs, by name
	log     *hooks.Log               // hooksLog; nil for none
	notices io.Writer
	// bashPath is PATH as mm inherited it (hadPath: it was set), which the
	// bash tool keeps; what mm starts outside the sandbox gets it cleaned
	// (sandbox.Path).
	bashPath string
	hadPath  bool

	mu     sync.Mutex
	files  []*sessionfile.File
	opened *Opened
}

// New builds cfg's agent. Its errors are the user's to read as they are: a
// config error names the file and the key ("[config error: …]"); a
// sandbox that cannot be set up says what is missing. Nothing is left
// running when it fails.
func New(ctx context.Context, cfg *config.Config, opts Options) (*Agent, error) {
	ep, err := cfg.Resolve(cfg.Model)
	if err != nil {
		return nil, &config.Error{Path: cfg.Path, Msg: err.Error()}
	}
	if hasCommandHook(cfg.Hooks) {
		// Hooks run with sh: without one (Windows without Git for Windows),
		// none of them could run, guards included; say so before anything.
		if _, err := hooks.Shell(); err != nil {
			return nil, &config.Error{Path: cfg.Path, Msg: err.Error()}
		}
	}
	notices := opts.Notices
	if notices == nil {
		notices = io.Discard
	}
	for _, w := range hookURLWarnings(cfg.Hooks) {
		fmt.Fprintln(notices, w)
	}
	if ep.APIKeyMissing {
		fmt.Fprintln(notices, apiKeyWarning(ep))
	}
	dir := opts.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	dir, _ = filepath.Abs(dir)
	system, read, err := instructions(cfg, dir)
	if err != nil {
		return nil, err
	}
	// The sandbox is checked before anything starts: one asked for and
	// not working stops mm here, before any hook, server or tool runs.
	// What mm runs outside the sandbox (hook scripts, config files) is
	// kept out of the model's reach under it.
	// So is what the asking agents' sandboxes protect (MM_SANDBOX_PROTECT):
	// an asked agent's bash works in the same directory.
	box, err := sandbox.New(ctx, cfg.Sandbox, dir, opts.Env.Protect...)
	if err != nil {
		return nil, err
	}
	// PATH as the user had it, for bash: inside the sandbox, a relative
	// entry names nothing the model could not run anyway.
	bashPath, hadPath := opts.Env.Get("PATH"), opts.Env.Has("PATH")
	if box != nil {
		kept, _, notes := box.Path(bashPath, dir)
		for _, n := range notes {
			fmt.Fprintln(notices, n)
		}
		if hadPath {
			opts.Env = opts.Env.With("PATH", kept)
		}
		if box, err = guarded(box, cfg, dir, opts.Env); err != nil {
			return nil, err
		}
		opts.Env.Protect = box.Protected(dir) // what the agents this one asks protect too
	}
	if _, err := tools.Sandboxed(cfg.Tools, dir, box); err != nil {
		return nil, &config.Error{Path: cfg.Path, Msg: "tools: " + err.Error()}
	}
	// After the sandbox, whose error says all; before anything starts.
	if err := checkHookPrograms(cfg, dir, notices); err != nil {
		return nil, err
	}
	p := &parts{
		cfg: cfg, opts: opts, box: box, notices: notices, opened: opts.Session, bashPath: bashPath, hadPath: hadPath,
		model: &model.Client{BaseURL: ep.BaseURL, APIKey: ep.APIKey, Stream: ep.Stream, Hint: ep.Hint,
			Provider: ep.Provider, APIKeyEnv: ep.APIKeyEnv, IdleTimeout: ep.IdleTimeout},
	}
	if len(cfg.RemoteAgents) > 0 {
		p.remote = map[string]*remote.Agent{}
		for name, ra := range cfg.RemoteAgents {
			a := &remote.Agent{Name: name, URL: ra.URL, TokenEnv: ra.TokenEnv, IdleTimeout: ra.IdleTimeout}
			if ra.TokenEnv != "" {
				a.Token = os.Getenv(ra.TokenEnv)
			}
			p.remote[name] = a
		}
	}
	if cfg.HooksLog != "" {
		log, err := hooks.OpenLog(cfg.HooksLog)
		if err != nil {
			return nil, &config.Error{Path: cfg.Path, Msg: "hooksLog: " + err.Error()}
		}
		p.log = log
	}
	// Last, once nothing can fail: the servers are processes of their own.
	if opts.MCP && len(cfg.MCPServers) > 0 {
		p.mcp = mcptools.Start(ctx, cfg.MCPServers, dir, opts.Env.For(cfg.File, opts.Env.Depth), opts.Version, func(msg string) { fmt.Fprintln(notices, msg) })
	}
	a := &Agent{parts: p, dir: dir, depth: opts.Env.Depth, box: box, owner: true, system: system, agentsFile: read}
	a.assemble(nil)
	if opts.Log != nil {
		opts.Log.Info("agent built", "config", cfg.File, "dir", dir, "model", cfg.Model,
			"mcpServers", len(cfg.MCPServers), "mcpStarted", p.mcp != nil, "asks", len(cfg.MMConfigs))
	}
	return a, nil
}

// In is the agent working in dir, an editor session's cwd (the reference
// runs hooks "in the session's folder … the cwd of the editor's session
// in ACP"): its built-in tools, hooks, @path lines and asked agents work
// there, and dir's AGENTS.md is its own. It shares the model client, the
// config's MCP servers (started once, in mm's directory), the remote
// agents and the session files with a; the asked agents' processes it
// starts are its own, ended by its Close, and so are servers, the MCP
// servers the editor gave for the session: started in dir with the
// agent's environment, their tools offered beside the config's under the
// same hooks and consent. A server that does not start is a notice, as a
// configured one's is; one named like a configured server is left out
// (the tools' names would be the same).
func (a *Agent) In(ctx context.Context, dir string, servers map[string]config.MCPServer) (*Agent, error) {
	dir = filepath.Clean(dir)
	// The hooks run in dir: what they name relative to it is protected
	// there (the session's .git is the sandbox's own, per command).
	box := a.parts.box
	if box != nil {
		var err error
		if box, err = guarded(box, a.parts.cfg, dir, a.parts.opts.Env); err != nil {
			return nil, err
		}
	}
	if _, err := tools.Sandboxed(a.parts.cfg.Tools, dir, box); err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	system, read, err := instructions(a.parts.cfg, dir)
	if err != nil {
		return nil, err
	}
	b := &Agent{parts: a.parts, dir: dir, depth: a.depth, box: box, system: system, agentsFile: read}
	if own := a.parts.sessionServers(servers); len(own) > 0 {
		p := a.parts
		b.mcp = mcptools.Start(ctx, own, dir, b.env().For(p.cfg.File, a.depth), p.opts.Version,
			func(msg string) { fmt.Fprintln(p.notices, msg) })
	}
	b.assemble(nil)
	return b, nil
}

// sessionServers are the servers an editor gave that can start beside the
// config's: those named like one of the config's are left out, with a
// notice.
func (p *parts) sessionServers(servers map[string]config.MCPServer) map[string]config.MCPServer {
	own := make(map[string]config.MCPServer, len(servers))
	for name, s := range servers {
		if _, clash := p.cfg.MCPServers[name]; clash {
			fmt.Fprintf(p.notices, "mm: the editor's MCP server %q is left out: the config has a server of that name, whose tools are offered\n", name)
			continue
		}
		own[name] = s
	}
	return own
}

// instructions are the system instructions of cfg's agent working in
// dir: system:, then a blank line and dir's AGENTS.md unless agentsFile
// is off; read says the file was read.
func instructions(cfg *config.Config, dir string) (system string, read bool, err error) {
	if !cfg.AgentsFile {
		return cfg.System, false, nil
	}
	text, _, err := config.ReadAgentsFile(dir)
	if err != nil {
		where := "agentsFile: false in the config"
		if cfg.Path != "" {
			where = "agentsFile: false in " + cfg.Path
		}
		return "", false, fmt.Errorf("%w; mm reads %s into the system instructions: fix it, or set %s", err, config.AgentsFileName, where)
	}
	if text == "" {
		return cfg.System, false, nil
	}
	if s := strings.TrimRight(cfg.System, "\n"); s != "" {
		return s + "\n\n" + text, true, nil
	}
	return text, true, nil
}

// At is the agent asked at depth (a task of mm -a2a, whose tasks come at
// different depths at once): its hooks see asked.depth, its relays count
// from it, and what it starts — hooks, commands, children — reads it in
// MM_ASK_DEPTH. It shares everything with a, the asked agents' processes
// included; it has nothing of its own to close.
func (a *Agent) At(depth int) *Agent {
	b := &Agent{parts: a.parts, dir: a.dir, depth: depth, box: a.box, shared: true, system: a.system, agentsFile: a.agentsFile, mcp: a.mcp}
	b.assemble(a.sup)
	return b
}

// Turn runs one fresh turn of the agent (an ask: no history), its consent
// questions put through c, and says how it ended as the asking side reads
// it. It is what an asked agent's process serves (agentproc.Agent) and a
// served agent answers with.
func (a *Agent) Turn(ctx context.Context, prompt string, show func(orchestrator.Event), c orchestrator.Consent) relay.AskResponse {
	return relay.FromTurn(orchestrator.NewSession(a.Agent).Generate(ctx, prompt, show, c))
}

// env is the environment a's processes get: mm's, with the paths a's
// sandbox protects in a's directory (MM_SANDBOX_PROTECT) when it has one.
func (a *Agent) env() Env {
	e := a.parts.opts.Env
	if a.box != nil {
		e.Protect = a.box.Protected(a.dir)
	}
	return e
}

// guarded is box protecting, for cfg's agent working in dir, what mm runs
// or loads outside the sandbox (protectedPaths), the directory of each
// file of those and of the mm binary (env.Bin), and the PATH entries
// (env's) in a writable directory: the contract's "Nothing the model
// writes runs outside the sandbox". Such a file lying directly in a
// writable directory, whose directory cannot be made read-only, is an
// error naming it.
func guarded(box *sandbox.Sandbox, cfg *config.Config, dir string, env Env) (*sandbox.Sandbox, error) {
	paths, rs := protectedPaths(cfg, dir)
	if env.Bin != "" {
		rs = append(rs, sandbox.Runnable{Path: env.Bin, What: sandbox.BinFile})
	}
	if err := box.Loose(dir, rs); err != nil {
		return nil, err
	}
	_, onPath, _ := box.Path(env.Get("PATH"), dir)
	return box.With(append(append(paths, sandbox.Dirs(rs)...), onPath...)...), nil
}

// secrets are the variables that hold what mm itself authenticates with:
// the API key of the model's provider and of every provider the config
// declares (apiKeyEnv), and the bearer token of every remote agent
// (tokenEnv). The bash tool never sees them.
func (p *parts) secrets() []string {
	var names []string
	if c, ok := p.model.(*model.Client); ok && c.APIKeyEnv != "" {
		names = append(names, c.APIKeyEnv)
	}
	for _, pr := range p.cfg.Providers {
		if pr.APIKeyEnv != "" {
			names = append(names, pr.APIKeyEnv)
		}
	}
	for _, ra := range p.cfg.RemoteAgents {
		if ra.TokenEnv != "" {
			names = append(names, ra.TokenEnv)
		}
	}
	return names
}

// assemble builds the orchestrator's agent and the relay for a's directory
// and depth from the shared parts; sup, when not nil, runs the asked
// agents (else a supervisor of a's own is made).
func (a *Agent) assemble(sup *agentproc.Supervisor) {
	p, cfg := a.parts, a.parts.cfg
	e := a.env()
	env := e.For(cfg.File, a.depth)
	bashEnv := Without(env, p.secrets()...)
	if p.hadPath {
		bashEnv = withVar(bashEnv, "PATH", p.bashPath)
	}
	builtin, _ := tools.New(cfg.Tools, tools.Config{Dir: a.dir, Sandbox: a.box, Env: bashEnv}) // checked by New and In
	ts := make([]orchestrator.Tool, 0, len(builtin)+1)
	for _, t := range builtin {
		ts = append(ts, t)
	}
	for _, servers := range []*mcptools.Servers{p.mcp, a.mcp} {
		if servers == nil {
			continue
		}
		for _, t := range servers.Tools() {
			ts = append(ts, t)
		}
	}
	runner := &hooks.Runner{Hooks: cfg.Hooks, Cwd: a.dir, Model: cfg.Model, Depth: a.depth, Env: env}
	if p.log != nil {
		log, depth := p.log, a.depth
		var once sync.Once
		runner.Observe = func(run hooks.Run) {
			if err := log.Write(run, depth); err != nil {
				once.Do(func() { fmt.Fprintln(p.notices, "mm: hooksLog: "+err.Error()) })
			}
		}
	}
	app := &frontend.App{Config: cfg, Dir: a.dir, Banner: Banner(cfg, p.opts.Version, a.agentsFile)}
	if len(cfg.MMConfigs) > 0 {
		if sup == nil && len(cfg.RemoteAgents) < len(cfg.MMConfigs) {
			sup = &agentproc.Supervisor{
				Bin: p.opts.Env.Bin, Dir: a.dir, Stderr: p.notices, Log: p.opts.Log,
				Env: func(depth int) []string { return e.For(cfg.File, depth) },
			}
		}
		a.sup = sup
		app.Relay = &relay.Relay{
			Agents: cfg.MMConfigs, Asker: p.asker(sup), Hooks: runner,
			Depth: a.depth, MaxDepth: cfg.MaxAskDepth,
		}
		ts = append(ts, &relay.Tool{Relay: app.Relay})
	}
	system := a.system
	if !cfg.SystemSet {
		// No system: key: mm's own, then AGENTS.md (instructions).
		system = strings.TrimRight(builtinSystem(a.dir, ts, time.Now())+"\n\n"+system, "\n")
	}
	app.Agent = &orchestrator.Agent{
		Model:         p.model,
		ModelRef:      cfg.Model,
		Name:          modelName(cfg),
		System:        system,
		Tools:         ts,
		Yolo:          cfg.Yolo,
		MaxSteps:      cfg.MaxSteps,
		Parallel:      8,
		ParallelAsks:  cfg.MaxParallelAsks,
		Hooks:         runner,
		ContextBudget: cfg.ContextBudget,
		Expand:        (&attach.Expander{Dir: a.dir, Skills: skills(cfg)}).Expand,
	}
	if cfg.StructuredOutput != nil {
		app.Agent.Structured = cfg.StructuredOutput
	}
	app.OpenSession = a.openSession
	app.In = func(ctx context.Context, dir string, servers map[string]config.MCPServer) (*frontend.App, error) {
		b, err := a.In(ctx, dir, servers)
		if err != nil {
			return nil, err
		}
		return b.App, nil
	}
	app.Close = a.Close
	a.App = app
}

// modelName is the model's name on the wire (Resolve succeeded in New).
func modelName(cfg *config.Config) string {
	ep, _ := cfg.Resolve(cfg.Model)
	return ep.Model
}

// asker answers the relay: each remote agent over A2A, the others as
// child processes of sup.
func (p *parts) asker(sup *agentproc.Supervisor) relay.Asker {
	var local relay.Asker
	if sup != nil {
		local = sup
	}
	if len(p.remote) == 0 {
		return local
	}
	by := make(map[string]relay.Asker, len(p.remote))
	for name, a := range p.remote {
		by[name] = a
	}
	return &relay.Router{ByAgent: by, Default: local}
}

// skills are the config's skills: the skills/ folder next to the config,
// then the config's skills: entries.
func skills(cfg *config.Config) map[string]string {
	out := attach.SkillsIn(filepath.Join(cfg.Dir, "skills"))
	for name, path := range cfg.Skills {
		out[name] = path
	}
	return out
}

// openSession starts a session kept in the session file at path (loaded
// when it exists); "" keeps it in memory. The files are closed with the
// agent that New returned.
func (a *Agent) openSession(path string) (*orchestrator.Session, error) {
	s := orchestrator.NewSession(a.Agent)
	p := a.parts
	p.mu.Lock()
	defer p.mu.Unlock()
	if o := p.opened; o != nil && o.Path == path {
		p.opened = nil
		p.files = append(p.files, o.File)
		s.History, s.Store = o.History, o.File
		return s, nil
	}
	if path == "" {
		return s, nil
	}
	f, history, err := sessionfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("session file: %w", err)
	}
	if d := f.Dropped(); d != nil {
		fmt.Fprintln(p.notices, "mm: "+d.String())
	}
	p.files = append(p.files, f)
	s.History, s.Store = history, f
	return s, nil
}

// Close ends what the agent started: its asked agents' processes, the MCP
// servers started for it alone (In) and, for the agent New returned, the
// config's MCP servers, the hooks log and the session files. It is safe
// to call more than once.
func (a *Agent) Close() {
	if a.sup != nil && !a.shared {
		a.sup.Close()
	}
	if a.mcp != nil && !a.shared {
		a.mcp.Close()
	}
	if a.owner {
		a.parts.close()
	}
}

func (p *parts) close() {
	if p.mcp != nil {
		p.mcp.Close()
	}
	for _, r := range p.remote {
		r.Close()
	}
	if p.log != nil {
		p.log.Close()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.files {
		f.Close()
	}
	p.files = nil
	if p.opened != nil {
		p.opened.File.Close()
		p.opened = nil
	}
}

// hasCommandHook reports whether any hook is a command (URL hooks need
// no shell).
func hasCommandHook(set hooks.Set) bool {
	for _, hs := range set {
		for _, h := range hs {
			if h.Command != "" {
				return true
			}
		}
	}
	return false
}

// hookURLWarnings are the start-up warnings of URL hooks that send their
// input — prompts, tool calls, answers — in clear text over a network: an
// http:// URL whose host is not loopback.
func hookURLWarnings(set hooks.Set) []string {
	var out []string
	for _, e := range hooks.Events {
		for i, h := range set[e] {
			if strings.HasPrefix(strings.ToLower(h.URL), "http://") && !hooks.Loopback(h.URL) {
				out = append(out, fmt.Sprintf("mm: warning: hooks.%s[%d]: %s is plain http to a host that is not loopback: hook inputs (prompts, tool calls) and any token in its headers cross the network unencrypted; use https://", e, i, h.URL))
			}
		}
	}
	return out
}

// apiKeyWarning is the start-up warning of a provider whose apiKeyEnv
// names a variable that is not set.
func apiKeyWarning(ep config.Endpoint) string {
	return fmt.Sprintf("mm: warning: %s is not set (apiKeyEnv of provider %s): requests to %s go without an API key", ep.APIKeyEnv, ep.Provider, ep.BaseURL)
}

// Banner is the start-up line of line mode and the window: mm's version,
// the agent's name, the config, the model, yolo, then — when they apply —
// the hooks, the sandbox and, last, " | AGENTS.md" when agentsFile read
// one (agentsFile).
func Banner(cfg *config.Config, version string, agentsFile bool) string {
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
	agents := ""
	if agentsFile {
		agents = " | " + config.AgentsFileName
	}
	return fmt.Sprintf("mm %s%s | config: %s | model: %s | yolo: %s%s%s%s", version, name, path, cfg.Model, yolo, hooksSuffix(cfg.Hooks), sandboxed, agents)
}

// hooksSuffix is the banner's " | hooks: <event>×<count> …" part, "" when
// no hook is declared.
func hooksSuffix(s hooks.Set) string {
	var parts []string
	for _, e := range hooks.Events {
		if n := len(s[e]); n > 0 {
			parts = append(parts, fmt.Sprintf("%s×%d", e, n))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " | hooks: " + strings.Join(parts, " ")
}
