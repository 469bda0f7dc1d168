package procs

import (
	"os"

	"golang.org/x/sys/unix"
)

// tableFile is a memfd: memory with a file descriptor, which the warden
// inherits; nothing on disk.
func tableFile() (*os.File, error) {
	fd, err := unix.MemfdCreate("mm-procs", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), "mm-procs"), nil
}
