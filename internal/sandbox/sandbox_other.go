//go:build !linux && !darwin

package sandbox

import (
	"fmt"
	"runtime"
)

// findTool fails: mm has a sandbox on Linux (bubblewrap) and macOS
// (sandbox-exec) only.
func findTool(m Mode) (string, error) {
	return "", fmt.Errorf("sandbox: %s is not available on %s (mm sandboxes with bubblewrap on Linux and sandbox-exec on macOS): set sandbox: off", m, runtime.GOOS)
}

func (s *Sandbox) args(string) []string { return nil }
