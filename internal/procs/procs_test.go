package procs

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestMain lets the test binary play the parts the tests need (an mm that
// starts processes and is then killed, a process that leaves its group):
// PROCS_TEST_HELPER names the part.
func TestMain(m *testing.M) {
	if part := os.Getenv("PROCS_TEST_HELPER"); part != "" {
		os.Exit(helper(part))
	}
	os.Exit(m.Run())
}

// helperCmd runs this test binary in the given part.
func helperCmd(t *testing.T, part string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "PROCS_TEST_HELPER="+part)
	return cmd
}

func TestPrepareEnv(t *testing.T) {
	env := make([]string, 0, 10)
	env = append(env, "A=1", TagEnv+"=stale.1", "B=2")
	cmd := exec.Command("true")
	cmd.Env = env
	Prepare(cmd)
	if got := env[:3]; !slices.Equal(got, []string{"A=1", TagEnv + "=stale.1", "B=2"}) || len(env[:cap(env)][3]) != 0 {
		t.Errorf("the caller's slice changed: %q", env[:cap(env)])
	}
	var tags []string
	for _, kv := range cmd.Env {
		if v, ok := strings.CutPrefix(kv, TagEnv+"="); ok {
			tags = append(tags, v)
		}
	}
	if len(tags) != 1 {
		t.Fatalf("%s entries: %q", TagEnv, tags)
	}
	f := strings.Fields(tags[0])
	run := f[len(f)-1]
	if tok := token(); tok != "" && !strings.HasPrefix(run, tok+".") {
		t.Errorf("run tag %q does not carry this mm's token %q", run, tok)
	}
	if got := runTag(cmd.Env); token() != "" && got != run {
		t.Errorf("runTag = %q, want %q", got, run)
	}
	if strings.Contains(tags[0], "stale") {
		t.Errorf("the stale tag was kept: %q", tags[0])
	}

	// Two runs get two tags.
	cmd2 := exec.Command("true")
	Prepare(cmd2)
	if token() != "" && runTag(cmd2.Env) == run {
		t.Errorf("two runs share the tag %q", run)
	}
	if cmd.Cancel != nil {
		t.Error("Prepare gave a Cancel to a cmd not made by exec.CommandContext (Start would refuse it)")
	}
}

func TestHasTag(t *testing.T) {
	tests := []struct {
		tags, tag, tok string
		has, hasTok    bool
	}{
		{"a.1", "a.1", "a", true, true},
		{"x.3 a.1", "a.1", "a", true, true},
		{"a.10", "a.1", "a", false, true},
		{"ab.1", "a.1", "a", false, false},
		{"", "a.1", "a", false, false},
	}
	for _, tt := range tests {
		if got := hasTag(tt.tags, tt.tag); got != tt.has {
			t.Errorf("hasTag(%q, %q) = %v", tt.tags, tt.tag, got)
		}
		if got := hasTokenTag(tt.tags, tt.tok); got != tt.hasTok {
			t.Errorf("hasTokenTag(%q, %q) = %v", tt.tags, tt.tok, got)
		}
	}
}

func TestProcargsEnv(t *testing.T) {
	// argc 2, the path padded with NULs, two arguments, two variables, the
	// empty string, then Apple's strings.
	b := []byte{2, 0, 0, 0}
	b = append(b, "/usr/local/bin/mm\x00\x00\x00\x00mm\x00-p\x00HOME=/Users/me\x00"+TagEnv+"=t.1 u.2\x00\x00ptr_munge=\x00"...)
	got := procargsEnv(b)
	want := []string{"HOME=/Users/me", TagEnv + "=t.1 u.2"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, bad := range [][]byte{nil, {1, 0}, {5, 0, 0, 0, 'x'}, {3, 0, 0, 0, '/', 0, 'a', 0}} {
		procargsEnv(bad) // never panics
	}
}
