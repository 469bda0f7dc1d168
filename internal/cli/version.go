package cli

import (
	"runtime/debug"
	"strings"
)

// version, when set at build time, overrides the version Go recorded:
// -ldflags "-X github.com/mm-agent/mm/internal/cli.version=v1.2.3" (the
// release build does so; so do the end-to-end tests, for stable banners).
var version string

// Version is mm's version, as the banner, `mm version` and the protocols
// (ACP, MCP) give it: the override when set, else the module version Go
// recorded in the binary — v1.2.3 for `go install …/cmd/mm@v1.2.3`, the
// tag or a pseudo-version for a build from a clone — else "dev".
var Version, commit, dirty = readVersion(readBuildInfo(), version)

func readBuildInfo() *debug.BuildInfo {
	info, _ := debug.ReadBuildInfo()
	return info
}

// readVersion reads the version, the VCS revision (short) and whether the
// work tree had changes, from what Go recorded in the binary.
func readVersion(info *debug.BuildInfo, override string) (ver, rev string, modified bool) {
	if info != nil {
		ver = strings.TrimSuffix(info.Main.Version, "+dirty")
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
				if len(rev) > 7 {
					rev = rev[:7]
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if ver == "" || ver == "(devel)" {
		ver = "dev"
	}
	if override != "" {
		ver = override
	}
	return ver, rev, modified
}

// fullVersion is what `mm version` and `mm --version` print after "mm ":
// the version, then the commit it was built from when the binary knows it
// (a build from a clone), with ", dirty" when the work tree had changes.
func fullVersion() string {
	v := Version
	if commit != "" {
		v += " (commit " + commit
		if dirty {
			v += ", dirty"
		}
		v += ")"
	}
	return v
}
