package hooks

import (
	"strings"
	"testing"
)

func TestNoShellSaysWhatToInstall(t *testing.T) {
	p, err := noShell()
	if p != "" || err == nil || !strings.Contains(err.Error(), "Git for Windows") {
		t.Errorf("noShell() = %q, %v", p, err)
	}
}
