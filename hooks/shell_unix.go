//go:build unix

package hooks

// noShell is the shell when none is on PATH: every Unix has /bin/sh.
func noShell() (string, error) { return "/bin/sh", nil }
