// Package sandbox is the floor under the hooks. A guard hook reads a tool
// call's text; a model that writes a script and runs it, or builds a path
// through a symbolic link, walks past it. The sandbox holds below the
// text: the bash tool's commands run with the filesystem read-only except
// the session directory and the temp directory, and without network
// (bubblewrap on Linux, sandbox-exec on macOS), and write_file and
// edit_file refuse any path outside those two once symbolic links are
// resolved (Files).
//
// Hooks and MCP stdio servers are not sandboxed: they are the config
// author's code, not the model's. So their scripts, and the configs that
// name them, are kept read-only inside the sandbox (Protected).
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mm-agent/mm/internal/sandbox/sandboxdecl"
)

// The sandbox as a config declares it lives in package sandboxdecl, which
// config imports without importing this runtime; these are its names as
// the rest of mm spells them.
type (
	// Mode is the config's sandbox: value.
	Mode = sandboxdecl.Mode
	// Policy is what a config asks for.
	Policy = sandboxdecl.Policy
)

// The modes of the contract's "Sandbox" section (see sandboxdecl).
const (
	Off       = sandboxdecl.Off
	Workspace = sandboxdecl.Workspace
	ReadOnly  = sandboxdecl.ReadOnly
)

// Modes lists the modes, in the order a message names them.
var Modes = sandboxdecl.Modes

// ParseMode reads a sandbox: value; ok is false for anything but a mode.
func ParseMode(s string) (Mode, bool) { return sandboxdecl.ParseMode(s) }

// Sandbox is a policy checked to work on this machine: New has started
// one around a command that does nothing. A nil *Sandbox is no sandbox;
// every method accepts it.
type Sandbox struct {
	policy Policy
	tool   string // absolute path of bwrap or sandbox-exec
	tmp    string // the temp directory, symbolic links resolved
	// protect are the protected paths New was given (see Protected),
	// symbolic links resolved.
	protect []string
}

// probeTimeout bounds the start-up check: a bwrap that hangs is a sandbox
// that does not work.
const probeTimeout = 10 * time.Second

// New checks that p's sandbox can be set up here, for commands working in
// dir, by running one around `true`; it returns nil for Off. protect are
// the files and directories mm runs, or reads to know what to run, outside
// the sandbox (hook scripts, config files; see Protected): those that
// exist are kept read-only to every command, and refused to the file
// tools. The error is
// one line for the user, naming the sandbox and what is missing: a sandbox
// asked for is never silently left out.
func New(ctx context.Context, p Policy, dir string, protect ...string) (*Sandbox, error) {
	switch p.Mode {
	case Off, "":
		return nil, nil
	case Workspace, ReadOnly:
	default:
		return nil, fmt.Errorf("sandbox: unknown mode %q", p.Mode)
	}
	tool, err := findTool(p.Mode)
	if err != nil {
		return nil, err
	}
	if p.Mode == Workspace && realOrClean(dir) == string(filepath.Separator) {
		return nil, fmt.Errorf("sandbox: workspace: the session directory is /, which would leave nothing read-only: start mm in a project's directory")
	}
	tmp, err := tempDir()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %s: the temp directory %w", p.Mode, err)
	}
	s := &Sandbox{policy: p, tool: tool, tmp: tmp, protect: cleanProtected(protect)}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	// The probe is not put in a process group of its own: on Linux,
	// --die-with-parent and the PID namespace take whatever it started
	// when bwrap is killed on timeout.
	probe := exec.CommandContext(ctx, "true")
	probe.Dir = dir
	s.Wrap(probe)
	out, err := probe.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %s: %s cannot start a sandbox here: %s", p.Mode, filepath.Base(tool), failure(ctx, out, err))
	}
	return s, nil
}

// failure is why the probe failed, in one line: the tool's first line of
// complaint, or how it ended.
func failure(ctx context.Context, out []byte, err error) string {
	if ctx.Err() != nil {
		return fmt.Sprintf("it did not finish within %s", probeTimeout)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if line != "" {
		return line
	}
	return err.Error()
}

// tempDir is the temp directory (os.TempDir: $TMPDIR, or /tmp), with its
// symbolic links resolved; it must exist.
func tempDir() (string, error) {
	t := os.TempDir()
	real, err := filepath.EvalSymlinks(t)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", fmt.Errorf("%s: %v", t, err)
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%s: not a directory", t)
	}
	return real, nil
}

// Mode is the sandbox's mode; Off for nil.
func (s *Sandbox) Mode() Mode {
	if s == nil {
		return Off
	}
	return s.policy.Mode
}

// Network reports whether commands keep the network.
func (s *Sandbox) Network() bool { return s == nil || s.policy.Network }

// TempDir is the temp directory commands may write in, symbolic links
// resolved; "" for nil.
func (s *Sandbox) TempDir() string {
	if s == nil {
		return ""
	}
	return s.tmp
}

// Note is what the bash tool's description adds for the model, so that it
// does not retry what the sandbox refuses; "" for nil.
func (s *Sandbox) Note() string {
	if s == nil {
		return ""
	}
	net := " and without network"
	if s.policy.Network {
		net = ""
	}
	if s.policy.Mode == ReadOnly {
		return fmt.Sprintf(" It runs in a read-only sandbox%s: only %s is writable.", net, s.tmp)
	}
	return fmt.Sprintf(" It runs in a sandbox%s: only the working directory and %s are writable.", net, s.tmp)
}

// Wrap rewrites cmd, not yet started, to run inside the sandbox; cmd.Dir
// is the session directory (mm's own when empty). It does nothing for nil.
// cmd keeps its process attributes: the caller's process group still takes
// everything the command started with it.
func (s *Sandbox) Wrap(cmd *exec.Cmd) {
	if s == nil {
		return
	}
	dir := cmd.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	// The command is named as the caller named it, so its messages read
	// the same inside ("bash: line 1: …"); the sandbox finds it on the
	// same PATH.
	cmd.Args = append(s.args(realOrClean(dir)), cmd.Args...)
	cmd.Path = s.tool
	cmd.Err = nil
}

// realOrClean is dir with its symbolic links resolved, or cleaned when
// that fails.
func realOrClean(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return filepath.Clean(dir)
}

// within reports whether path is root or below it; both clean and
// absolute.
func within(root, path string) bool {
	if root == path {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(path, root)
}
