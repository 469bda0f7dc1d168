package procs

import "os/exec"

// Lifeline ties a child mm to this process's life. On Windows the child's
// job object does it (it is killed when this process dies, and what it
// started with it), so the lifeline holds nothing.
type Lifeline struct{}

// NewLifeline prepares nothing more on Windows.
func NewLifeline(*exec.Cmd) (*Lifeline, error) { return &Lifeline{}, nil }

// Started does nothing on Windows.
func (*Lifeline) Started() {}

// Close does nothing on Windows.
func (*Lifeline) Close() {}

// WatchLifeline never calls gone on Windows: a child mm whose parent died
// is killed with its job.
func WatchLifeline(gone func()) {}
