//go:build unix

package tui

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"sync"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// captureStderr points file descriptor 2 at a pipe while the window is up
// and hands each line written there to show. What mm and its child
// processes write to stderr — an asked agent's stray messages, a hooks log
// that cannot be written — would otherwise land in the middle of the
// window, behind the renderer's back, and garble it. The returned function
// puts the terminal back on fd 2; lines written after that (by children
// still holding the pipe) go to it. A crash still reaches the terminal.
func captureStderr(show func(string)) (restore func()) {
	if !term.IsTerminal(2) {
		return func() {} // stderr goes to a file: what is written there stays there
	}
	return redirectStderr(show)
}

// redirectStderr does captureStderr's work, whatever fd 2 is.
func redirectStderr(show func(string)) (restore func()) {
	saved, err := unix.Dup(2)
	if err != nil {
		return func() {}
	}
	r, w, err := os.Pipe()
	if err != nil {
		unix.Close(saved)
		return func() {}
	}
	if err := unix.Dup2(int(w.Fd()), 2); err != nil {
		unix.Close(saved)
		r.Close()
		w.Close()
		return func() {}
	}
	w.Close() // fd 2 holds the write end now
	tty := os.NewFile(uintptr(saved), "/dev/stderr")
	debug.SetCrashOutput(tty, debug.CrashOptions{})

	var mu sync.Mutex
	restored := false
	go func() {
		defer r.Close()
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			mu.Lock()
			late := restored
			mu.Unlock()
			if late {
				fmt.Fprintln(os.Stderr, sc.Text())
			} else {
				show(sc.Text())
			}
		}
	}()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		restored = true
		unix.Dup2(saved, 2)
		debug.SetCrashOutput(nil, debug.CrashOptions{})
		tty.Close()
	}
}
