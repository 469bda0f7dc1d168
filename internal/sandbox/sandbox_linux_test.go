package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needBwrap skips without bubblewrap, unless MM_REQUIRE_ALL is set (CI
// sets it): then a missing bwrap fails the test.
func needBwrap(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("MM_REQUIRE_ALL") != "" {
			t.Fatal("bwrap is missing and MM_REQUIRE_ALL is set: apt-get install bubblewrap")
		}
		t.Skip("bwrap is not installed (apt-get install bubblewrap)")
	}
}

// run runs script with bash inside s, in dir, and returns its output and
// exit code.
func run(t *testing.T, s *Sandbox, dir, script string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	s.Wrap(cmd)
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("run %q: %v", script, err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

func TestWorkspaceBash(t *testing.T) {
	needBwrap(t)
	dir, tmp, out := tree(t)
	s, err := New(context.Background(), Policy{Mode: Workspace}, dir)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port

	for _, tc := range []struct {
		script string
		ok     bool
	}{
		{"echo a > a.txt && mkdir -p d/e && echo b > d/e/b.txt", true},
		{"echo c > " + tmp + "/c.txt", true},
		{"echo x > " + out + "/x.txt", false},
		{"echo x > ../x.txt", false},
		{"echo x > /etc/mm-sandbox-test", false},
		{"mount -o remount,rw / ", false}, // no capabilities, even as root
		{fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", port), false},
		{"echo ok > /dev/null", true},
		{"pwd", true},
	} {
		got, code := run(t, s, dir, tc.script)
		if (code == 0) != tc.ok {
			t.Errorf("%s: exit %d, output %q; want success %v", tc.script, code, got, tc.ok)
		}
	}
	if got, _ := run(t, s, dir, "pwd"); strings.TrimSpace(got) != dir {
		t.Errorf("pwd = %q, want %s", got, dir)
	}
	for _, p := range []string{dir + "/a.txt", dir + "/d/e/b.txt", tmp + "/c.txt"} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	for _, p := range []string{out + "/x.txt", filepath.Dir(dir) + "/x.txt", "/etc/mm-sandbox-test"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}

	// sandboxNetwork: true gives the network back.
	s, err = New(context.Background(), Policy{Mode: Workspace, Network: true}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, code := run(t, s, dir, fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", port)); code != 0 {
		t.Errorf("with the network: exit %d: %s", code, got)
	}
}

func TestReadonlyBash(t *testing.T) {
	needBwrap(t)
	dir, tmp, _ := tree(t)
	s, err := New(context.Background(), Policy{Mode: ReadOnly}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, code := run(t, s, dir, "echo a > a.txt"); code == 0 {
		t.Errorf("wrote in the session directory: %s", got)
	}
	if got, code := run(t, s, dir, "echo c > "+tmp+"/c.txt"); code != 0 {
		t.Errorf("could not write in the temp directory: %s", got)
	}

	// A session directory inside the temp directory stays read-only.
	inner := filepath.Join(tmp, "proj")
	if err := os.Mkdir(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, code := run(t, s, inner, "echo a > a.txt"); code == 0 {
		t.Errorf("wrote in a session directory inside the temp directory: %s", got)
	}
	if got, code := run(t, s, inner, "echo a > ../b.txt"); code != 0 {
		t.Errorf("could not write beside it in the temp directory: %s", got)
	}
}

func TestNewFails(t *testing.T) {
	dir, _, _ := tree(t)
	t.Setenv("PATH", t.TempDir())
	_, err := New(context.Background(), Policy{Mode: Workspace}, dir)
	want := "sandbox: workspace needs bubblewrap (bwrap), which is not on PATH: install it (Debian, Ubuntu: apt-get install bubblewrap) or set sandbox: off"
	if err == nil || err.Error() != want {
		t.Errorf("no bwrap: %v", err)
	}

	// A bwrap that cannot make namespaces says so on stderr, and exits 1.
	bin := t.TempDir()
	fake := "#!/bin/sh\necho 'bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "bwrap"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	_, err = New(context.Background(), Policy{Mode: ReadOnly}, dir)
	want = "sandbox: readonly: bwrap cannot start a sandbox here: bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces."
	if err == nil || err.Error() != want {
		t.Errorf("unusable bwrap: %v", err)
	}

	if s, err := New(context.Background(), Policy{Mode: Off}, dir); s != nil || err != nil {
		t.Errorf("off: %v, %v", s, err)
	}
}

func TestNewRootSessionDir(t *testing.T) {
	needBwrap(t)
	_, err := New(context.Background(), Policy{Mode: Workspace}, "/")
	if err == nil || err.Error() != "sandbox: workspace: the session directory is /, which would leave nothing read-only: start mm in a project's directory" {
		t.Errorf("session directory /: %v", err)
	}
	_, tmp, _ := tree(t)
	s := &Sandbox{policy: Policy{Mode: Workspace}, tool: "bwrap", tmp: tmp}
	if a := strings.Join(s.args("/"), " "); strings.Contains(a, "--bind / /") {
		t.Errorf("/ bound writable: %s", a)
	}
	if err := s.Files("/").Check("/etc/x"); err == nil {
		t.Error("write_file may write /etc/x with / as the session directory")
	}
}

func TestNewNoTempDir(t *testing.T) {
	needBwrap(t)
	dir, tmp, _ := tree(t)
	t.Setenv("TMPDIR", filepath.Join(tmp, "missing"))
	_, err := New(context.Background(), Policy{Mode: Workspace}, dir)
	if err == nil || !strings.Contains(err.Error(), "the temp directory "+tmp+"/missing") {
		t.Errorf("no temp directory: %v", err)
	}
}

// A protected directory above the session directory (a config's folder
// that holds the project): it is read-only, and the session directory in
// it writable again; write_file follows the same rule.
func TestProtectedAncestor(t *testing.T) {
	needBwrap(t)
	top, _ := filepath.EvalSymlinks(t.TempDir())
	dir := filepath.Join(top, "proj")
	touch(t, filepath.Join(top, "agent.yaml"))
	touch(t, filepath.Join(dir, "hooks", "guard.sh"))
	s, err := New(t.Context(), Policy{Mode: Workspace}, dir, top, filepath.Join(dir, "hooks"))
	if err != nil {
		t.Fatal(err)
	}
	out, code := run(t, s, dir, "touch ../planted.py; touch inside.txt && echo x > hooks/guard.sh")
	if code == 0 || !strings.Contains(out, "planted.py': Read-only file system") || !strings.Contains(out, "hooks/guard.sh: Read-only file system") {
		t.Errorf("bash: %q (exit %d)", out, code)
	}
	if _, err := os.Stat(filepath.Join(dir, "inside.txt")); err != nil {
		t.Errorf("the session directory is not writable: %v", err)
	}
	f := s.Files(dir)
	if err := f.Check(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("write_file in the session directory: %v", err)
	}
	var pe *ProtectedError
	if err := f.Check(filepath.Join(dir, "hooks", "guard.sh")); err == nil || !errors.As(err, &pe) {
		t.Errorf("write_file on the guard: %v, want it protected", err)
	}
}
