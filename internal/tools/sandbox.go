package tools

import (
	"os"
	"path/filepath"

	"github.com/mm-agent/mm/internal/sandbox"
)

// openFile is how write_file and edit_file open what they read and write:
// path is as the model gave it, relative to dir. Under a sandbox (box not
// nil) it goes through box, which refuses a path the sandbox does not let
// them write, after resolving its links, and opens the file so that a link
// swapped in meanwhile cannot lead out.
func openFile(box *sandbox.Files, dir, path string, flag int, perm os.FileMode) (*os.File, error) {
	if box == nil {
		return os.OpenFile(resolve(dir, path), flag, perm)
	}
	return box.OpenFile(joinRaw(dir, path), flag, perm)
}

// mkdirParents creates the missing parent directories of path, through box
// when there is one (which first refuses the file itself, so the error
// names it rather than its directory).
func mkdirParents(box *sandbox.Files, dir, path string) error {
	if box == nil {
		return os.MkdirAll(filepath.Dir(resolve(dir, path)), 0o755)
	}
	full := joinRaw(dir, path)
	if err := box.Check(full); err != nil {
		return err
	}
	return box.MkdirAll(filepath.Dir(full), 0o755)
}

// joinRaw makes path absolute against dir without cleaning it: a ".."
// after a symbolic link must go up from where the link leads, which only
// the sandbox's resolution knows.
func joinRaw(dir, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return dir + string(filepath.Separator) + path
}
