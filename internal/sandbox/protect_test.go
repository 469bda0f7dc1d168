package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCommandPaths(t *testing.T) {
	cfg, _ := filepath.EvalSymlinks(t.TempDir())
	sess, _ := filepath.EvalSymlinks(t.TempDir())
	touch(t, filepath.Join(cfg, "hooks", "guard.js"))
	touch(t, filepath.Join(cfg, "check.sh"))
	touch(t, filepath.Join(sess, "scripts", "lint.py"))
	touch(t, filepath.Join(sess, "x")) // no '/' nor '.': not a path
	abs := filepath.Join(sess, "abs.sh")
	touch(t, abs)
	tests := []struct {
		command string
		want    []string
	}{
		{`node "$MM_CONFIG_DIR/hooks/guard.js"`, []string{filepath.Join(cfg, "hooks", "guard.js")}},
		{`node ${MM_CONFIG_DIR}/hooks/guard.js --strict`, []string{filepath.Join(cfg, "hooks", "guard.js")}},
		{`sh check.sh`, []string{filepath.Join(cfg, "check.sh")}},
		{`cd sub&&python3 'scripts/lint.py'|jq -r .ok`, []string{filepath.Join(sess, "scripts", "lint.py")}},
		{`GUARD=./check.sh sh -c "$GUARD" <` + abs, []string{filepath.Join(cfg, "check.sh"), abs}},
		{`python3 -c x`, nil},
		// What mm hooks import writes: the variables the adapter sets, inside sh -c.
		{`"$MM_BIN" hooks adapt claude-code -- sh -c 'python3 "$CLAUDE_PROJECT_DIR"/scripts/lint.py'`, []string{filepath.Join(sess, "scripts", "lint.py")}},
		{`sh -c "node \"${GEMINI_PROJECT_DIR}/scripts/lint.py\""`, []string{filepath.Join(sess, "scripts", "lint.py")}},
		{`sh $PWD/scripts/lint.py; cat $PWDX/scripts/lint.py`, []string{filepath.Join(sess, "scripts", "lint.py")}},
		{`sh missing.sh; cat hooks`, nil}, // missing; a directory
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	touch(t, filepath.Join(home, ".mm", "g.sh"))
	tests = append(tests, struct {
		command string
		want    []string
	}{`sh "${HOME}/.mm/g.sh" && sh $HOME/.mm/g.sh`, []string{filepath.Join(home, ".mm", "g.sh")}})
	for _, tt := range tests {
		if got := CommandPaths(tt.command, cfg, sess); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("CommandPaths(%q) = %q, want %q", tt.command, got, tt.want)
		}
	}
}

func TestMounts(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	for _, p := range []string{"agent.yaml", ".mm/sub/expert.yaml", "hooks/guard.sh", "hooks/deep/x.sh", ".git/config", ".git/hooks/README"} {
		touch(t, filepath.Join(dir, p))
	}
	touch(t, filepath.Join(tmp, "cfg", "a.yaml"))
	touch(t, filepath.Join(outside, "b.yaml"))
	j := func(p string) string { return filepath.Join(dir, p) }
	s := &Sandbox{policy: Policy{Mode: Workspace}, tmp: tmp, protect: cleanProtected([]string{
		j("agent.yaml"), j(".mm/sub/expert.yaml"), j("hooks"), j("hooks/deep/x.sh"), j("missing.yaml"),
		filepath.Join(tmp, "cfg", "a.yaml"), filepath.Join(outside, "b.yaml"), dir,
	})}
	pins, ro := s.mounts(dir)
	wantPins := []string{j(".git"), j(".mm"), filepath.Join(tmp, "cfg"), j(".mm/sub")}
	wantRO := []string{j("agent.yaml"), j("hooks"), j(".git/config"), j(".git/hooks"), filepath.Join(tmp, "cfg", "a.yaml"), j(".mm/sub/expert.yaml"), j("hooks/deep/x.sh")}
	if !reflect.DeepEqual(pins, wantPins) {
		t.Errorf("pins %q, want %q", pins, wantPins)
	}
	if !reflect.DeepEqual(ro, wantRO) {
		t.Errorf("read-only %q, want %q", ro, wantRO)
	}

	// readonly: the session directory is read-only already; only what
	// lies in the temp directory is bound.
	s.policy.Mode = ReadOnly
	pins, ro = s.mounts(dir)
	if want := []string{filepath.Join(tmp, "cfg")}; !reflect.DeepEqual(pins, want) {
		t.Errorf("readonly pins %q, want %q", pins, want)
	}
	if want := []string{filepath.Join(tmp, "cfg", "a.yaml")}; !reflect.DeepEqual(ro, want) {
		t.Errorf("readonly read-only %q, want %q", ro, want)
	}
}

func TestFilesRefuseProtected(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	touch(t, filepath.Join(dir, "agent.yaml"))
	touch(t, filepath.Join(dir, "hooks", "guard.sh"))
	touch(t, filepath.Join(dir, ".git", "config"))
	if err := os.Symlink("agent.yaml", filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	s := &Sandbox{policy: Policy{Mode: Workspace}, tmp: tmp,
		protect: cleanProtected([]string{filepath.Join(dir, "agent.yaml"), filepath.Join(dir, "hooks")})}
	f := s.Files(dir)
	for _, p := range []string{"agent.yaml", "link.yaml", "hooks/guard.sh", "hooks/new.sh", ".git/config"} {
		err := f.WriteFile(filepath.Join(dir, p), []byte("y"))
		var pe *ProtectedError
		if !errors.As(err, &pe) {
			t.Errorf("%s: %v, want a ProtectedError", p, err)
		}
	}
	if err := f.WriteFile(filepath.Join(dir, "notes.txt"), []byte("y")); err != nil {
		t.Errorf("notes.txt: %v", err)
	}
	if err := f.WriteFile(filepath.Join(dir, ".git", "description"), []byte("y")); err != nil {
		t.Errorf(".git/description: %v", err)
	}
}

// The file tools' protected paths are those of the moment, as bash's: a
// .git/config made after the tool was built is refused, and so is a
// .git/commondir that does not exist (git would read it).
func TestFilesProtectedNow(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	s := &Sandbox{policy: Policy{Mode: Workspace}, tmp: tmp}
	f := s.Files(dir)
	touch(t, filepath.Join(dir, "notes.txt"))
	if err := f.Check(filepath.Join(dir, ".git", "config")); err != nil {
		t.Fatalf("before .git exists: %v", err)
	}
	touch(t, filepath.Join(dir, ".git", "config"))
	for _, p := range []string{".git/config", ".git/commondir", ".git/hooks/pre-commit"} {
		var pe *ProtectedError
		if err := f.Check(filepath.Join(dir, p)); !errors.As(err, &pe) {
			t.Errorf("%s: %v, want protected", p, err)
		}
	}
	if err := f.Check(filepath.Join(dir, ".git", "index")); err != nil {
		t.Errorf(".git/index: %v", err)
	}
}

// Watch removes the git paths a command made that did not exist before
// it, and only those.
func TestWatch(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	s := &Sandbox{policy: Policy{Mode: Workspace}, tmp: t.TempDir()}
	touch(t, filepath.Join(dir, ".git", "config"))
	done := s.Watch(dir)
	touch(t, filepath.Join(dir, ".git", "commondir"))
	touch(t, filepath.Join(dir, ".git", "hooks", "pre-commit"))
	touch(t, filepath.Join(dir, ".git", "index"))
	note := done()
	for _, p := range []string{"commondir", "hooks"} {
		if _, err := os.Lstat(filepath.Join(dir, ".git", p)); err == nil {
			t.Errorf(".git/%s left", p)
		}
	}
	for _, p := range []string{"config", "index"} {
		if _, err := os.Lstat(filepath.Join(dir, ".git", p)); err != nil {
			t.Errorf(".git/%s: %v", p, err)
		}
	}
	if want := "[sandbox: removed " + filepath.Join(dir, ".git", "hooks") + ", " + filepath.Join(dir, ".git", "commondir"); !strings.HasPrefix(note, want) {
		t.Errorf("note %q, want it to start %q", note, want)
	}
	if note := s.Watch(dir)(); note != "" {
		t.Errorf("nothing made: %q", note)
	}
}
