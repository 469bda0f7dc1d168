package hooks

import "errors"

// noShell is the error when no sh is on PATH: Windows has none of its own.
func noShell() (string, error) {
	return "", errors.New("hooks run with sh, and there is no sh on PATH: " +
		`install Git for Windows and add its bin directory (C:\Program Files\Git\bin, where sh.exe is) to PATH`)
}
