package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree makes a session directory, a temp directory and an outside one,
// apart, with their links resolved, and points TMPDIR at the temp one.
func tree(t *testing.T) (dir, tmp, out string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir, tmp, out = filepath.Join(base, "proj"), filepath.Join(base, "tmp"), filepath.Join(base, "outside")
	for _, d := range []string{dir, tmp, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("TMPDIR", tmp)
	return dir, tmp, out
}

func TestResolve(t *testing.T) {
	dir, _, out := tree(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(os.Symlink(out, filepath.Join(dir, "out")))                             // absolute, out
	must(os.Symlink("sub", filepath.Join(dir, "in")))                            // relative, in
	must(os.Symlink("../outside/new.txt", filepath.Join(dir, "dangling")))       // dangling, out
	must(os.Symlink(filepath.Join(dir, "sub", "x"), filepath.Join(dir, "back"))) // dangling, in
	must(os.Symlink("loop", filepath.Join(dir, "loop")))
	must(os.WriteFile(filepath.Join(dir, "file"), nil, 0o644))

	for _, tc := range []struct {
		path, want string
	}{
		{dir + "/a.txt", dir + "/a.txt"},
		{dir + "/new/deeper/a.txt", dir + "/new/deeper/a.txt"},
		{dir + "/./sub//a.txt", dir + "/sub/a.txt"},
		{dir + "/../outside.txt", filepath.Dir(dir) + "/outside.txt"},
		{dir + "/out/x.txt", out + "/x.txt"},
		{dir + "/in/x.txt", dir + "/sub/x.txt"},
		{dir + "/dangling", out + "/new.txt"},
		{dir + "/back", dir + "/sub/x"},
		// ".." goes up from where the link led, not from the text.
		{dir + "/out/../proj/a", filepath.Dir(out) + "/proj/a"},
		{dir + "/in/../file", dir + "/file"},
		{dir + "/missing/../../outside/x", out + "/x"},
	} {
		got, err := resolve(tc.path)
		if err != nil || got != tc.want {
			t.Errorf("resolve(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
	if _, err := resolve(dir + "/loop/x"); err == nil || !strings.Contains(err.Error(), "too many levels of symbolic links") {
		t.Errorf("a link loop: %v", err)
	}
	if _, err := resolve(dir + "/file/x"); err == nil {
		t.Error("a path through a file resolved")
	}
	if _, err := resolve("rel/x"); err == nil {
		t.Error("a relative path resolved")
	}
}

func TestFilesWorkspace(t *testing.T) {
	dir, tmp, out := tree(t)
	if err := os.Symlink(out, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, "made.txt"), filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "inside")); err != nil {
		t.Fatal(err)
	}
	f := (&Sandbox{policy: Policy{Mode: Workspace}, tmp: tmp}).Files(dir)

	for _, p := range []string{
		dir + "/a.txt",
		dir + "/new/deep/b.txt",
		dir + "/inside/c.txt", // an absolute link that stays inside
		tmp + "/d.txt",
		dir + "/../tmp/e.txt", // out of one, into the other
	} {
		if err := f.WriteFile(p, []byte("x")); err != nil {
			t.Errorf("WriteFile(%s): %v", p, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sub", "c.txt")); err != nil || string(b) != "x" {
		t.Errorf("through the inside link: %q, %v", b, err)
	}
	if b, err := f.ReadFile(dir + "/a.txt"); err != nil || string(b) != "x" {
		t.Errorf("ReadFile: %q, %v", b, err)
	}

	for _, tc := range []struct{ path, resolved string }{
		{dir + "/../outside/x.txt", ""},
		{"/etc/mm-sandbox-test", ""},
		{dir + "/link/x.txt", out + "/x.txt"},
		{dir + "/dangling", out + "/made.txt"},
	} {
		err := f.WriteFile(tc.path, []byte("x"))
		var re *RefusedError
		if !errors.As(err, &re) {
			t.Errorf("WriteFile(%s) = %v; want it refused", tc.path, err)
			continue
		}
		if re.Resolved != tc.resolved {
			t.Errorf("WriteFile(%s): resolved %q, want %q", tc.path, re.Resolved, tc.resolved)
		}
		if _, err := f.ReadFile(tc.path); !errors.As(err, &re) {
			t.Errorf("ReadFile(%s) = %v; want it refused", tc.path, err)
		}
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 0 {
		t.Errorf("something was written outside: %v", entries)
	}
	if _, err := os.Stat("/etc/mm-sandbox-test"); err == nil {
		t.Error("/etc/mm-sandbox-test was written")
	}

	msg := f.WriteFile(dir+"/link/x.txt", nil).Error()
	want := "outside the sandbox (sandbox: workspace): it leads to " + out + "/x.txt, files may be written only under " + dir + " and " + tmp
	if msg != want {
		t.Errorf("message:\n got %s\nwant %s", msg, want)
	}
}

// A directory swapped for a link out between the check and the write does
// not lead the write out: it goes through an os.Root opened on the
// directory the check found.
func TestFilesLinkSwappedAfterCheck(t *testing.T) {
	dir, tmp, out := tree(t)
	f := (&Sandbox{policy: Policy{Mode: Workspace}, tmp: tmp}).Files(dir)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r, rel, err := f.open(sub + "/x.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := os.Remove(sub); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, sub); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFile(rel, []byte("x"), 0o644); err == nil {
		t.Error("the write followed the swapped link")
	}
	if _, err := os.Stat(filepath.Join(out, "x.txt")); err == nil {
		t.Error("x.txt was written outside")
	}
}

func TestFilesReadonly(t *testing.T) {
	dir, tmp, _ := tree(t)
	f := (&Sandbox{policy: Policy{Mode: ReadOnly}, tmp: tmp}).Files(dir)
	for _, p := range []string{dir + "/a.txt", tmp + "/a.txt"} {
		err := f.WriteFile(p, []byte("x"))
		if err == nil || err.Error() != "refused by the sandbox (sandbox: readonly): write_file and edit_file write no file" {
			t.Errorf("WriteFile(%s) = %v", p, err)
		}
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}

func TestNilSandbox(t *testing.T) {
	var s *Sandbox
	if s.Files(".") != nil || s.Mode() != Off || s.Note() != "" || !s.Network() {
		t.Error("a nil sandbox is not no sandbox")
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"off", "workspace", "readonly"} {
		if m, ok := ParseMode(s); !ok || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, ok)
		}
	}
	for _, s := range []string{"", "everywhere", "Workspace", "false"} {
		if _, ok := ParseMode(s); ok {
			t.Errorf("ParseMode(%q) accepted", s)
		}
	}
}
