package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// These tests build mm the two ways users do, from the committed code of
// this repository: in a clone, and with `go install …@version` from a
// module proxy (here a directory), and read what `mm version` says.

// runIn runs a command in dir and returns its output, failing the test on
// an error.
func runIn(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestVersionFromClone: a binary built in a clone names the commit, and
// says dirty once the work tree has changes; --version says the same.
func TestVersionFromClone(t *testing.T) {
	clone := filepath.Join(t.TempDir(), "mm")
	runIn(t, "", nil, "git", "clone", "-q", repoRoot(t), clone)
	head := strings.TrimSpace(runIn(t, clone, nil, "git", "rev-parse", "--short=7", "HEAD"))
	bin := filepath.Join(t.TempDir(), "mm")
	// -buildvcs=true: a GOFLAGS may turn it off; users' go has it on.
	runIn(t, clone, nil, "go", "build", "-buildvcs=true", "-o", bin, "./cmd/mm")
	want := regexp.MustCompile(`^mm v\S+ \(commit ` + head + `\)\n$`)
	for _, arg := range []string{"version", "--version"} {
		if got := runIn(t, "", nil, bin, arg); !want.MatchString(got) {
			t.Errorf("mm %s = %q, want %s", arg, got, want)
		}
	}

	if err := os.WriteFile(filepath.Join(clone, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runIn(t, clone, nil, "go", "build", "-buildvcs=true", "-o", bin, "./cmd/mm")
	if got, want := runIn(t, "", nil, bin, "version"), "(commit "+head+", dirty)\n"; !strings.HasSuffix(got, want) {
		t.Errorf("mm version = %q, want it to end with %q", got, want)
	}
}

// TestVersionGoInstall: `go install github.com/mm-agent/mm/cmd/mm@v0.9.9`
// from a module proxy prints v0.9.9. The proxy is a directory in the
// proxy's layout holding this commit as v0.9.9; the dependencies come from
// the module cache, which has the same layout.
func TestVersionGoInstall(t *testing.T) {
	const mod, ver = "github.com/mm-agent/mm", "v0.9.9"
	root := repoRoot(t)
	proxy := t.TempDir()
	at := filepath.Join(proxy, mod, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	runIn(t, root, nil, "git", "archive", "--format=zip", "--prefix="+mod+"@"+ver+"/", "-o", filepath.Join(at, ver+".zip"), "HEAD")
	gomod := runIn(t, root, nil, "git", "show", "HEAD:go.mod")
	info, _ := json.Marshal(map[string]string{"Version": ver, "Time": time.Now().UTC().Format(time.RFC3339)})
	for name, data := range map[string]string{"list": ver + "\n", ver + ".mod": gomod, ver + ".info": string(info)} {
		if err := os.WriteFile(filepath.Join(at, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	modcache := strings.TrimSpace(runIn(t, "", nil, "go", "env", "GOMODCACHE"))
	gobin := t.TempDir()
	env := []string{
		"GOPROXY=file://" + filepath.ToSlash(proxy) + ",file://" + filepath.ToSlash(filepath.Join(modcache, "cache", "download")),
		"GOSUMDB=off", "GOFLAGS=-mod=mod", "GOBIN=" + gobin, "GOTOOLCHAIN=local",
	}
	runIn(t, t.TempDir(), env, "go", "install", mod+"/cmd/mm@"+ver)
	if got := runIn(t, "", nil, filepath.Join(gobin, "mm"), "version"); got != "mm "+ver+"\n" {
		t.Errorf("mm version = %q, want %q", got, "mm "+ver+"\n")
	}
}
