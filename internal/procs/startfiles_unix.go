//go:build unix

package procs

import (
	"os/exec"
	"syscall"
)

// StartFiles starts a prepared cmd the way Start does, but straight
// through syscall.ForkExec with files as its descriptors: no os.Process is
// made, and the caller waits for the returned pid itself (syscall.Wait4).
// It is for hook runs, where what os/exec adds around a start (its
// environment's de-duplication, the Process and its pidfd's copy, the
// first start's pidfd probe, a child of its own) is a measurable part of
// a run (bench/README.md, "Hook cost in a real turn"). cmd.Env must hold
// each variable once; cmd.Path must be a path, not a name to look up.
func StartFiles(cmd *exec.Cmd, files []uintptr) (*Group, error) {
	if err := ready(); err != nil {
		return nil, err
	}
	pid, err := syscall.ForkExec(cmd.Path, cmd.Args, &syscall.ProcAttr{Dir: cmd.Dir, Env: cmd.Env, Files: files, Sys: cmd.SysProcAttr})
	if err != nil {
		return nil, err
	}
	g := &Group{pid: pid, tag: runTag(cmd.Env)}
	if err := track(g, false); err != nil {
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil) // killed: reaped here, the caller has no pid
		return nil, err
	}
	return g, nil
}
