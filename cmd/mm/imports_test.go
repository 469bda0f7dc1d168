package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Every mm process — an asked agent, each `mm --ask` in a hook or a
// script — pays the package initialisation of everything the binary links,
// used or not: Go has no lazy imports. These tests keep what costs at start
// out of cmd/mm's import graph, so that the next dependency cannot slow
// every relay down unnoticed (issue 17: glamour's chroma and bluemonday
// cost 16-18 ms a process, ten times a hello-world binary's whole start).

// banned are packages that must stay out of mm, and why (a path stands
// for the packages under it too).
var banned = map[string]string{
	"github.com/alecthomas/chroma":       "syntax highlighting: it registers every lexer and style at init",
	"github.com/microcosm-cc/bluemonday": "an HTML sanitiser, with CSS tables built at init",
	"github.com/dlclark/regexp2":         "a second regular-expression engine, for chroma's lexers",
	"charm.land/glamour":                 "a Markdown renderer that pulls in chroma and bluemonday",
	"github.com/charmbracelet/glamour":   "a Markdown renderer that pulls in chroma and bluemonday",
	"github.com/aymerick/douceur":        "a CSS parser, for bluemonday",
	"github.com/gorilla/css":             "a CSS scanner, for bluemonday",
}

// TestImportGraph fails when cmd/mm's import graph gains a banned package,
// naming the chain of imports that brought it in.
func TestImportGraph(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	importers := map[string][]string{}
	var deps []string
	self := ""
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		deps = append(deps, f[0])
		self = f[0] // go list -deps prints the package itself last
		for _, imp := range f[1:] {
			importers[imp] = append(importers[imp], f[0])
		}
	}
	if len(deps) < 50 {
		t.Fatalf("go list found only %d packages: %s", len(deps), out)
	}
	for prefix, why := range banned {
		for _, pkg := range deps { // the first found is the closest to mm
			if pkg == prefix || strings.HasPrefix(pkg, prefix+"/") {
				t.Errorf("%s is in mm's import graph (%s): %s; every mm process would pay its start-up", pkg, chain(importers, self, pkg), why)
				break
			}
		}
	}
}

// chain is how self comes to import pkg: "a → b → pkg".
func chain(importers map[string][]string, self, pkg string) string {
	prev := map[string]string{pkg: ""}
	queue := []string{pkg}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == self {
			var path []string
			for q := p; q != ""; q = prev[q] {
				path = append(path, q)
			}
			return strings.Join(path, " → ")
		}
		for _, imp := range importers[p] {
			if _, seen := prev[imp]; !seen {
				prev[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	return pkg
}

// initLimit is what one package's initialisation may cost mm's start;
// totalLimit what all of them may (3.2 ms on a busy 2-core machine when
// this was written; 18 ms with glamour).
const (
	initLimit  = time.Millisecond
	totalLimit = 6 * time.Millisecond
)

// TestInitCost runs `mm version` with GODEBUG=inittrace=1 and fails when
// a package takes more than initLimit to initialise: the least of several
// runs, since a busy machine only ever adds to it. mm is built without the
// race detector here, which would slow every init down.
func TestInitCost(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mm")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build mm: %v\n%s", err, out)
	}
	const runs = 11
	least := map[string]time.Duration{}
	for range runs {
		cmd := exec.Command(bin, "version")
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("mm version: %v\n%s", err, stderr.String())
		}
		found := 0
		for _, line := range strings.Split(stderr.String(), "\n") {
			pkg, d, ok := parseInitTrace(line)
			if !ok {
				continue
			}
			found++
			if old, seen := least[pkg]; !seen || d < old {
				least[pkg] = d
			}
		}
		if found < 50 {
			t.Fatalf("inittrace gave %d packages:\n%s", found, stderr.String())
		}
	}
	pkgs := make([]string, 0, len(least))
	var total time.Duration
	for p, d := range least {
		pkgs = append(pkgs, p)
		total += d
	}
	slices.SortFunc(pkgs, func(a, b string) int { return int(least[b] - least[a]) })
	for _, p := range pkgs[:5] {
		t.Logf("%-60s %v", p, least[p])
	}
	t.Logf("%d packages, %v in all (the least of %d runs each)", len(pkgs), total, runs)
	if total > totalLimit {
		t.Errorf("mm's packages take %v to initialise in all, more than %v: see the packages above", total, totalLimit)
	}
	for _, p := range pkgs {
		if least[p] > initLimit {
			t.Errorf("%s takes %v to initialise (the least of %d runs), more than %v, in every mm process: keep it out of cmd/mm's import graph, or make its work lazy",
				p, least[p], runs, initLimit)
		}
	}
}

// parseInitTrace reads a line of GODEBUG=inittrace=1:
//
//	init github.com/x/y @1.2 ms, 0.35 ms clock, 1024 bytes, 7 allocs
func parseInitTrace(line string) (string, time.Duration, bool) {
	f := strings.Fields(line)
	if len(f) < 7 || f[0] != "init" || f[5] != "ms" || f[6] != "clock," {
		return "", 0, false
	}
	ms, err := strconv.ParseFloat(f[4], 64)
	if err != nil {
		return "", 0, false
	}
	return f[1], time.Duration(ms * float64(time.Millisecond)), true
}
