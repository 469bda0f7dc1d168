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
	leaves := []string{"hooks/hookdecl", "internal/sandbox/sandboxdecl", "internal/structured", "internal/bytesize"}
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

// parsePkg parses the non-test Go files of one of mm's package directories.
func parsePkg(t *testing.T, dir string) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	paths, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no Go files in %s (%v)", dir, err)
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = f
	}
	return fset, files
}

// TestConsentIsNoField: consent belongs to the caller of a turn or a
// relay (an argument, as show is), never to what the callers share: the
// orchestrator's Agent and the relay's Relay hold no Consent, and the
// front ends' App cannot be given one.
func TestConsentIsNoField(t *testing.T) {
	shared := []struct{ dir, typ string }{{"orchestrator", "Agent"}, {"relay", "Relay"}, {"internal/frontend", "App"}}
	for _, s := range shared {
		_, files := parsePkg(t, s.dir)
		seen := false
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.TypeSpec:
					st, ok := n.Type.(*ast.StructType)
					if !ok || n.Name.Name != s.typ {
						return true
					}
					seen = true
					for _, field := range st.Fields.List {
						typ := types(field.Type)
						for _, name := range field.Names {
							if strings.Contains(typ, "Consent") || strings.Contains(name.Name, "Consent") {
								t.Errorf("%s.%s has the field %s %s: consent is an argument of the call", s.dir, s.typ, name.Name, typ)
							}
						}
					}
				case *ast.FuncDecl:
					if n.Recv != nil && strings.Contains(n.Name.Name, "Consent") && strings.Contains(types(n.Recv.List[0].Type), s.typ) {
						t.Errorf("%s: (%s).%s: consent is an argument of the call, not the agent's", s.dir, s.typ, n.Name.Name)
					}
				}
				return true
			})
		}
		if !seen {
			t.Errorf("no struct %s in %s: the rule checks nothing", s.typ, s.dir)
		}
	}
}

// types is a type expression as source text, roughly (enough to name it).
func types(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return "*" + types(e.X)
	case *ast.SelectorExpr:
		return types(e.X) + "." + e.Sel.Name
	}
	return ""
}

// TestOneStatusMappingPerWire: a relay's or a tool call's status crosses
// each wire through one pair of functions, in one file: the child
// protocol's enum values are named only in agentproc/wire.go, A2A's
// outcome names only in remote/remote.go's table ("cancelled" and
// "failed" are words of error texts too: the names only an outcome uses
// are checked).
func TestOneStatusMappingPerWire(t *testing.T) {
	wires := []struct {
		dir, file string
		named     func(n ast.Node) string // the wire value n names, "" for none
	}{
		{"agentproc", "wire.go", func(n ast.Node) string {
			if sel, ok := n.(*ast.SelectorExpr); ok && types(sel.X) == "agentpb" &&
				(strings.HasPrefix(sel.Sel.Name, "Outcome_") || strings.HasPrefix(sel.Sel.Name, "ToolStatus_")) {
				return "agentpb." + sel.Sel.Name
			}
			return ""
		}},
		{"remote", "remote.go", func(n ast.Node) string {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING &&
				slices.Contains([]string{`"answered"`, `"maxSteps"`, `"cutOff"`}, lit.Value) {
				return lit.Value
			}
			return ""
		}},
	}
	for _, w := range wires {
		fset, files := parsePkg(t, w.dir)
		inWire := 0
		for name, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				if v := w.named(n); v != "" {
					if name == w.file {
						inWire++
					} else {
						t.Errorf("%s:%d names %s: map statuses through the functions of %s/%s", filepath.Join(w.dir, name), fset.Position(n.Pos()).Line, v, w.dir, w.file)
					}
				}
				return true
			})
		}
		if inWire == 0 {
			t.Errorf("%s/%s names no wire status: the rule checks nothing", w.dir, w.file)
		}
	}
}
