//go:build unix && !linux

package procs

import (
	"os/exec"
	"syscall"
)

// parentDeath does nothing where the kernel has no parent-death signal
// (macOS): the lifeline pipe and the warden do that work.
func parentDeath(*syscall.SysProcAttr, syscall.Signal) {}

// tiedToLife is false without a parent-death signal: a child mm whose
// parent died reads its lifeline only once it serves, so the warden is
// what ends one still starting.
func tiedToLife(*exec.Cmd) bool { return false }
