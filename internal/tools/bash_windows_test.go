package tools

import (
	"strings"
	"testing"
)

func TestBashPathNeedsBashOnPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := bashPath(); err == nil || !strings.Contains(err.Error(), "Git for Windows") {
		t.Errorf("bashPath() with no bash on PATH: %v", err)
	}
}
