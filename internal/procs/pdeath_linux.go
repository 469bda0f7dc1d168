package procs

import "syscall"

// parentDeath has the kernel send sig to the child the moment the thread
// that started it ends (PR_SET_PDEATHSIG; Go starts processes from threads
// that live as long as mm), whatever the way mm ends.
func parentDeath(a *syscall.SysProcAttr, sig syscall.Signal) { a.Pdeathsig = sig }
