//go:build !linux

package agentproc

// memDir is "" where mm knows no directory in memory for sockets: the
// children's socket directories go in the temporary directory.
func memDir() string { return "" }
