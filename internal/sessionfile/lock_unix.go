//go:build unix && !aix

package sessionfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive flock(2) on f without waiting. The lock belongs
// to the open file, not to the path: the system releases it when the file
// is closed or the process ends — a kill -9 included — so no lock is ever
// left stale. mm's files are opened close-on-exec, so the tools and hooks
// it starts do not inherit it.
func lock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		for {
			lerr = unix.Flock(int(fd), unix.LOCK_EX|unix.LOCK_NB)
			if !errors.Is(lerr, unix.EINTR) {
				return
			}
		}
	}); err != nil {
		return err
	}
	if errors.Is(lerr, unix.EWOULDBLOCK) {
		return errLocked
	}
	return lerr
}
