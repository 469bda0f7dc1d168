package sandbox

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoose(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	touch(t, filepath.Join(dir, "guard.py"))
	touch(t, filepath.Join(dir, "hooks", "guard.sh"))
	touch(t, filepath.Join(tmp, "mm"))
	touch(t, filepath.Join(dir, "lib", "impl.sh"))
	if err := os.Symlink("lib/impl.sh", filepath.Join(dir, "check.sh")); err != nil {
		t.Fatal(err)
	}
	s := &Sandbox{policy: Policy{Mode: Workspace}, tmp: tmp}
	tests := []struct {
		rs   []Runnable
		want string // a part of the error; "" for none
	}{
		{[]Runnable{{filepath.Join(dir, "hooks", "guard.sh"), HookScript}}, ""},
		{[]Runnable{{filepath.Join(dir, "guard.py"), HookScript}}, "the hook script " + filepath.Join(dir, "guard.py") + " lies directly in the session directory " + dir},
		{[]Runnable{{filepath.Join(tmp, "mm"), BinFile}}, "the mm binary " + filepath.Join(tmp, "mm") + " lies directly in the temp directory " + tmp},
		// A link lying in the session directory, to a script in a folder.
		{[]Runnable{{filepath.Join(dir, "check.sh"), HookScript}}, "lies directly in the session directory"},
		{[]Runnable{{"relative.sh", HookScript}}, ""},
	}
	for _, tt := range tests {
		err := s.Loose(dir, tt.rs)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Loose(%v) = %v, want nil", tt.rs, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("Loose(%v) = %v, want it to say %q", tt.rs, err, tt.want)
		}
	}
	// readonly: the session directory is not writable, only the temp one.
	s.policy.Mode = ReadOnly
	if err := s.Loose(dir, []Runnable{{filepath.Join(dir, "guard.py"), HookScript}}); err != nil {
		t.Errorf("readonly: %v", err)
	}
	if err := (*Sandbox)(nil).Loose(dir, []Runnable{{filepath.Join(dir, "guard.py"), HookScript}}); err != nil {
		t.Errorf("nil: %v", err)
	}
}

func TestDirs(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	touch(t, filepath.Join(dir, "lib", "impl.sh"))
	touch(t, filepath.Join(dir, ".mm", "agent.yaml"))
	if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../lib/impl.sh", filepath.Join(dir, "scripts", "check.sh")); err != nil {
		t.Fatal(err)
	}
	got := Dirs([]Runnable{{filepath.Join(dir, "scripts", "check.sh"), HookScript}, {filepath.Join(dir, ".mm", "agent.yaml"), ConfigFile}})
	want := []string{filepath.Join(dir, "scripts"), filepath.Join(dir, "lib"), filepath.Join(dir, ".mm")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Dirs = %q, want %q", got, want)
	}
}

func TestPath(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	for _, d := range []string{"node_modules/.bin", "tools/bin"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := &Sandbox{policy: Policy{Mode: Workspace}, tmp: tmp}
	sep := string(filepath.ListSeparator)
	path := strings.Join([]string{"", "./node_modules/.bin", filepath.Join(dir, "tools/bin"), filepath.Join(dir, "later"), dir, tmp, "/usr/bin", "."}, sep)
	kept, protect, notices := s.Path(path, dir)
	if want := strings.Join([]string{filepath.Join(dir, "tools/bin"), "/usr/bin"}, sep); kept != want {
		t.Errorf("kept %q, want %q", kept, want)
	}
	if want := []string{filepath.Join(dir, "tools/bin")}; !reflect.DeepEqual(protect, want) {
		t.Errorf("protect %q, want %q", protect, want)
	}
	for i, want := range []string{`"" is empty`, `"./node_modules/.bin" is relative`, `later" does not exist`, `is a directory the sandbox leaves writable`, `is a directory the sandbox leaves writable`, `"." is relative`} {
		if i >= len(notices) || !strings.Contains(notices[i], want) {
			t.Errorf("notice %d: %q, want it to say %q", i, notices, want)
		}
	}
	if len(notices) != 6 {
		t.Errorf("%d notices, want 6: %q", len(notices), notices)
	}
	if k, p, n := (*Sandbox)(nil).Path(path, dir); k != path || p != nil || n != nil {
		t.Errorf("nil changed PATH: %q %q %q", k, p, n)
	}
}

func TestIsScript(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for p, want := range map[string]bool{
		write("guard.py", "import json\n", 0o644):  true,
		write("check.SH", "true\n", 0o644):         true,
		write("tool", "\x7fELF", 0o755):            true,
		write("noext", "#!/bin/sh\ntrue\n", 0o644): true,
		write("audit.jsonl", "{}\n", 0o644):        false,
		write("package.json", "{}\n", 0o644):       false,
		filepath.Join(dir, "missing"):              false,
	} {
		if got := IsScript(p); got != want {
			t.Errorf("IsScript(%s) = %v, want %v", filepath.Base(p), got, want)
		}
	}
}
