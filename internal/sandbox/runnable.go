package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A file mm runs outside the sandbox is not safe because the file itself
// is read-only: what it loads beside it is chosen by whatever lies in its
// directory — Python puts a script's directory first on sys.path, Node
// resolves ./helper.js there, a symbolic link there can be re-pointed —
// and a hook naming a program by bare name runs whatever comes first on
// PATH. So, under a sandbox, the directory of every such file is
// read-only too (Runnable, Dirs), a file lying directly in a directory the
// sandbox leaves writable is refused at start (Loose), and PATH is
// cleaned of the entries a sandboxed command could fill (Path).

// Runnable is a file mm runs, or reads to know what to run, outside the
// sandbox: a hook's or an MCP server's script, a config, the mm binary.
type Runnable struct {
	// Path is the file as it is named (a symbolic link is kept: its
	// directory is protected as well as its target's).
	Path string
	// What the file is, for the error that names it: "the config", "a
	// hook's script", "the mm binary".
	What string
}

// IsScript reports whether path, a file a hook or an MCP server's command
// names, is a program rather than data the command reads or writes
// (`jq .version package.json`, `cat >> audit.jsonl`): a file with a
// script's extension (.sh, .py, .js, …), an executable file, or one that
// starts with "#!". A script's directory is protected, and a script lying
// directly in a writable directory stops mm (Loose); a data file is
// protected alone, as it always was.
func IsScript(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".sh", ".bash", ".zsh", ".dash", ".fish", ".ksh", ".py", ".pyw", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts",
		".rb", ".pl", ".pm", ".php", ".lua", ".tcl", ".r", ".jl", ".exs", ".ps1", ".jar", ".wasm":
		return true
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	if st.Mode().Perm()&0o111 != 0 {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := f.Read(head)
	return n == 2 && string(head) == "#!"
}

// dirs are the directories of r: where it is named and, for a symbolic
// link, where it leads.
func (r Runnable) dirs() []string {
	out := []string{filepath.Dir(filepath.Clean(r.Path))}
	if real, err := filepath.EvalSymlinks(r.Path); err == nil && filepath.Dir(real) != out[0] {
		out = append(out, filepath.Dir(real))
	}
	return out
}

// Dirs are the directories of rs, to be protected (New, With): nothing
// can be planted beside one of them, and a link in one cannot be
// re-pointed.
func Dirs(rs []Runnable) []string {
	var out []string
	for _, r := range rs {
		if filepath.IsAbs(r.Path) {
			out = append(out, r.dirs()...)
		}
	}
	return out
}

// writable are the directories a command working in dir may write: the
// temp directory, and dir in workspace mode.
func (s *Sandbox) writable(dir string) []string {
	w := []string{s.tmp}
	if s.policy.Mode == Workspace && dir != string(filepath.Separator) {
		w = append(w, dir)
	}
	return w
}

// Loose is an error naming the first of rs that lies directly in a
// directory the sandbox leaves writable for commands working in dir (the
// session directory, the temp directory), where its directory cannot be
// made read-only; nil when there is none, and for nil.
func (s *Sandbox) Loose(dir string, rs []Runnable) error {
	if s == nil {
		return nil
	}
	dir = realOrClean(dir)
	for _, r := range rs {
		if !filepath.IsAbs(r.Path) {
			continue
		}
		for _, d := range r.dirs() {
			d = realOrClean(d)
			for i, w := range s.writable(dir) {
				if d != w {
					continue
				}
				where := "the session directory"
				fix := "e.g. hooks/"
				why := "a file the model put beside it (a module it imports, a link re-pointed) would run outside the sandbox"
				if i == 0 {
					where = "the temp directory"
				}
				switch r.What {
				case ConfigFile:
					fix = "e.g. .mm/agent.yaml, started with -c .mm/agent.yaml"
				case BinFile:
					fix = "e.g. bin/"
					why = "the model could move it aside and put its own program in its place, which mm would run outside the sandbox"
				}
				return fmt.Errorf("sandbox: %s: %s %s lies directly in %s %s, which the sandbox leaves writable: %s; move it into a folder of its own (%s)",
					s.policy.Mode, r.What, r.Path, where, w, why, fix)
			}
		}
	}
	return nil
}

// What a Runnable is, as Loose names it.
const (
	ConfigFile = "the config"
	HookScript = "the hook script"
	MCPScript  = "the MCP server's file"
	BinFile    = "the mm binary"
)

// Path is PATH as what mm starts outside the sandbox gets it, for a
// session working in dir: an empty or relative entry (a leading ':', '.',
// ./node_modules/.bin) is dropped, since it names a directory relative to
// wherever a hook runs, the writable session directory included; so is an
// absolute entry that is a writable directory itself, or lies in one and
// does not exist yet (a sandboxed command could make it). The others in
// a writable directory are returned in protect, to be kept read-only.
// Each dropped entry has its notice, a line for the user. Nil s changes
// nothing.
func (s *Sandbox) Path(path, dir string) (kept string, protect, notices []string) {
	if s == nil || path == "" {
		return path, nil, nil
	}
	dir = realOrClean(dir)
	writable := s.writable(dir)
	var keep []string
	for _, e := range filepath.SplitList(path) {
		why := ""
		switch {
		case e == "":
			why = "is empty (the current directory)"
		case !filepath.IsAbs(e):
			why = "is relative"
		default:
			real := realOrClean(e)
			root := rootOf(writable, real)
			switch {
			case containsPath(writable, real):
				why = "is a directory the sandbox leaves writable"
			case root == "":
			case !exists(real):
				why = "does not exist, in a directory the sandbox leaves writable"
			default:
				protect = append(protect, real)
			}
		}
		if why != "" {
			notices = append(notices, fmt.Sprintf("mm: sandbox: the PATH entry %q %s: it is left out of the PATH of hooks, MCP servers and asked agents, which run outside the sandbox (a program the model put there would run with your rights)", e, why))
			continue
		}
		keep = append(keep, e)
	}
	return strings.Join(keep, string(filepath.ListSeparator)), protect, notices
}

func containsPath(l []string, p string) bool {
	for _, x := range l {
		if x == p {
			return true
		}
	}
	return false
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
