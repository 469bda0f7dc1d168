//go:build unix

package tools

// bashPath is the bash the tool runs: the first on PATH (when there is
// none, starting it says so).
func bashPath() (string, error) { return "bash", nil }
