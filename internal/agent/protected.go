package agent

import (
	"os"
	"path/filepath"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/internal/hookadapt"
	"github.com/mm-agent/mm/internal/sandbox"
)

// protectedPaths are the paths a sandbox keeps read-only for cfg's agent
// working in dir (sandbox.New's protect): what mm runs, or reads to know
// what to run, outside the sandbox. For cfg and, in turn, every local
// mmConfigs file (an asked agent reads its config, and runs its hooks,
// unsandboxed by its parent's sandbox): the config file itself, its
// structuredOutput file, the hooks/ directory next to it, and the files
// its hook commands and MCP servers' commands name (sandbox.CommandPaths),
// and, for a hook that wraps `mm hooks adapt <agent>`, that agent's hook
// directory and settings in dir (peerPaths).
// An mmConfigs file that does not load is protected alone, with the
// hooks/ next to it. The session directory's .git paths are the
// sandbox's own (sandbox.Protected). AGENTS.md and skills are read as
// text for the model, never run: they are not protected.
//
// rs are the files among them that mm runs or loads outside the sandbox
// (the configs, and the hook and MCP servers' files that are scripts,
// sandbox.IsScript, not data a command reads or writes): their
// directories are protected too (sandbox.Dirs), and one lying directly in
// the writable session directory is an error at start (sandbox.Loose).
func protectedPaths(cfg *config.Config, dir string) (out []string, rs []sandbox.Runnable) {
	seen := map[string]bool{}
	runs := func(what string, paths []string) {
		out = append(out, paths...)
		for _, p := range paths {
			if what == sandbox.ConfigFile || sandbox.IsScript(p) {
				rs = append(rs, sandbox.Runnable{Path: p, What: what})
			}
		}
	}
	var walk func(c *config.Config)
	walk = func(c *config.Config) {
		if c.File != "" { // the built-in defaults have no file, and no hooks/
			runs(sandbox.ConfigFile, []string{c.File})
			out = append(out, hooksDir(c.Dir)...)
		}
		if c.StructuredOutputFile != "" {
			out = append(out, c.StructuredOutputFile)
		}
		for _, hs := range c.Hooks {
			for _, h := range hs {
				if h.Command == "" {
					continue // a URL hook: nothing on disk runs
				}
				configDir := h.ConfigDir
				if configDir == "" {
					configDir = c.Dir
				}
				runs(sandbox.HookScript, sandbox.CommandPaths(h.Command, configDir, dir))
				if a, ok, _ := hookadapt.Wraps(h.Command); ok {
					out = append(out, peerPaths(a, dir)...)
				}
			}
		}
		for _, s := range c.MCPServers {
			if s.Command == "" {
				continue
			}
			cwd := s.Cwd
			if cwd == "" {
				cwd = dir
			}
			for _, w := range append([]string{s.Command}, s.Args...) {
				runs(sandbox.MCPScript, sandbox.CommandPaths(w, c.Dir, cwd))
			}
		}
		for name, path := range c.MMConfigs {
			if _, remote := c.RemoteAgents[name]; remote || seen[path] {
				continue
			}
			seen[path] = true
			child, err := config.Load(path)
			if err != nil {
				runs(sandbox.ConfigFile, []string{path})
				out = append(out, hooksDir(filepath.Dir(path))...)
				continue
			}
			walk(child)
		}
	}
	if cfg.File != "" {
		seen[cfg.File] = true
	}
	walk(cfg)
	return out, rs
}

// peerFiles are, for each agent `mm hooks adapt` speaks for, where that
// agent keeps its hooks and the settings that name them, below the
// project: what an adapted hook's script was written for, which `mm hooks
// import` reads again and the agent itself runs.
var peerFiles = map[hookadapt.Agent][]string{
	hookadapt.ClaudeCode: {".claude/settings.json", ".claude/settings.local.json", ".claude/hooks"},
	hookadapt.Gemini:     {".gemini/settings.json", ".gemini/hooks"},
	hookadapt.Codex:      {".codex/config.toml", ".codex/hooks.json", ".codex/hooks"},
}

// peerPaths are the peerFiles of a (of every agent when a is "") that exist
// in dir, the session directory.
func peerPaths(a hookadapt.Agent, dir string) []string {
	var out []string
	for agent, files := range peerFiles {
		if a != "" && agent != a {
			continue
		}
		for _, f := range files {
			p := filepath.Join(dir, filepath.FromSlash(f))
			if _, err := os.Stat(p); err == nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// hooksDir is dir's hooks/ directory when it exists, where the how-to
// (and the demos) keep hook scripts.
func hooksDir(dir string) []string {
	if dir == "" {
		return nil
	}
	p := filepath.Join(dir, "hooks")
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return []string{p}
	}
	return nil
}
