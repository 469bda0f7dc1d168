// Package earlywarden runs the first half of mm's process warden (see
// package procs) from the earliest package initialisation mm has, before
// the runtime has initialised the hundred-odd packages the rest of mm
// needs: a warden is a copy of mm, started by the first hook or tool call
// of every mm process, and measured end to end its start was the cost a
// hook run had slipped by (bench/README.md, "Hook cost in a real turn").
//
// It imports nothing but syscall, so that it is initialised right after
// it: package initialisation goes by import path among the packages whose
// imports are ready, and a package that needs os waits for every package
// sorted before "os" that can go first (all of github.com/…, golang.org/…
// and google.golang.org/…, protobuf's descriptors included) — some 6 ms
// of CPU of the 9 a warden's start cost.
//
// On Linux the whole warden runs here, with syscall alone: it keeps the
// list of the groups mm has running, and when mm is gone kills those still
// listed and looks through /proc for what left its group, then exits
// without ever initialising the rest. Elsewhere (macOS reads the process
// table with sysctl) it does nothing and package procs's init runs the
// warden as before.
package earlywarden

// Env, in a process's environment, makes it a warden: its value is the
// token of the mm it watches (procs.wardenEnv is the same name).
const Env = "MM_PROCS_WARDEN"

// tagEnv is procs.TagEnv: the tags every process mm starts carries.
const tagEnv = "MM_PROC_TAG"
