//go:build unix

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// OpenFile passes its flags through: a named pipe opened for writing
// without a reader fails at once with O_NONBLOCK instead of blocking, as
// os.OpenFile does.
func TestFilesOpenFileFlags(t *testing.T) {
	dir, tmp, _ := tree(t)
	f := (&Sandbox{policy: Policy{Mode: Workspace}, tmp: tmp}).Files(dir)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	done := make(chan error, 1)
	go func() {
		w, err := f.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			w.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, syscall.ENXIO) {
			t.Errorf("got %v, want ENXIO", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("OpenFile blocked on a named pipe with O_NONBLOCK")
	}
	if err := f.MkdirAll(dir+"/a/b", 0o755); err != nil {
		t.Error(err)
	}
	if err := f.MkdirAll(dir+"/link-free/../../outside/c", 0o755); err == nil {
		t.Error("MkdirAll made a directory outside")
	}
}
