package procs

import (
	"os"

	"golang.org/x/sys/unix"
)

// tableFile is a memfd: memory with a file descriptor, which the warden
// inherits; nothing on disk. Where there is none (a kernel before 3.17, a
// seccomp policy), a removed temporary file.
func tableFile() (*os.File, error) {
	fd, err := unix.MemfdCreate("mm-procs", unix.MFD_CLOEXEC)
	if err != nil {
		return tempTable()
	}
	return os.NewFile(uintptr(fd), "mm-procs"), nil
}
