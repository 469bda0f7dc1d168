package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckProgram(t *testing.T) {
	root := t.TempDir()
	cfgDir := filepath.Join(root, "sub")
	os.MkdirAll(filepath.Join(cfgDir, "hooks"), 0o755)
	os.WriteFile(filepath.Join(cfgDir, "hooks", "ok.sh"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(cfgDir, "hooks", "plain.sh"), []byte("#!/bin/sh\n"), 0o644)
	bin := filepath.Join(root, "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "guardprog"), []byte("#!/bin/sh\n"), 0o755)
	tests := []struct {
		command, want string
	}{
		{"./hooks/ok.sh", `write "$MM_CONFIG_DIR/hooks/ok.sh"`},
		{"$MM_CONFIG_DIR/hooks/ok.sh --flag", ""},
		{"${MM_CONFIG_DIR}/hooks/plain.sh", "chmod +x " + filepath.Join(cfgDir, "hooks", "plain.sh")},
		{"sh ./hooks/ok.sh", "is not found"},
		{"sh $MM_CONFIG_DIR/hooks/plain.sh", ""}, // sh reads it: no x needed
		{"guardprog --x", ""},
		{"nosuch --x", "nosuch is not found in PATH"},
		{"FOO=1 nosuch", "nosuch is not found in PATH"},
		{"cat >/dev/null; echo {}", ""},
		{`"$MM_BIN" hooks adapt codex -- ./x.sh`, ""},
		{"echo '{}'", ""},
		{"if true; then echo {}; fi", ""},
	}
	for _, tt := range tests {
		p := CheckProgram(Hook{Command: tt.command, ConfigDir: cfgDir}, root, bin+":/usr/bin:/bin")
		switch {
		case tt.want == "" && p != nil:
			t.Errorf("%s: %s, want nothing", tt.command, p)
		case tt.want != "" && (p == nil || !strings.Contains(p.String(), tt.want)):
			t.Errorf("%s: %v, want %q", tt.command, p, tt.want)
		}
	}
}
