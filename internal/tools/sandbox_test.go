//go:build linux

package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mm-agent/mm/internal/sandbox"
)

// sandboxed returns the built-in named name in dir under a sandbox of mode
// m, with TMPDIR pointed at a temp directory of its own (returned).
func sandboxed(t *testing.T, name, dir string, m sandbox.Mode) (Tool, string) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("MM_REQUIRE_ALL") != "" {
			t.Fatal("bwrap is missing and MM_REQUIRE_ALL is set: apt-get install bubblewrap")
		}
		t.Skip("bwrap is not installed (apt-get install bubblewrap)")
	}
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	box, err := sandbox.New(context.Background(), sandbox.Policy{Mode: m}, dir)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := Sandboxed([]string{name}, dir, box)
	if err != nil {
		t.Fatal(err)
	}
	return ts[0], tmp
}

// marked lists the live processes whose command line holds mark.
func marked(mark string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(b), mark) {
			continue
		}
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err == nil && alive(pid) {
			out = append(out, e.Name())
		}
	}
	return out
}

// Cancelling a sandboxed bash ends everything it started, a process that
// left its process group (setsid) included: the sandbox's PID namespace
// dies with bwrap, which dies with mm's group kill.
func TestSandboxedBashCancel(t *testing.T) {
	dir := t.TempDir()
	bash, _ := sandboxed(t, "bash", dir, sandbox.Workspace)
	mark := fmt.Sprintf("mm-sandbox-cancel-%d", time.Now().UnixNano())
	started := filepath.Join(dir, "started")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		eventually(func() bool { _, err := os.Stat(started); return err == nil })
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	cmd := fmt.Sprintf("(exec -a %[1]s-bg sleep 30) & setsid bash -c 'exec -a %[1]s-setsid sleep 30' & touch started; echo started; exec -a %[1]s-fg sleep 30", mark)
	t0 := time.Now()
	got := bash.Run(ctx, args(map[string]string{"command": cmd})).Output
	if !strings.HasPrefix(got, "error: cancelled") || !strings.Contains(got, "started") {
		t.Errorf("got %q", got)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	if !eventually(func() bool { return len(marked(mark)) == 0 }) {
		t.Errorf("still running after cancel: %v", marked(mark))
	}
}

// A sandboxed call that ends leaves nothing behind either.
func TestSandboxedBashLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	bash, _ := sandboxed(t, "bash", dir, sandbox.Workspace)
	mark := fmt.Sprintf("mm-sandbox-done-%d", time.Now().UnixNano())
	cmd := fmt.Sprintf("setsid bash -c 'exec -a %s sleep 30' >/dev/null 2>&1 & echo done", mark)
	got := bash.Run(context.Background(), args(map[string]string{"command": cmd})).Output
	if got != "done\n[exit status 0]" {
		t.Errorf("got %q", got)
	}
	if !eventually(func() bool { return len(marked(mark)) == 0 }) {
		t.Errorf("still running after the call: %v", marked(mark))
	}
}

func TestSandboxedBashDescription(t *testing.T) {
	dir := t.TempDir()
	bash, tmp := sandboxed(t, "bash", dir, sandbox.Workspace)
	want := " It runs in a sandbox and without network: only the working directory and " + tmp + " are writable."
	if d := bash.Def().Description; !strings.HasSuffix(d, want) {
		t.Errorf("description %q does not end with %q", d, want)
	}
	if d := tool(t, "bash", dir).Def().Description; strings.Contains(d, "sandbox") {
		t.Errorf("unsandboxed description %q", d)
	}
}

func TestSandboxedWriteAndEdit(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir, out := filepath.Join(base, "proj"), filepath.Join(base, "out")
	for _, d := range []string{dir, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(out, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "o.txt"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	write, tmp := sandboxed(t, "write_file", dir, sandbox.Workspace)
	edit, _ := sandboxed(t, "edit_file", dir, sandbox.Workspace)
	outside := "outside the sandbox (sandbox: workspace): "
	roots := "files may be written only under " + dir + " and "

	for _, tc := range []struct{ path, want string }{
		{"a.txt", "wrote 2 bytes to a.txt"},
		{"new/b.txt", "wrote 2 bytes to new/b.txt"},
		{"../outside.txt", "error: write: ../outside.txt: " + outside + roots},
		{out + "/x.txt", "error: write: " + out + "/x.txt: " + outside + roots},
		{"link/x.txt", "error: write: link/x.txt: " + outside + "it leads to " + out + "/x.txt, " + roots},
	} {
		got := write.Run(context.Background(), args(map[string]string{"path": tc.path, "content": "hi"})).Output
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("write_file %s: got %q, want %q…", tc.path, got, tc.want)
		}
	}
	for _, p := range []string{filepath.Join(base, "outside.txt"), filepath.Join(out, "x.txt")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}

	for _, tc := range []struct{ path, want string }{
		{"a.txt", "edited a.txt"},
		{"link/o.txt", "error: edit: link/o.txt: " + outside + "it leads to " + out + "/o.txt, " + roots},
		{out + "/o.txt", "error: edit: " + out + "/o.txt: " + outside + roots},
	} {
		got := edit.Run(context.Background(), args(map[string]string{"path": tc.path, "old": "hi", "new": "ho"})).Output
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("edit_file %s: got %q, want %q…", tc.path, got, tc.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "ho" {
		t.Errorf("a.txt = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "o.txt")); string(b) != "outside" {
		t.Errorf("o.txt = %q", b)
	}
	if got := write.Run(context.Background(), args(map[string]string{"path": tmp + "/t.txt", "content": "t"})).Output; got != "wrote 1 bytes to "+tmp+"/t.txt" {
		t.Errorf("the temp directory: %q", got)
	}
}

func TestSandboxedReadonlyFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	write, tmp := sandboxed(t, "write_file", dir, sandbox.ReadOnly)
	edit, _ := sandboxed(t, "edit_file", dir, sandbox.ReadOnly)
	refused := "refused by the sandbox (sandbox: readonly): write_file and edit_file write no file"
	for _, p := range []string{"b.txt", tmp + "/b.txt"} {
		if got := write.Run(context.Background(), args(map[string]string{"path": p, "content": "x"})).Output; got != "error: write: "+p+": "+refused {
			t.Errorf("write_file %s: %q", p, got)
		}
	}
	if got := edit.Run(context.Background(), args(map[string]string{"path": "a.txt", "old": "hi", "new": "ho"})).Output; got != "error: edit: a.txt: "+refused {
		t.Errorf("edit_file: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "hi" {
		t.Errorf("a.txt = %q", b)
	}
}
