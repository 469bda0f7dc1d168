package sandbox

import (
	"errors"
	"fmt"
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
}

// Files is the file policy for tools working in dir; nil for a nil
// sandbox (no checks).
func (s *Sandbox) Files(dir string) *Files {
	if s == nil {
		return nil
	}
	f := &Files{mode: s.policy.Mode}
	if f.mode == Workspace {
		f.roots = []string{realOrClean(dir), s.tmp}
	}
	return f
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

// WriteFile writes data to path (absolute, as the tool joined it, not
// cleaned), creating its missing parent directories, if the sandbox lets
// it; an existing file keeps its mode.
func (f *Files) WriteFile(path string, data []byte) error {
	r, rel, err := f.open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	if d := filepath.Dir(rel); d != "." {
		if err := r.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return r.WriteFile(rel, data, 0o644)
}

// ReadFile reads path, for a tool that will write it back (edit_file): a
// file it may not write is refused before it is read.
func (f *Files) ReadFile(path string) ([]byte, error) {
	r, rel, err := f.open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.ReadFile(rel)
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
