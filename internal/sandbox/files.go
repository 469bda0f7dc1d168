package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Files is where write_file and edit_file may write under a sandbox: the
// session directory and the temp directory in workspace mode, nowhere in
// readonly mode. A path is checked once its symbolic links are resolved,
// and the file is then reached through an os.Root opened on the directory
// it was found in, so that a link swapped in between the check and the
// write cannot lead out of it either.
type Files struct {
	mode  Mode
	roots []string // absolute, symbolic links resolved
	// box and dir give the protected paths, computed at each write as
	// bash's are at each command (a .git/config made since counts):
	// Protected(dir) and the git paths a command must not make
	// (gitMissing), refused, and so is anything below one.
	box *Sandbox
	dir string
}

// Files is the file policy for tools working in dir; nil for a nil
// sandbox (no checks).
func (s *Sandbox) Files(dir string) *Files {
	if s == nil {
		return nil
	}
	f := &Files{mode: s.policy.Mode}
	if f.mode == Workspace {
		d := realOrClean(dir)
		if d != string(filepath.Separator) { // as bash: / is no session directory
			f.roots = append(f.roots, d)
		}
		f.roots = append(f.roots, s.tmp)
		f.box, f.dir = s, d
	}
	return f
}

// protected are the paths f refuses now, and everything below them.
func (f *Files) protected() []string {
	var out []string
	for _, p := range append(f.box.Protected(f.dir), gitMissing(f.dir)...) {
		if rootOf(f.roots, p) != "" { // below a writable directory; never one itself
			out = append(out, p)
		}
	}
	return out
}

// protectedAt is the protected path real lies in, "" for none: the
// innermost protected path that holds it, unless a writable directory
// inside that one holds it (the session directory inside a protected
// config directory).
func (f *Files) protectedAt(real string) string {
	prot := f.protected()
	if !readOnlyAt(prot, f.roots, real) {
		return ""
	}
	best := ""
	for _, p := range prot {
		if within(p, real) && len(p) > len(best) {
			best = p
		}
	}
	return best
}

// ProtectedError is a path the file tools may not write because mm runs
// it, or reads to know what to run, outside the sandbox (Protected).
type ProtectedError struct {
	// Path is the protected path, symbolic links resolved (the path
	// written may lie below it).
	Path string
}

func (e *ProtectedError) Error() string {
	return fmt.Sprintf("%s is protected under the sandbox: mm runs it, or what it names, outside the sandbox (a hook script, a config file, a git hook or config); edit it yourself if it must change", e.Path)
}

// RefusedError is a path the sandbox does not let the file tools write.
type RefusedError struct {
	Mode Mode
	// Resolved is the path with its symbolic links resolved, when it
	// differs from the path as written; "" otherwise.
	Resolved string
	// Roots are the directories files may be written in.
	Roots []string
}

func (e *RefusedError) Error() string {
	if e.Mode == ReadOnly {
		return "refused by the sandbox (sandbox: readonly): write_file and edit_file write no file"
	}
	via := ""
	if e.Resolved != "" {
		via = "it leads to " + e.Resolved + ", "
	}
	return fmt.Sprintf("outside the sandbox (sandbox: workspace): %sfiles may be written only under %s", via, strings.Join(e.Roots, " and "))
}

// OpenFile opens path (absolute, as the tool joined it, not cleaned) as
// os.OpenFile does, if the sandbox lets the file tools write it: the
// opener of write_file and edit_file, reads included, so a file they may
// not write back is refused before it is read.
func (f *Files) OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	r, rel, err := f.open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.OpenFile(rel, flag, perm)
}

// MkdirAll creates the directory path and its missing parents, if the
// sandbox lets the file tools write there.
func (f *Files) MkdirAll(path string, perm os.FileMode) error {
	r, rel, err := f.open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	if rel == "." {
		return nil
	}
	return r.MkdirAll(rel, perm)
}

// Check returns the error OpenFile would refuse path with, or nil: a
// caller that creates parent directories first refuses the file, not its
// directory.
func (f *Files) Check(path string) error {
	r, _, err := f.open(path)
	if err == nil {
		r.Close()
	}
	return err
}

// WriteFile writes data to path, creating its missing parent directories,
// if the sandbox lets it; an existing file keeps its mode.
func (f *Files) WriteFile(path string, data []byte) error {
	if err := f.Check(path); err != nil {
		return err
	}
	if err := f.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	w, err := f.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadFile reads path, if the sandbox lets the file tools write it.
func (f *Files) ReadFile(path string) ([]byte, error) {
	r, err := f.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// open resolves path and opens the writable directory it lies in; rel is
// the path below it.
func (f *Files) open(path string) (*os.Root, string, error) {
	if f.mode != Workspace {
		return nil, "", &RefusedError{Mode: f.mode}
	}
	real, err := resolve(path)
	if err != nil {
		return nil, "", err
	}
	if p := f.protectedAt(real); p != "" {
		return nil, "", &ProtectedError{Path: p}
	}
	for _, root := range f.roots {
		if !within(root, real) {
			continue
		}
		rel, err := filepath.Rel(root, real)
		if err != nil {
			return nil, "", err
		}
		r, err := os.OpenRoot(root)
		if err != nil {
			return nil, "", err
		}
		return r, rel, nil
	}
	e := &RefusedError{Mode: f.mode, Roots: f.roots}
	if real != filepath.Clean(path) {
		e.Resolved = real
	}
	return nil, "", e
}

// maxLinks is how many symbolic links resolve follows, as Linux's
// MAXSYMLINKS.
const maxLinks = 40

// resolve is the absolute path with every symbolic link resolved as far
// as the path exists — a dangling link is followed to where it points —
// and the rest, which does not exist yet, appended as written. A ".."
// goes up from where the links led, as the kernel does, not from the text.
func resolve(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%s: not an absolute path", path)
	}
	rest := split(path)
	cur := string(filepath.Separator)
	for links := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return filepath.Join(append([]string{next}, rest...)...), nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", &fs.PathError{Op: "resolve", Path: path, Err: errors.New("too many levels of symbolic links")}
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			cur = string(filepath.Separator)
		}
		rest = append(split(target), rest...)
	}
	return cur, nil
}

// split is path's non-empty components.
func split(path string) []string {
	var out []string
	for _, c := range strings.Split(filepath.ToSlash(path), "/") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}
