// Package earlywarden does the work of mm's process warden (see package
// procs) from the earliest package initialisation mm has, before the
// runtime has initialised the hundred-odd packages the rest of mm needs:
// once mm is gone, the warden runs mm's binary for this, and measured end
// to end a warden's start was the cost a hook run had slipped by
// (bench/README.md, "Hook cost in a real turn").
//
// It imports nothing but syscall, so that it is initialised right after
// it: package initialisation goes by import path among the packages whose
// imports are ready, and a package that needs os waits for every package
// sorted before "os" that can go first (all of github.com/…, golang.org/…
// and google.golang.org/…, protobuf's descriptors included) — some 6 ms
// of CPU of the 9 a warden's start cost.
//
// On Linux the whole warden runs here, with syscall alone: it waits on the
// lifeline until mm says all is done (then it exits) or is gone, then
// kills the groups mm's table still lists and looks through /proc for what
// left its group, and exits without ever initialising the rest. Elsewhere
// (macOS reads the process table with sysctl) it does nothing and package
// procs's init runs the warden.
package earlywarden

// Env, in a process's environment, makes it a warden: its value is the
// token of the mm it watches (procs.wardenEnv is the same name).
const Env = "MM_PROCS_WARDEN"

// The warden's file descriptors (procs starts it so): the table of the
// groups mm has running, and the lifeline, a pipe only mm writes to.
const (
	TableFd = 3
	LifeFd  = 5
)

// tagEnv is procs.TagEnv: the tags every process mm starts carries.
const tagEnv = "MM_PROC_TAG"
