package hookadapt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/procs"
)

// Limits on what the wrapped command writes, mirroring mm's own on a hook:
// stdout up to 1 MiB, the head of stderr (a reason is a line or two).
const (
	maxStdout = 1 << 20
	maxStderr = 64 << 10
	// waitDelay bounds the wait for the command's pipes once it has exited:
	// a background child it left holding them open is not waited for (mm
	// kills the hook's whole process group when the adapter returns).
	waitDelay = 500 * time.Millisecond
)

// Runner is one `mm hooks adapt` run.
type Runner struct {
	Agent   Agent
	Matcher *Matcher // nil: every tool
	Command []string // the wrapped command and its arguments
	Env     []string // the environment the command inherits (mm's), plus the agent's variables
	// MCPServers returns the names of the config's MCP servers (see Env).
	MCPServers func() []string
}

// Run reads mm's hook input from stdin and returns mm's reply. Every
// failure is a reply too (action "error", with a message naming what did
// not translate), so mm's failure line says what happened.
func (r *Runner) Run(ctx context.Context, stdin io.Reader) Reply {
	b, err := io.ReadAll(io.LimitReader(stdin, 64<<20))
	if err != nil {
		return failed(fmt.Errorf("read the hook input: %w", err))
	}
	var in hooks.Input
	if err := json.Unmarshal(b, &in); err != nil {
		return failed(fmt.Errorf("the input on stdin is not an mm hook input: %s", strings.TrimPrefix(err.Error(), "json: ")))
	}
	if in.Event == "" {
		in.Event = hooks.Event(os.Getenv("MM_HOOK_EVENT"))
	}
	if !hooks.Known(string(in.Event)) {
		return failed(fmt.Errorf("the input on stdin is not an mm hook input: event %q", in.Event))
	}
	t, err := r.Agent.Translate(in, Env{MCPServers: r.MCPServers, Now: time.Now().UTC().Format("2006-01-02T15:04:05.000Z")})
	if err != nil {
		return failed(err)
	}
	if r.Matcher != nil && t.ToolName != "" && !r.Matcher.Match(r.Agent, t.ToolName) {
		return Reply{} // the hook is not for this tool: the agent would not have run it
	}
	res, err := r.exec(ctx, t)
	if err != nil {
		return failed(err)
	}
	return t.Reply(res)
}

// exec runs the wrapped command with the agent's input on stdin. The
// command stays in the adapter's process group — the one mm made for the
// hook — so that mm's timeout and cancel, which kill that group, reach it
// and whatever it starts.
func (r *Runner) exec(ctx context.Context, t *Translated) (Result, error) {
	if len(r.Command) == 0 {
		return Result{}, fmt.Errorf("no command to run: mm hooks adapt %s -- <command> [args…]", r.Agent)
	}
	cmd := exec.CommandContext(ctx, r.Command[0], r.Command[1:]...)
	cmd.Env = append(append([]string(nil), r.Env...), t.Env...)
	cmd.Stdin = bytes.NewReader(t.Stdin)
	stdout := &capped{max: maxStdout}
	stderr := &capped{max: maxStderr, keepHead: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = waitDelay
	err := cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // it exited 0; a child of it kept the pipes
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		if sig, ok := procs.Signal(ee.ProcessState); ok {
			msg := "killed by signal " + sig
			if q := quote(stderr.b.Bytes()); q != "" {
				msg += ": " + q
			}
			return Result{}, errors.New(msg)
		}
	case err != nil:
		return Result{}, fmt.Errorf("start %s: %w", r.Command[0], unwrapExec(err))
	}
	if stdout.over {
		return Result{}, fmt.Errorf("stdout larger than %d bytes", maxStdout)
	}
	return Result{ExitCode: cmd.ProcessState.ExitCode(), Stdout: stdout.b.Bytes(), Stderr: stderr.b.Bytes()}, nil
}

// unwrapExec drops os/exec's "exec: " prefix and the repeated path.
func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// capped keeps at most max bytes of what is written to it and drains the
// rest, so a flood costs no memory and never blocks the command.
type capped struct {
	b        bytes.Buffer
	max      int
	over     bool
	keepHead bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	if c.b.Len()+len(p) > c.max && !c.keepHead {
		c.over = true
	}
	return len(p), nil
}

// Matcher is a hook's matcher as the agent reads it (Claude Code's rule,
// which Codex CLI and Gemini CLI follow): empty or "*" matches every tool;
// names made of letters, digits and "_" joined by "|" match exactly; any
// other value is an unanchored regular expression.
type Matcher struct {
	text  string
	names map[string]bool
	re    *regexp.Regexp
}

var plainNames = regexp.MustCompile(`^[A-Za-z0-9_|]+$`)

// ParseMatcher reads an agent's matcher; nil for one that matches every tool.
func ParseMatcher(s string) (*Matcher, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "*" {
		return nil, nil
	}
	m := &Matcher{text: s}
	if plainNames.MatchString(s) {
		m.names = map[string]bool{}
		for _, n := range strings.Split(s, "|") {
			if n != "" {
				m.names[n] = true
			}
		}
		return m, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, fmt.Errorf("matcher %q: %w", s, err)
	}
	m.re = re
	return m, nil
}

// String is the matcher as written.
func (m *Matcher) String() string { return m.text }

// Names are the exact tool names a plain matcher lists; nil for a regular
// expression.
func (m *Matcher) Names() []string {
	if m.names == nil {
		return nil
	}
	var out []string
	for _, n := range strings.Split(m.text, "|") {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Match reports whether the hook runs for the agent's tool name. Codex
// matches its apply_patch against Write and Edit too (its own aliases);
// Claude Code's Task is matched by Agent too.
func (m *Matcher) Match(a Agent, name string) bool {
	names := []string{name}
	if a == Codex && name == "apply_patch" {
		names = append(names, "Write", "Edit")
	}
	if a == ClaudeCode && name == claudeTask {
		names = append(names, "Agent") // the name newer Claude Code releases give Task
	}
	for _, n := range names {
		if m.names != nil && m.names[n] || m.re != nil && m.re.MatchString(n) {
			return true
		}
	}
	return false
}
