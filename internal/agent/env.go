package agent

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The variables mm sets for every process it starts — tools, hooks, MCP
// stdio servers, asked agents' processes (the contract, "The command
// line" and "Relays").
const (
	// BinVar is the path of the running mm, so a hook or a script can
	// run the same mm ("$MM_BIN" hooks adapt …, "$MM_BIN" --ask …).
	BinVar = "MM_BIN"
	// ConfigVar is the config file the agent read; unset when it read
	// none (built-in defaults).
	ConfigVar = "MM_CONFIG"
	// DepthVar is the relay depth of the agent that starts the process (an
	// asked agent's process gets its own: the asking one's + 1). An mm
	// started from a tool or a hook reads it as its own depth, so a relay
	// loop through the shell is bounded like a direct one.
	DepthVar = "MM_ASK_DEPTH"
	// LogVar names the diagnostics log (mm --log FILE does too); mm gives
	// it to what it starts, so an asked agent's process — or an mm run from
	// a hook — logs to the same file.
	LogVar = "MM_LOG"
	// ProtectVar lists, separated by the OS's path-list separator, the
	// paths the asking agent's sandbox keeps read-only: an asked agent
	// under a sandbox of its own keeps them read-only too, since its
	// bash works in the same directory and the asking agent runs what
	// they name (its hooks, its config) outside any sandbox.
	ProtectVar = "MM_SANDBOX_PROTECT"
)

// TokenVar is the bearer token a served agent (mm -a2a) requires. It is
// the served agent's own secret: nothing the agent starts inherits it —
// not its bash, whose commands a prompt-injected model writes, not its
// hooks, MCP servers or asked agents (the contract, "Nothing the model
// writes runs outside the sandbox").
const TokenVar = "MM_A2A_TOKEN"

// childVarPrefix starts the variables an asked agent's process gets from
// the mm that started it (agentproc: the handshake cookie, the lifeline's
// file descriptor): they are between the two, not for what it starts.
const childVarPrefix = "MM_AGENT_"

// Env is the environment mm inherited, read once at start, and what it
// renders for the processes it starts. Nothing in mm sets its own
// process's environment: each process gets its environment explicitly,
// and an agent asked at another depth (a task of mm -a2a) renders another
// one without touching the others'.
type Env struct {
	// Bin is the running mm (MM_BIN of what it starts).
	Bin string
	// Depth is MM_ASK_DEPTH as inherited: this agent's relay depth, 0
	// when unset.
	Depth int
	// Log is the diagnostics log file (MM_LOG, or --log); "" for none.
	Log string
	// Protect are the protected paths of the sandboxes above (MM_SANDBOX_PROTECT
	// as inherited, then the agent's own: New sets them); nil for none.
	Protect []string
	// inherited is the environment without the variables mm sets.
	inherited []string
}

// ReadEnv reads environ (os.Environ()) once; bin is the running mm
// (os.Executable). A malformed or negative MM_ASK_DEPTH is an error that
// names it: read as 0, it would silently defeat maxAskDepth.
func ReadEnv(environ []string, bin string) (Env, error) {
	e := Env{Bin: bin}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, childVarPrefix) {
			continue
		}
		switch k {
		case BinVar:
			if e.Bin == "" {
				e.Bin = v // the running mm could not be found: trust the parent's
			}
			continue
		case ConfigVar, TokenVar:
			continue
		case LogVar:
			e.Log = v
			continue
		case ProtectVar:
			e.Protect = filepath.SplitList(v)
			continue
		case DepthVar:
			d, err := ParseDepth(v)
			if err != nil {
				return Env{}, err
			}
			e.Depth = d
			continue
		}
		e.inherited = append(e.inherited, kv)
	}
	return e, nil
}

// ParseDepth reads a value of MM_ASK_DEPTH: "" is 0 (unset), anything
// but a whole number from 0 is an error naming the variable.
func ParseDepth(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	d, err := strconv.Atoi(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s=%q is not a relay depth: want a whole number, 0 or more (mm sets it for what it starts; unset it to start at depth 0)", DepthVar, v)
	}
	return d, nil
}

// For is the environment of a process started by the agent whose config
// file is configFile (absolute; "" when it read none), at relay depth
// depth: what mm inherited, then MM_BIN, MM_CONFIG and MM_ASK_DEPTH (and
// MM_LOG when there is a log, MM_SANDBOX_PROTECT when there are protected
// paths).
func (e Env) For(configFile string, depth int) []string {
	out := make([]string, 0, len(e.inherited)+4)
	out = append(out, e.inherited...)
	if e.Log != "" {
		out = append(out, LogVar+"="+e.Log)
	}
	if e.Bin != "" {
		out = append(out, BinVar+"="+e.Bin)
	}
	if configFile != "" {
		out = append(out, ConfigVar+"="+configFile)
	}
	if len(e.Protect) > 0 {
		out = append(out, ProtectVar+"="+strings.Join(e.Protect, string(filepath.ListSeparator)))
	}
	return append(out, DepthVar+"="+strconv.Itoa(depth))
}

// Without is env with the variables named by names left out: what the
// bash tool gets once the secrets mm itself uses are taken out of it (a
// provider's apiKeyEnv, a remote agent's tokenEnv), as Codex CLI's
// default shell policy leaves out variables that hold keys and tokens.
func Without(env []string, names ...string) []string {
	if len(names) == 0 {
		return env
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, k) {
			out = append(out, kv)
		}
	}
	return out
}

// Get is the value of the inherited variable name; "" when unset.
func (e Env) Get(name string) string {
	for _, kv := range e.inherited {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v
		}
	}
	return ""
}

// Has reports whether the variable name was inherited.
func (e Env) Has(name string) bool {
	for _, kv := range e.inherited {
		if k, _, _ := strings.Cut(kv, "="); k == name {
			return true
		}
	}
	return false
}

// With is e with the inherited variable name set to value (added when it
// was unset); e itself is unchanged.
func (e Env) With(name, value string) Env {
	e.inherited = withVar(e.inherited, name, value)
	return e
}

// withVar is env with name set to value, in place of where it was.
func withVar(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	set := false
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k == name {
			if !set {
				out = append(out, name+"="+value)
				set = true
			}
			continue
		}
		out = append(out, kv)
	}
	if !set {
		out = append(out, name+"="+value)
	}
	return out
}
