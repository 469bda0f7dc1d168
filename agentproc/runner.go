package agentproc

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin/runner"

	"github.com/mm-agent/mm/internal/procs"
)

// procRunner starts a child the way go-plugin's own runner does, with
// three differences that matter to mm: the child does not get the parent's
// stdin (in line mode it would steal the user's lines), it runs in a group
// of its own (a Ctrl-C in the terminal reaches the parent only, which
// cancels the ask), and it is tied to the parent's life (procs: a lifeline
// pipe, the parent-death signal on Linux, the warden, a job object on
// Windows). When the child ends, however it ends, the parent kills what it
// left: its group, and what escaped the group carrying its tag.
type procRunner struct {
	cmd            *exec.Cmd
	stdout, stderr io.ReadCloser
	lifeline       *procs.Lifeline
	group          *procs.Group
}

var _ runner.Runner = (*procRunner)(nil)

// newRunner returns go-plugin's RunnerFunc for the mm binary bin with args,
// in dir, with env (go-plugin's handshake variables are added to it).
func newRunner(bin string, args []string, dir string, env []string) func(hclog.Logger, *exec.Cmd, string) (runner.Runner, error) {
	return func(_ hclog.Logger, spec *exec.Cmd, _ string) (runner.Runner, error) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(append([]string(nil), env...), spec.Env...)
		cmd.Stdin = nil // /dev/null
		procs.Prepare(cmd)
		r := &procRunner{cmd: cmd}
		var err error
		if r.stdout, err = cmd.StdoutPipe(); err != nil {
			return nil, err
		}
		if r.stderr, err = cmd.StderrPipe(); err != nil {
			return nil, err
		}
		return r, nil
	}
}

func (r *procRunner) Start(context.Context) error {
	l, err := procs.NewLifeline(r.cmd)
	if err != nil {
		return err
	}
	g, err := procs.Start(r.cmd)
	l.Started()
	if err != nil {
		l.Close()
		return err
	}
	r.lifeline, r.group = l, g
	return nil
}

func (r *procRunner) Wait(context.Context) error {
	err := r.cmd.Wait()
	r.lifeline.Close()
	r.group.Kill()
	if err != nil {
		// It crashed, was killed, or aborted: what it started may have
		// outlived it, found by its tag. A child that exited 0 went the
		// orderly way — it stopped what it started, and its own warden,
		// reading end of file as it exited, killed every process carrying
		// its tag — so the process table (a millisecond to read, the
		// largest part of a one-shot ask's end) is left alone.
		r.group.KillEscaped()
	}
	r.group.Release()
	return err
}

// Kill asks the child to go (SIGTERM: it kills what it started and exits)
// and kills its group outright half a second later.
func (r *procRunner) Kill(context.Context) error {
	if r.group == nil {
		return nil
	}
	r.group.Terminate()
	time.AfterFunc(500*time.Millisecond, r.group.Kill)
	return nil
}

func (r *procRunner) Stdout() io.ReadCloser { return r.stdout }
func (r *procRunner) Stderr() io.ReadCloser { return r.stderr }
func (r *procRunner) Name() string          { return r.cmd.Path }
func (r *procRunner) ID() string {
	if r.group == nil {
		return ""
	}
	return fmt.Sprint(r.group.Pid())
}
func (r *procRunner) Diagnose(context.Context) string {
	return "the asked agent's process (" + r.cmd.Path + ") did not complete the handshake"
}
func (r *procRunner) PluginToHost(n, a string) (string, string, error) { return n, a, nil }
func (r *procRunner) HostToPlugin(n, a string) (string, string, error) { return n, a, nil }
