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
// The first half is what must be ready at once: keeping the list of the
// groups mm has running and killing those still listed when mm is gone.
// The second half, looking through the process table for what left its
// group, needs os and runs from package procs's init once this one
// returns, after mm is gone, off the path of any turn.
package earlywarden

// Env, in a process's environment, makes it a warden: its value is the
// token of the mm it watches (procs.wardenEnv is the same name).
const Env = "MM_PROCS_WARDEN"

// Done reports that this process was a warden whose mm is gone, and whose
// listed groups have been killed: what is left to do is procs's.
var Done bool
