package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/mm-agent/mm/bench/internal/runs"
)

// TestBenchmarkRuns runs the benchmark, with fewer rounds, and checks it
// measures what it says. It asserts no timing: the cost is the
// benchmark's to measure, run on its own (`go run ./bench/sandboxcost`).
func TestBenchmarkRuns(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("MM_REQUIRE_ALL") != "" {
			t.Fatal("bwrap is missing and MM_REQUIRE_ALL is set: apt-get install bubblewrap")
		}
		t.Skip("bwrap is not installed (apt-get install bubblewrap)")
	}
	out, err := runs.RunCommand("../..", "./bench/sandboxcost", "-rounds", "2", "-n", "3", "-warmup", "1", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var f Figures
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("%+v", f)
	if f.BareMS <= 0 || f.SandboxMS <= 0 || f.NetworkMS <= 0 || f.StartCheckMS <= 0 || f.FilesMS <= 0 || f.DirsMS <= 0 || f.Ratio <= 0 {
		t.Errorf("the benchmark measured nothing: %+v", f)
	}
}
