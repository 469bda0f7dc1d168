//go:build windows

package sessionfile

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lock takes an exclusive LockFileEx lock on f without waiting. Windows
// releases it when the handle is closed or the process ends. The locked
// byte lies far past the end of any session file: Windows locks are
// mandatory, and readers (Load) must still read the records.
func lock(f *os.File) error {
	ol := &windows.Overlapped{Offset: 0xFFFFFFFE, OffsetHigh: 0x7FFFFFFF}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errLocked
	}
	return err
}
