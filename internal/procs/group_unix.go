//go:build unix

package procs

import (
	"os"
	"os/exec"
	"syscall"
)

// sysGroup is nothing on Unix: a process group is named by its leader's pid.
type sysGroup struct{}

func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// prepareServer adds, on Linux, SIGKILL the moment mm dies.
func prepareServer(cmd *exec.Cmd) { parentDeath(cmd.SysProcAttr, syscall.SIGKILL) }

func (*sysGroup) attach(*os.Process) error { return nil }
func (*sysGroup) kill(pid int)             { syscall.Kill(-pid, syscall.SIGKILL) }
func (*sysGroup) terminate(pid int)        { syscall.Kill(pid, syscall.SIGTERM) }
func (*sysGroup) release()                 {}
