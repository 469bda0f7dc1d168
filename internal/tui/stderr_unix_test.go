//go:build unix

package tui

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// What is written to stderr while the window is up comes to it line by
// line, instead of landing behind the renderer's back.
func TestStderrLines(t *testing.T) {
	got := make(chan string, 1)
	restore := redirectStderr(func(l string) { got <- l })
	// File descriptor 2 itself: under go test -json, the testing package
	// points os.Stderr at stdout.
	_, err := unix.Write(2, []byte("a stray message\n"))
	if err != nil {
		restore()
		t.Fatal(err)
	}
	select {
	case l := <-got:
		restore()
		if l != "a stray message" {
			t.Errorf("got %q", l)
		}
	case <-time.After(5 * time.Second):
		restore()
		t.Fatal("the line never came")
	}
}
