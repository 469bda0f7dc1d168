// Package runs is what the start-up benchmarks share: building mm and a
// hello-world Go binary the same way in the same run, timing cases in
// interleaved rounds (a noisy machine's load reaches every case alike), and
// medians.
package runs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Binaries are the programs a benchmark runs, built into Dir.
type Binaries struct {
	Dir   string
	MM    string // ./cmd/mm, built as a release is (or with cgo: BuildOptions)
	Hello string // a hello-world Go binary: the floor of any Go process start
}

// Build builds mm from the repository at root and a hello-world Go binary,
// with the same toolchain and environment, into a new temporary directory;
// Close removes it. mm is built as releases are (CGO_ENABLED=0 -trimpath,
// .goreleaser.yaml): a static binary, like the hello-world one. With cgo
// set, it is built as a plain `go install` builds it where a C compiler
// is found: linked dynamically with the C library (net's resolver, os/user),
// whose loading costs every start about a millisecond more.
func Build(root string, cgo bool) (*Binaries, error) {
	dir, err := os.MkdirTemp("", "mm-bench-")
	if err != nil {
		return nil, err
	}
	b := &Binaries{Dir: dir, MM: filepath.Join(dir, "mm"), Hello: filepath.Join(dir, "hello")}
	build := exec.Command("go", "build", "-trimpath", "-o", b.MM, "./cmd/mm")
	build.Dir = root
	if !cgo {
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
	}
	if out, err := build.CombinedOutput(); err != nil {
		b.Close()
		return nil, fmt.Errorf("build mm (run from the repository root): %v\n%s", err, out)
	}
	src := filepath.Join(dir, "hellosrc")
	if err := os.MkdirAll(src, 0o755); err != nil {
		b.Close()
		return nil, err
	}
	files := map[string]string{
		"go.mod":  "module hello\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello, world\") }\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			b.Close()
			return nil, err
		}
	}
	cmd := exec.Command("go", "build", "-o", b.Hello, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Close()
		return nil, fmt.Errorf("build the hello-world binary: %v\n%s", err, out)
	}
	return b, nil
}

// Close removes the binaries.
func (b *Binaries) Close() { os.RemoveAll(b.Dir) }

// Case is one thing a benchmark times: Run does it once and returns how
// long the part that counts took (usually all of it).
type Case struct {
	Name string
	Run  func() (time.Duration, error)
}

// Timed wraps f as a Case's Run that times all of f.
func Timed(f func() error) func() (time.Duration, error) {
	return func() (time.Duration, error) {
		t := time.Now()
		err := f()
		return time.Since(t), err
	}
}

// Interleave runs every case warmup times untimed, then rounds rounds of n
// runs each; within a run the cases go one after the other, the first one
// changing at every run, so a burst of load lands on all of them. It
// returns each case's timings, in the order of cases.
func Interleave(cases []Case, rounds, n, warmup int) ([][]time.Duration, error) {
	for range warmup {
		for _, c := range cases {
			if _, err := c.Run(); err != nil {
				return nil, fmt.Errorf("%s: %w", c.Name, err)
			}
		}
	}
	out := make([][]time.Duration, len(cases))
	k := 0
	for range rounds {
		for range n {
			for j := range cases {
				i := (j + k) % len(cases)
				d, err := cases[i].Run()
				if err != nil {
					return nil, fmt.Errorf("%s: %w", cases[i].Name, err)
				}
				out[i] = append(out[i], d)
			}
			k++
		}
	}
	return out, nil
}

// Median is the median of ds (0 for none).
func Median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// RunCommand builds the benchmark command in pkg (say ./bench/startup) of
// the repository at root and runs it there with args, returning its
// stdout. The tests of the benchmarks run them so, built as a user runs
// them: a test binary built with -race would slow the measuring side.
func RunCommand(root, pkg string, args ...string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "mm-bench-cmd-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, filepath.Base(pkg))
	build := exec.Command("go", "build", "-o", bin, pkg)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build %s: %v\n%s", pkg, err, out)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", pkg, err, stderr.String())
	}
	return out, nil
}

// MSOf is d in milliseconds, for JSON.
func MSOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// MS prints d in milliseconds.
func MS(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }
