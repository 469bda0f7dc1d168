package agentproc

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin/runner"
)

// procRunner starts a child the way go-plugin's own runner does, with
// three differences that matter to mm: the child does not get the parent's
// stdin (in line mode it would steal the user's lines), it runs in its own
// process group (a Ctrl-C in the terminal reaches the parent only, which
// cancels the ask), and it is tied to the parent's life by a lifeline pipe
// and the parent-death signal.
type procRunner struct {
	cmd            *exec.Cmd
	stdout, stderr io.ReadCloser
	lifeline       *os.File // the parent's end; closed when the child is gone
	pid            int
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
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
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
	lr, lw, err := os.Pipe()
	if err != nil {
		return err
	}
	r.cmd.ExtraFiles = []*os.File{lr}
	r.cmd.Env = append(r.cmd.Env, lifelineEnv+"=3")
	err = r.cmd.Start()
	lr.Close()
	if err != nil {
		lw.Close()
		return err
	}
	r.lifeline, r.pid = lw, r.cmd.Process.Pid
	return nil
}

func (r *procRunner) Wait(context.Context) error {
	err := r.cmd.Wait()
	r.lifeline.Close()
	return err
}

// Kill asks the child to go (SIGTERM: it kills what it started and exits)
// and kills its process group outright half a second later.
func (r *procRunner) Kill(context.Context) error {
	if r.pid == 0 {
		return nil
	}
	syscall.Kill(r.pid, syscall.SIGTERM)
	pid := r.pid
	time.AfterFunc(500*time.Millisecond, func() { syscall.Kill(-pid, syscall.SIGKILL) })
	return nil
}

func (r *procRunner) Stdout() io.ReadCloser { return r.stdout }
func (r *procRunner) Stderr() io.ReadCloser { return r.stderr }
func (r *procRunner) Name() string          { return r.cmd.Path }
func (r *procRunner) ID() string            { return fmt.Sprint(r.pid) }
func (r *procRunner) Diagnose(context.Context) string {
	return "the asked agent's process (" + r.cmd.Path + ") did not complete the handshake"
}
func (r *procRunner) PluginToHost(n, a string) (string, string, error) { return n, a, nil }
func (r *procRunner) HostToPlugin(n, a string) (string, string, error) { return n, a, nil }
