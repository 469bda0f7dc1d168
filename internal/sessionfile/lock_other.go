//go:build !(unix && !aix) && !windows

package sessionfile

import "os"

// lock does nothing on systems without flock(2) or LockFileEx: there, two
// mm writing one session file at once are not detected.
func lock(*os.File) error { return nil }
