package main

import (
	"encoding/json"
	"testing"

	"github.com/mm-agent/mm/bench/internal/runs"
)

// TestTargets runs the benchmark, with fewer rounds, and fails when the
// asked agent holds more than RSSTarget after its first answer (issue 17).
// Times are the benchmark's to measure, run on its own (`go run
// ./bench/relaycost`, against ColdTarget and WarmTarget), not a test's:
// they are logged here.
func TestTargets(t *testing.T) {
	out, err := runs.RunCommand("../..", "./bench/relaycost", "-rounds", "6", "-n", "3", "-warmup", "2", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var f Figures
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("%+v", f)
	if f.WarmMS <= 0 {
		t.Errorf("the benchmark measured no warm ask: %+v", f)
	}
	if f.RSSBytes > RSSTarget {
		t.Errorf("the asked agent's RSS after its first answer: %.1f MB, more than %.0f MB", float64(f.RSSBytes)/1e6, float64(RSSTarget)/1e6)
	}
}
