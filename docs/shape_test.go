package docs

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// A benchmark's example output is checked by its shape: the benchmark runs
// (with fewer rounds, as the marker says) and its lines must read as the
// block's, every figure aside.

// needs are what some benchmarks need, by the package the command runs:
// without it the example is skipped, and the run's end says so, unless
// MM_REQUIRE_ALL is set (as CI sets it) — then it fails.
var needs = map[string]struct {
	what, install string
	present       func() bool
}{
	"./bench/a2aload": {"the npm test packages", "npm ci --prefix cmd/mm/testdata/npm", func() bool {
		_, err := os.Stat(filepath.Join(root, "cmd/mm/testdata/npm/node_modules/@a2a-js/sdk"))
		return err == nil
	}},
	"./bench/balance": {"nginx", "apt-get install nginx-light", func() bool {
		if _, err := exec.LookPath("nginx"); err == nil {
			return true
		}
		_, err := os.Stat("/usr/sbin/nginx")
		return err == nil
	}},
	"./bench/sandboxcost": {"bubblewrap", "apt-get install bubblewrap", func() bool {
		_, err := exec.LookPath("bwrap")
		return err == nil
	}},
}

var skipped struct {
	sync.Mutex
	lines []string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if len(skipped.lines) > 0 {
		msg := fmt.Sprintf("docs: %d benchmark example(s) SKIPPED:\n%s  (set MM_REQUIRE_ALL=1 to make a skip a failure, as CI does)\n",
			len(skipped.lines), strings.Join(skipped.lines, ""))
		os.Stdout.WriteString(msg)
		if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
			io.WriteString(tty, msg)
			tty.Close()
		}
	}
	os.Exit(code)
}

func TestBenchmarkExamplesShape(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmarks")
	}
	all := markdownBlocks(t)
	for i, b := range all {
		if !strings.HasPrefix(b.marker, "shape of:") {
			continue
		}
		args, err := shapeCommand(b, all, i)
		if err != nil {
			t.Errorf("%s: %v", b, err)
			continue
		}
		t.Run(strings.ReplaceAll(b.String(), "/", "_"), func(t *testing.T) {
			if n, ok := needs[args[2]]; ok && !n.present() {
				if os.Getenv("MM_REQUIRE_ALL") != "" {
					t.Fatalf("%s is missing and MM_REQUIRE_ALL is set: run %s", n.what, n.install)
				}
				skipped.Lock()
				skipped.lines = append(skipped.lines, fmt.Sprintf("  %s (%s) needs %s: %s\n", b, strings.Join(args, " "), n.what, n.install))
				skipped.Unlock()
				t.Skipf("%s is missing: %s", n.what, n.install)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, args[0], args[1:]...)
			cmd.Dir = root
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
			}
			got, want := shape(lines(string(out))), shape(b.lines)
			if !slices.Equal(got, want) {
				t.Errorf("%s: the output of %s no longer has the example's shape.\nThe example, read as:\n%s\nThe output, read as:\n%s\nThe output:\n%s",
					b, strings.Join(args, " "), strings.Join(want, "\n"), strings.Join(got, "\n"), out)
			}
		})
	}
}

// shapeCommand returns the command of a "shape of: COMMAND" block all[i];
// when the block above is marked "run by: the next block", COMMAND must
// run the same program as its last command (with other flags).
func shapeCommand(b block, all []block, i int) ([]string, error) {
	command, _ := strings.CutPrefix(b.marker, "shape of: ")
	args := strings.Fields(command)
	if len(args) < 3 || args[0] != "go" || args[1] != "run" {
		return nil, fmt.Errorf("a shape's marker names the command that prints it, <!-- shape of: go run <package> [flags] -->, not %q", command)
	}
	if i == 0 || all[i-1].file != b.file || all[i-1].marker != "run by: the next block" {
		return args, nil
	}
	var above string
	for _, l := range all[i-1].lines {
		if l, _, _ = strings.Cut(l, "#"); strings.TrimSpace(l) != "" {
			above = l
		}
	}
	if want := strings.Fields(above); len(want) < 3 || !slices.Equal(args[:3], want[:3]) {
		return nil, fmt.Errorf("the shape is checked with %q, which does not run the program of the command above (%q)", command, strings.TrimSpace(above))
	}
	return args, nil
}

// figure is a number with its unit of time, if any: 2.45ms, 1m2.5s, -0.3,
// 147.
var figure = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?((ns|µs|us|ms|s|m|h)([0-9]+(\.[0-9]+)?(ns|µs|us|ms|s|m|h))*)?`)

var spaces = regexp.MustCompile(` +`)

// shape is ls with every figure read as "#", runs of spaces as one, and no
// blank space at either end.
func shape(ls []string) []string {
	var out []string
	for _, l := range trimBlank(ls) {
		l = figure.ReplaceAllString(l, "#")
		out = append(out, strings.TrimSpace(spaces.ReplaceAllString(l, " ")))
	}
	return out
}
