package procs

import (
	"os/exec"
	"syscall"
)

// parentDeath has the kernel send sig to the child the moment the thread
// that started it ends (PR_SET_PDEATHSIG; Go starts processes from threads
// that live as long as mm), whatever the way mm ends.
func parentDeath(a *syscall.SysProcAttr, sig syscall.Signal) { a.Pdeathsig = sig }

// tiedToLife reports whether cmd goes with mm however mm dies, without a
// warden: a child mm with a lifeline (NewLifeline), which the kernel also
// sends SIGTERM when mm dies — from the first instruction it runs, before
// it reads its lifeline — and which then kills what it started and exits.
func tiedToLife(cmd *exec.Cmd) bool {
	return cmd.SysProcAttr != nil && cmd.SysProcAttr.Pdeathsig != 0 && hasLifeline(cmd.Env)
}
