//go:build unix

package procs

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Signal names the signal that ended a process ("SIGKILL"), or reports
// false when it was not ended by one.
func Signal(st *os.ProcessState) (string, bool) {
	if st == nil {
		return "", false
	}
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok {
		return "", false
	}
	return WaitSignal(ws)
}

// WaitSignal is Signal for a status read with wait4 (StartFiles).
func WaitSignal(ws syscall.WaitStatus) (string, bool) {
	if !ws.Signaled() {
		return "", false
	}
	if n := unix.SignalName(ws.Signal()); n != "" {
		return n, true
	}
	return fmt.Sprintf("%d (%s)", int(ws.Signal()), ws.Signal()), true
}
