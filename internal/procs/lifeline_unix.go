//go:build unix

package procs

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// lifelineEnv names the child's file descriptor whose other end the parent
// holds: when the parent dies, the child reads end of file.
const lifelineEnv = "MM_AGENT_LIFELINE_FD"

// Lifeline ties a child mm to this process's life.
type Lifeline struct{ parent, child *os.File }

// NewLifeline gives cmd (a child mm, prepared, not yet started) a
// lifeline: a pipe whose write end only this process holds, passed to the
// child as an extra file (and, on Linux, SIGTERM the moment this process
// dies). Call Started once cmd has started, and Close once it has ended.
func NewLifeline(cmd *exec.Cmd) (*Lifeline, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	cmd.Env = append(cmd.Env, lifelineEnv+"="+strconv.Itoa(2+len(cmd.ExtraFiles)))
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	parentDeath(cmd.SysProcAttr, syscall.SIGTERM)
	return &Lifeline{parent: w, child: r}, nil
}

// Started lets go of the child's end: the child holds it now.
func (l *Lifeline) Started() { l.child.Close() }

// Close ends the lifeline (the child, if still running, reads end of file).
func (l *Lifeline) Close() {
	l.parent.Close()
	l.child.Close()
}

// WatchLifeline, in a child mm, calls gone (from a goroutine of its own)
// when the parent that started it dies. A process started without a
// lifeline never calls it.
func WatchLifeline(gone func()) {
	fd, err := strconv.Atoi(os.Getenv(lifelineEnv))
	if err != nil {
		return
	}
	// The variable stays in this process's environment; what the child
	// starts does not get it (internal/agent's Env leaves MM_AGENT_… out).
	f := os.NewFile(uintptr(fd), "lifeline")
	if f == nil {
		return
	}
	go func() {
		var b [1]byte
		f.Read(b[:]) // returns when the parent is gone
		gone()
	}()
}

// hasLifeline reports whether env gives a child a lifeline.
func hasLifeline(env []string) bool {
	for _, kv := range env {
		if hasPrefix(kv, lifelineEnv+"=") {
			return true
		}
	}
	return false
}
