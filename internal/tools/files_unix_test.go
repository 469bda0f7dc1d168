//go:build unix

package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFilesRefuseWhatIsNotARegularFile: a device or a named pipe is never
// read or written (reading /dev/zero would never end, opening a pipe with
// no writer would block): each is an error the model reads, at once.
func TestFilesRefuseWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool string
		args map[string]string
		want string
	}{
		{"read_file", map[string]string{"path": "/dev/zero"}, "error: read: /dev/zero: is a device, not a regular file"},
		{"read_file", map[string]string{"path": "/dev/urandom"}, "error: read: /dev/urandom: is a device, not a regular file"},
		{"read_file", map[string]string{"path": "fifo"}, "error: read: fifo: is a named pipe, not a regular file"},
		{"edit_file", map[string]string{"path": "/dev/zero", "old": "a", "new": "b"}, "error: edit: /dev/zero: is a device, not a regular file"},
		{"edit_file", map[string]string{"path": "fifo", "old": "a", "new": "b"}, "error: edit: fifo: is a named pipe, not a regular file"},
		{"write_file", map[string]string{"path": "fifo", "content": "x"}, "error: write: fifo: is a named pipe, not a regular file"},
		{"write_file", map[string]string{"path": "/dev/null", "content": "x"}, "error: write: /dev/null: is a device, not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args["path"], func(t *testing.T) {
			done := make(chan string, 1)
			go func() { done <- tool(t, tc.tool, dir).Run(context.Background(), args(tc.args)).Output }()
			select {
			case got := <-done:
				if got != tc.want {
					t.Errorf("got %q, want %q", clip(got), tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("still running after 5s")
			}
		})
	}
}

func TestEditFileTooLarge(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "huge.log"))
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: 2 GiB that take no room.
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got := tool(t, "edit_file", dir).Run(context.Background(), args(map[string]string{"path": "huge.log", "old": "a", "new": "b"})).Output
	want := fmt.Sprintf("error: edit: huge.log: too large to edit (%d bytes; edit_file reads files of up to %d bytes): change it with bash (sed, a script) instead", 2<<30, editCap)
	if got != want {
		t.Errorf("got %q", got)
	}
	// At the limit, it edits.
	at := filepath.Join(dir, "at.txt")
	if err := os.WriteFile(at, []byte("old"+strings.Repeat("x", editCap-3)), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := tool(t, "edit_file", dir).Run(context.Background(), args(map[string]string{"path": "at.txt", "old": "old", "new": "new"})).Output; got != "edited at.txt" {
		t.Errorf("at the limit: %q", clip(got))
	}
}

// TestReadAllHonoursContext: a read that blocks (here a pipe no one
// writes to; for a file, a hung network mount) gives way to the context.
func TestReadAllHonoursContext(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	if _, err := readAll(ctx, r, 10); err != context.Canceled {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("returned after %s", d)
	}
}
