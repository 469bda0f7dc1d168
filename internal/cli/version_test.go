package cli

import (
	"runtime/debug"
	"testing"
)

func TestReadVersion(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name     string
		info     *debug.BuildInfo
		override string
		ver, rev string
		dirty    bool
	}{
		{"go install @version", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "", "v1.2.3", "", false},
		{"clone, clean", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201095900-3091dcd0ab12"}, Settings: vcs("3091dcd0ab12ffee", "false")},
			"", "v0.0.0-20261201095900-3091dcd0ab12", "3091dcd", false},
		{"clone, changed", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201095900-3091dcd0ab12+dirty"}, Settings: vcs("3091dcd0ab12ffee", "true")},
			"", "v0.0.0-20261201095900-3091dcd0ab12", "3091dcd", true},
		{"no VCS stamp", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "", "dev", "", false},
		{"no build info", nil, "", "dev", "", false},
		{"override", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("abcdef0123", "false")}, "v2.0.0", "v2.0.0", "abcdef0", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ver, rev, dirty := readVersion(tt.info, tt.override)
			if ver != tt.ver || rev != tt.rev || dirty != tt.dirty {
				t.Errorf("got %q %q %v, want %q %q %v", ver, rev, dirty, tt.ver, tt.rev, tt.dirty)
			}
		})
	}
}
