package agentproc

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// memDir is a directory in memory (tmpfs) this process may make its
// children's socket directories in: the user's runtime directory
// ($XDG_RUNTIME_DIR, where the XDG spec puts sockets), else /dev/shm; ""
// when neither is one, or its path is too long for a socket's.
func memDir() string {
	for _, dir := range []string{os.Getenv("XDG_RUNTIME_DIR"), "/dev/shm"} {
		if dir == "" || !filepath.IsAbs(dir) || len(dir) > 60 {
			continue
		}
		var fs unix.Statfs_t
		if unix.Statfs(dir, &fs) != nil || (fs.Type != unix.TMPFS_MAGIC && fs.Type != unix.RAMFS_MAGIC) {
			continue
		}
		if unix.Access(dir, unix.W_OK|unix.X_OK) != nil {
			continue
		}
		return dir
	}
	return ""
}
