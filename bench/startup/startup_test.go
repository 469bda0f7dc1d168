package main

import (
	"encoding/json"
	"testing"

	"github.com/mm-agent/mm/bench/internal/runs"
)

// TestVersionTarget runs the benchmark, with fewer rounds, and fails when
// mm version takes more than VersionTarget times the hello-world binary
// built in the same run (issue 17: 15.5x with glamour's chroma in mm).
func TestVersionTarget(t *testing.T) {
	out, err := runs.RunCommand("../..", "./bench/startup", "-rounds", "8", "-n", "8", "-warmup", "3", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var f Figures
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("%+v", f)
	if f.VersionRatio > VersionTarget {
		t.Errorf("mm version takes %.2fms, %.2fx the hello-world binary's %.2fms: more than %.0fx (GODEBUG=inittrace=1 mm version shows which packages' init costs)",
			f.VersionMS, f.VersionRatio, f.HelloMS, VersionTarget)
	}
}
