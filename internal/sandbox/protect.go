package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Protected paths are the files mm itself runs, or reads to know what to
// run, outside the sandbox: hook scripts, config files, a repository's
// .git/hooks and .git/config (git runs what they name: core.hooksPath,
// core.fsmonitor). The session directory is writable, and they often live
// in it; a sandboxed command that rewrote one would have its code run
// with the user's full rights by the next hook, the next asked agent or
// the user's next git command. Under a sandbox they are read-only to bash
// and refused to write_file and edit_file.
//
// What is protected is what can be named without running anything: a
// file a hook reads indirectly, or a script named only inside another
// script, is not (the docs say so).

// CommandPaths are the existing regular files a shell command names, as
// mm computes them for a hook or an MCP server's command: the command is
// split into words at blanks and shell operators, quotes and backslashes
// are dropped (so the words of a `sh -c '…'` script are words too), the
// variables whose value mm knows without running anything are expanded,
// plain or in braces — $MM_CONFIG_DIR to configDir; $CLAUDE_PROJECT_DIR,
// $GEMINI_PROJECT_DIR (what `mm hooks adapt` sets for the command it
// wraps: the hook's cwd) and $PWD to sessionDir; $HOME and a leading ~/
// to the home directory — and the part after '=' of NAME=value is a word
// too. A word that looks like a path (it holds a '/' or a '.' after its
// first character) is taken as it is when absolute, else against
// configDir and against sessionDir; those that exist as regular files are
// returned, once each (New resolves their symbolic links).
func CommandPaths(command, configDir, sessionDir string) []string {
	home, _ := os.UserHomeDir()
	known := map[string]string{
		"MM_CONFIG_DIR": configDir, "CLAUDE_PROJECT_DIR": sessionDir, "GEMINI_PROJECT_DIR": sessionDir,
		"PWD": sessionDir, "HOME": home,
	}
	command = knownVar.ReplaceAllStringFunc(command, func(v string) string {
		m := knownVar.FindStringSubmatch(v)
		if val := known[m[1]+m[2]]; val != "" {
			return val
		}
		return v
	})
	words := strings.FieldsFunc(command, func(r rune) bool {
		return strings.ContainsRune(" \t\n;|&<>()`", r)
	})
	var out []string
	for _, w := range words {
		w = strings.NewReplacer(`"`, "", `'`, "", `\`, "").Replace(w)
		if i := strings.IndexByte(w, '='); i >= 0 && !strings.Contains(w[:i], "/") {
			w = w[i+1:]
		}
		if strings.HasPrefix(w, "~/") && home != "" {
			w = filepath.Join(home, w[2:])
		}
		if !looksLikePath(w) {
			continue
		}
		cands := []string{w}
		if !filepath.IsAbs(w) {
			cands = nil
			for _, d := range []string{configDir, sessionDir} {
				if d != "" {
					cands = append(cands, filepath.Join(d, w))
				}
			}
		}
		for _, c := range cands {
			if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// knownVar is a variable CommandPaths expands: $NAME (not the start of a
// longer name) or ${NAME}.
var knownVar = regexp.MustCompile(`\$(?:\{(MM_CONFIG_DIR|CLAUDE_PROJECT_DIR|GEMINI_PROJECT_DIR|PWD|HOME)\}|(MM_CONFIG_DIR|CLAUDE_PROJECT_DIR|GEMINI_PROJECT_DIR|PWD|HOME)\b)`)

// looksLikePath: a word holding a '/', or a '.' after its first character
// (guard.js; not -c, not jq's .field).
func looksLikePath(w string) bool {
	return len(w) > 1 && (strings.Contains(w, "/") || strings.Contains(w[1:], "."))
}

// gitNames are what git, run in a repository, reads to know what to
// run: config (core.hooksPath, core.fsmonitor, aliases, filter drivers),
// hooks/, commondir (which moves config and hooks elsewhere),
// config.worktree (read with extensions.worktreeConfig), worktrees/ (each
// linked worktree's own commondir and config) and modules/ (each
// submodule's config and hooks). info/ is not among them: its attributes
// only name filter and diff drivers, which config defines, as
// .gitattributes in the work tree does.
var gitNames = []string{"config", "hooks", "commondir", "config.worktree", "worktrees", "modules"}

// gitWatched are the gitNames that must not appear during a command when
// they did not exist before it: each would make git run, or find, what
// the command chose. worktrees/ and modules/ are left out: git reads them
// only from a linked worktree or a submodule, whose .git file in the work
// tree is writable anyway.
var gitWatched = []string{"config", "hooks", "commondir", "config.worktree"}

// gitDir is dir's .git when it is a directory (not the file of a
// worktree, whose repository lies elsewhere); "" otherwise.
func gitDir(dir string) string {
	g := filepath.Join(dir, ".git")
	if st, err := os.Lstat(g); err == nil && st.IsDir() {
		return g
	}
	return ""
}

// gitPaths are dir's .git paths of gitNames that exist.
func gitPaths(dir string) []string {
	g := gitDir(dir)
	if g == "" {
		return nil
	}
	var out []string
	for _, n := range gitNames {
		if _, err := os.Lstat(filepath.Join(g, n)); err == nil {
			out = append(out, filepath.Join(g, n))
		}
	}
	return out
}

// gitMissing are dir's .git paths of gitWatched that do not exist: a bind
// mount cannot keep a file from being made, so the file tools refuse them
// and Watch removes them after a bash command that made one.
func gitMissing(dir string) []string {
	g := gitDir(dir)
	if g == "" {
		return nil
	}
	var out []string
	for _, n := range gitWatched {
		p := filepath.Join(g, n)
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			out = append(out, p)
		}
	}
	return out
}

// Watch notes, before a command working in dir runs inside the sandbox,
// the git paths it must not make (gitMissing); the function it returns,
// called once the command and everything it started have ended (the
// sandbox's process namespace dies with it), removes those the command
// made and says so in a line for the model, "" when there was none. It
// does nothing for nil or outside workspace mode.
func (s *Sandbox) Watch(dir string) func() string {
	if s == nil || s.policy.Mode != Workspace {
		return func() string { return "" }
	}
	missing := gitMissing(realOrClean(dir))
	return func() string {
		var removed []string
		for _, p := range missing {
			if _, err := os.Lstat(p); err != nil {
				continue
			}
			if err := os.RemoveAll(p); err != nil {
				removed = append(removed, p+" (could not remove it: "+err.Error()+")")
				continue
			}
			removed = append(removed, p)
		}
		if len(removed) == 0 {
			return ""
		}
		return fmt.Sprintf("[sandbox: removed %s, made by this command: git reads it to know what to run, outside the sandbox]\n", strings.Join(removed, ", "))
	}
}

// rootOf is the innermost of writable that holds path below it; "" for
// none.
func rootOf(writable []string, path string) string {
	root := ""
	for _, w := range writable {
		if within(w, path) && path != w && len(w) > len(root) {
			root = w
		}
	}
	return root
}

// readOnlyAt reports whether path is read-only for a command: the
// innermost of ro and writable that holds it is one of ro. A protected
// directory may hold a writable one (a config's directory that holds the
// session directory), which is bound writable again below it.
func readOnlyAt(ro, writable []string, path string) bool {
	best, readOnly := "", false
	for _, p := range ro {
		if within(p, path) && len(p) > len(best) {
			best, readOnly = p, true
		}
	}
	for _, w := range writable {
		if within(w, path) && len(w) > len(best) {
			best, readOnly = w, false
		}
	}
	return readOnly
}

// cleanProtected resolves paths' symbolic links, drops those that do not
// exist, and sorts and deduplicates them.
func cleanProtected(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		out = append(out, real)
	}
	sort.Strings(out)
	return out
}

// Protected are the protected paths of a command working in dir (absolute,
// symbolic links resolved): those New was given and dir's .git paths,
// sorted; nil for nil.
func (s *Sandbox) Protected(dir string) []string {
	if s == nil {
		return nil
	}
	return cleanProtected(append(append([]string(nil), s.protect...), gitPaths(dir)...))
}

// With is s protecting the paths protect as well (an editor session's
// folder has its own: its hooks name files relative to it); s itself is
// unchanged. nil for nil.
func (s *Sandbox) With(protect ...string) *Sandbox {
	if s == nil {
		return nil
	}
	t := *s
	t.protect = cleanProtected(append(append([]string(nil), s.protect...), protect...))
	return &t
}

// mounts are, for a command working in dir, the protected paths that lie
// in a directory it may write (the others are read-only already), and the
// directories between that directory and each of them. Each protected
// path is bound read-only over itself; each directory between is bound
// over itself as it is, writable, so that it is a mount point: a mount
// point cannot be renamed or removed, and a command that moved the
// directory holding a protected file away and made another in its place
// would otherwise leave the read-only file behind it. Both lists are in
// the order bwrap must bind them: outer directories first.
func (s *Sandbox) mounts(dir string) (pins, ro []string) {
	writable := s.writable(dir)
	readOnlyDir := s.policy.Mode == ReadOnly && within(s.tmp, dir)
	protected := s.Protected(dir)
	for _, p := range protected {
		if root := rootOf(writable, p); root != "" && !(readOnlyDir && within(dir, p)) {
			ro = append(ro, p)
		}
	}
	pinned := map[string]bool{}
	for _, p := range ro {
		root := rootOf(writable, p)
		for a := filepath.Dir(p); a != root && within(root, a); a = filepath.Dir(a) {
			if !pinned[a] && !readOnlyAt(ro, writable, a) {
				pinned[a] = true
				pins = append(pins, a)
			}
		}
	}
	byDepth := func(l []string) {
		sort.SliceStable(l, func(i, j int) bool {
			return strings.Count(l[i], string(filepath.Separator)) < strings.Count(l[j], string(filepath.Separator))
		})
	}
	byDepth(pins)
	byDepth(ro)
	return pins, ro
}
