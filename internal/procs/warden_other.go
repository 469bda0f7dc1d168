//go:build unix && !linux

package procs

import (
	"os"
	"syscall"
)

// spawnWarden starts mm itself as the warden, with files as its
// descriptors 3 to 5. mm is no subreaper here (macOS has none): at its end
// it leaves the looking to the warden.
func spawnWarden(files []*os.File) (int, bool, error) {
	pid, err := spawnMMWarden(files)
	return pid, false, err
}

func childless() bool    { return false }
func reapOrphans()       {}
func subreaperSet() bool { return false }

// cloexecPipe is a pipe whose ends no process mm starts inherits (no
// pipe2 here: the fork lock keeps a start from coming in between).
func cloexecPipe() (p [2]int, err error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err = syscall.Pipe(p[:]); err == nil {
		syscall.CloseOnExec(p[0])
		syscall.CloseOnExec(p[1])
	}
	return p, err
}
