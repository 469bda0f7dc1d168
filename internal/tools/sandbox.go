package tools

import (
	"os"
	"path/filepath"

	"github.com/mm-agent/mm/internal/sandbox"
)

// writeFile is how write_file and edit_file write path (as the model gave
// it, relative to dir): through box when there is one, which refuses what
// the sandbox does not allow; missing parent directories are created, and
// an existing file keeps its mode.
func writeFile(box *sandbox.Files, dir, path string, data []byte) error {
	if box != nil {
		return box.WriteFile(joinRaw(dir, path), data)
	}
	full := resolve(dir, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return os.WriteFile(full, data, 0o644)
}

// readFile is how edit_file reads the file it will write back: through box
// when there is one, so a file the sandbox will not let it write is refused
// before anything else.
func readFile(box *sandbox.Files, dir, path string) ([]byte, error) {
	if box != nil {
		return box.ReadFile(joinRaw(dir, path))
	}
	return os.ReadFile(resolve(dir, path))
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
