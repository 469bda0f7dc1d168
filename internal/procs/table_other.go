//go:build unix && !linux

package procs

import "os"

// tableFile is a temporary file, removed at once: the warden inherits the
// open file, and nothing is left on disk however mm ends.
func tableFile() (*os.File, error) {
	f, err := os.CreateTemp("", "mm-procs-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return f, nil
}
