// Command sandboxcost measures what the sandbox adds to a bash tool call:
// the bash tool running `true` as mm runs it (its own process group, the
// output pipe, the wait), without a sandbox, under sandbox: workspace, and
// under workspace with sandboxNetwork: true (no network namespace to make),
// interleaved in an order that rotates run by run so that drift in the
// machine's load reaches all of them alike. It also times the check mm
// makes once at start (sandbox.New: one bwrap around `true`).
//
// And what protecting costs, in a project laid out as the how-to says
// (.mm/agent.yaml, .mm/hooks/guard.sh, bin/mm, node_modules/.bin on PATH,
// a .git): the call under workspace protecting the files alone, as mm did
// before issue 30, against the call protecting what mm protects now — the
// files and their directories, the mm binary's directory and the PATH
// entry — as a ratio of one run.
//
//	go run ./bench/sandboxcost [-rounds 10] [-n 30] [-warmup 10] [-json]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mm-agent/mm/internal/sandbox"
	"github.com/mm-agent/mm/internal/tools"
)

// Figures are the medians, in milliseconds, printed by -json.
type Figures struct {
	BareMS       float64 `json:"bareMs"`       // the bash tool without a sandbox
	SandboxMS    float64 `json:"sandboxMs"`    // under sandbox: workspace
	NetworkMS    float64 `json:"networkMs"`    // under workspace + sandboxNetwork
	AddedMS      float64 `json:"addedMs"`      // SandboxMS - BareMS
	StartCheckMS float64 `json:"startCheckMs"` // sandbox.New, once per mm start
	// FilesMS: workspace protecting a project's config and hook script
	// (as before issue 30); DirsMS: protecting those, their directories,
	// the mm binary's and a PATH entry's (as now); Ratio: DirsMS/FilesMS.
	FilesMS float64 `json:"filesMs"`
	DirsMS  float64 `json:"dirsMs"`
	Ratio   float64 `json:"ratio"`
}

func main() {
	asJSON := flag.Bool("json", false, "print the figures as JSON")
	rounds := flag.Int("rounds", 10, "interleaved rounds")
	n := flag.Int("n", 30, "runs of each side per round")
	warmup := flag.Int("warmup", 10, "untimed runs of each side before the first round")
	flag.Parse()
	if *rounds < 1 || *n < 1 {
		fail(fmt.Errorf("-rounds and -n must be >= 1"))
	}
	dir, err := os.MkdirTemp("", "sandboxcost-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	files, dirs, err := project(dir)
	if err != nil {
		fail(err)
	}
	type side struct {
		name string
		tool tools.Tool
	}
	var sides []side
	ws := &sandbox.Policy{Mode: sandbox.Workspace}
	for _, s := range []struct {
		name    string
		p       *sandbox.Policy
		protect []string
	}{
		{"bash tool, no sandbox", nil, nil},
		{"bash tool, sandbox: workspace", ws, nil},
		{"bash tool, workspace + sandboxNetwork", &sandbox.Policy{Mode: sandbox.Workspace, Network: true}, nil},
		{"workspace, protecting the files", ws, files},
		{"workspace, protecting their directories too", ws, append(files, dirs...)},
	} {
		var box *sandbox.Sandbox
		if s.p != nil {
			if box, err = sandbox.New(ctx, *s.p, dir, s.protect...); err != nil {
				fail(err)
			}
		}
		ts, err := tools.Sandboxed([]string{"bash"}, dir, box)
		if err != nil {
			fail(err)
		}
		sides = append(sides, side{s.name, ts[0]})
	}

	input := json.RawMessage(`{"command":"true"}`)
	run := func(i int) time.Duration {
		start := time.Now()
		out := sides[i].tool.Run(ctx, input).Output
		d := time.Since(start)
		if out != "[exit status 0]" {
			fail(fmt.Errorf("%s: %q", sides[i].name, out))
		}
		return d
	}
	// The start-up check, timed against the same rounds.
	check := func() time.Duration {
		start := time.Now()
		if _, err := sandbox.New(ctx, sandbox.Policy{Mode: sandbox.Workspace}, dir); err != nil {
			fail(err)
		}
		return time.Since(start)
	}
	for range *warmup {
		for i := range sides {
			run(i)
		}
		check()
	}
	all := make([][]time.Duration, len(sides))
	var checks []time.Duration
	for round := range *rounds {
		for j := range *n {
			for k := range sides {
				i := (round + j + k) % len(sides)
				all[i] = append(all[i], run(i))
			}
		}
		checks = append(checks, check())
	}
	med := make([]time.Duration, len(sides))
	for i := range sides {
		med[i] = median(all[i])
	}
	if *asJSON {
		f := Figures{BareMS: msf(med[0]), SandboxMS: msf(med[1]), NetworkMS: msf(med[2]),
			AddedMS: msf(med[1] - med[0]), StartCheckMS: msf(median(checks)),
			FilesMS: msf(med[3]), DirsMS: msf(med[4]), Ratio: float64(med[4]) / float64(med[3])}
		if err := json.NewEncoder(os.Stdout).Encode(f); err != nil {
			fail(err)
		}
		return
	}
	for i, s := range sides {
		fmt.Printf("%-46s %8s median (p90 %s)\n", s.name, ms(med[i]), ms(percentile(all[i], 0.9)))
	}
	fmt.Printf("the sandbox adds %s to a bash call (%s of it the network namespace); mm's start-up check costs %s once\n",
		ms(med[1]-med[0]), ms(med[1]-med[2]), ms(median(checks)))
	fmt.Printf("protecting the directories too: %.2fx the call protecting the files alone\n", float64(med[4])/float64(med[3]))
	fmt.Printf("  %d rounds x %d runs of each, interleaved; %d start-up checks\n", *rounds, *n, len(checks))
}

// project lays out in dir a project as the how-to has it, and returns
// what mm protected in it before issue 30 (the config, the hook script,
// the .git's config and hooks) and what it protects now besides: the
// config's and the script's directories, the mm binary's, and a PATH
// entry in the project (node_modules/.bin).
func project(dir string) (files, dirs []string, err error) {
	j := func(p ...string) string { return filepath.Join(append([]string{dir}, p...)...) }
	for _, f := range []string{".mm/agent.yaml", ".mm/hooks/guard.sh", "bin/mm", "node_modules/.bin/tool", ".git/config", ".git/hooks/pre-commit.sample", "src/main.go"} {
		if err := os.MkdirAll(filepath.Dir(j(f)), 0o755); err != nil {
			return nil, nil, err
		}
		if err := os.WriteFile(j(f), []byte("x\n"), 0o644); err != nil {
			return nil, nil, err
		}
	}
	files = []string{j(".mm/agent.yaml"), j(".mm/hooks"), j(".mm/hooks/guard.sh")}
	dirs = []string{j(".mm"), j("bin"), j("node_modules/.bin")}
	return files, dirs, nil
}

func median(ds []time.Duration) time.Duration { return percentile(ds, 0.5) }

func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", msf(d)) }

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sandboxcost:", err)
	os.Exit(1)
}
