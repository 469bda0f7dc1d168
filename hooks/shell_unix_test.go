//go:build unix

package hooks

import (
	"os/exec"
	"testing"
)

func TestShell(t *testing.T) {
	sh, err := Shell()
	if err != nil {
		t.Fatal(err)
	}
	if want, err := exec.LookPath("sh"); err == nil && sh != want {
		t.Errorf("Shell() = %q, want the first sh on PATH, %q", sh, want)
	}
	// With none on PATH, /bin/sh, which every Unix has.
	if p, err := noShell(); p != "/bin/sh" || err != nil {
		t.Errorf("noShell() = %q, %v", p, err)
	}
}
