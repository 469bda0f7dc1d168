package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The architecture's rules (docs/explanation/architecture.md), checked on
// the import graph as go list reports it: a rule the compiler does not
// enforce is kept by a test or not at all.

const module = "github.com/mm-agent/mm/"

// deps is every package pkg imports, directly or not (go list -deps).
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", module+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// under reports whether pkg is prefix or a package below it.
func under(pkg, prefix string) bool { return pkg == prefix || strings.HasPrefix(pkg, prefix+"/") }

// TestImportRules: front ends know agents only through internal/agent's
// product (a frontend.App) and the orchestrator's interfaces, never how a
// child is started; config knows no runtime; the orchestrator and the
// relay know no front end; go-plugin stays inside agentproc.
func TestImportRules(t *testing.T) {
	frontEnds := []string{"internal/cli", "internal/tui", "internal/acp", "internal/frontend", "internal/agent"}
	rules := []struct {
		pkg    string
		banned []string // package paths (and what is below them) pkg may not depend on
		why    string
	}{
		{"internal/acp", []string{module + "agentproc", "github.com/hashicorp/go-plugin", module + "remote", module + "internal/agent"},
			"the editor front end gets its agents from internal/agent as a frontend.App; how an asked agent runs is not its business"},
		{"internal/tui", []string{module + "agentproc", "github.com/hashicorp/go-plugin", module + "remote", module + "internal/agent"},
			"the window front end gets its agent from internal/agent as a frontend.App"},
		{"orchestrator", prefixed(frontEnds, module+"agentproc", module+"remote", "github.com/hashicorp/go-plugin"),
			"a turn knows no front end and no transport"},
		{"relay", prefixed(frontEnds, module+"agentproc", module+"remote", "github.com/hashicorp/go-plugin"),
			"a relay knows no front end, and not how the asked agent is reached (the Asker interface)"},
		{"remote", prefixed(frontEnds),
			"remote agents are a transport: the words they share with the front ends (consent questions, tool lines) come from the leaf internal/calls"},
		{"agentproc", prefixed(frontEnds),
			"a child's transport knows no front end"},
	}
	for _, r := range rules {
		for _, d := range deps(t, r.pkg) {
			for _, b := range r.banned {
				if under(d, b) {
					t.Errorf("%s depends on %s: %s", r.pkg, d, r.why)
				}
			}
		}
	}
}

func prefixed(pkgs []string, more ...string) []string {
	out := make([]string, 0, len(pkgs)+len(more))
	for _, p := range pkgs {
		out = append(out, module+p)
	}
	return append(out, more...)
}

// TestConfigKnowsNoRuntime: config parses and validates; of mm it imports
// only leaf packages of declarations (the hooks block, the sandbox, the
// structuredOutput schema), which import nothing of mm.
func TestConfigKnowsNoRuntime(t *testing.T) {
	leaves := []string{"hooks/hookdecl", "internal/sandbox/sandboxdecl", "internal/structured"}
	for _, d := range deps(t, "config") {
		if d == module+"config" || !strings.HasPrefix(d, module) {
			continue
		}
		if !slices.Contains(leaves, strings.TrimPrefix(d, module)) {
			t.Errorf("config depends on %s: config knows no runtime package of mm (only %s)", d, strings.Join(leaves, ", "))
		}
	}
	for _, leaf := range leaves {
		for _, d := range deps(t, leaf) {
			if strings.HasPrefix(d, module) && d != module+leaf {
				t.Errorf("%s depends on %s: a declaration package is a leaf", leaf, d)
			}
		}
	}
}

// TestGoPluginOnlyInAgentproc: only agentproc imports go-plugin itself
// (the design card: go-plugin stays inside agentproc).
func TestGoPluginOnlyInAgentproc(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] == module+"agentproc" {
			continue
		}
		for _, imp := range f[1:] {
			if under(imp, "github.com/hashicorp/go-plugin") {
				t.Errorf("%s imports %s: go-plugin stays inside agentproc", f[0], imp)
			}
		}
	}
}

// TestNoSetenv: mm never changes its own environment (outside tests):
// every process it starts gets its environment explicitly, built once from
// what mm inherited (internal/agent's Env), so that agents asked at
// different depths in one process (mm -a2a) each give theirs.
func TestNoSetenv(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	banned := []string{"Setenv", "Unsetenv", "Clearenv"}
	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "node_modules", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		found++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "os" && slices.Contains(banned, sel.Sel.Name) {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s:%d: os.%s: pass the environment to the process you start instead (internal/agent's Env)", rel, fset.Position(sel.Pos()).Line, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 50 {
		t.Fatalf("found only %d Go files under %s", found, root)
	}
}
