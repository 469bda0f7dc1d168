//go:build unix && !linux

package procs

import "syscall"

// parentDeath does nothing where the kernel has no parent-death signal
// (macOS): the lifeline pipe and the warden do that work.
func parentDeath(*syscall.SysProcAttr, syscall.Signal) {}
