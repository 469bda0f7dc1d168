//go:build unix

package main

import (
	"encoding/json"
	"testing"

	"github.com/mm-agent/mm/bench/internal/runs"
)

// TestBenchmarkRuns runs the benchmark, with fewer rounds, and checks it
// measures what it says. It asserts no timing: speed is measured by the
// benchmark, run on its own (`go run ./bench/startup`, against
// VersionTarget); what keeps start-up from regressing in every test run is
// cmd/mm's import-graph and init-cost tests.
func TestBenchmarkRuns(t *testing.T) {
	out, err := runs.RunCommand("../..", "./bench/startup", "-rounds", "8", "-n", "8", "-warmup", "3", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var f Figures
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("%+v", f)
	if f.HelloMS <= 0 || f.VersionMS <= 0 || f.VersionRatio <= 0 {
		t.Errorf("the benchmark measured nothing: %+v", f)
	}
}
