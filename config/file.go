package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mm-agent/mm/internal/bytesize"
)

// MaxFileSize is the largest file mm reads as a config (the file itself,
// an mmConfigs entry, a structuredOutput schema): 1 MiB, far more than any
// agent needs, little enough to read at once.
const MaxFileSize = 1 << 20

// readFile reads the file at path, which must be a regular file of at most
// MaxFileSize bytes. What is not a regular file (a named pipe, a device) is
// refused before it is opened — opening a FIFO waits for a writer, and
// /dev/zero never ends — and the file is read through a limit, so a file
// that grows while it is read cannot exhaust memory either.
func readFile(path string) ([]byte, error) { return readFileMax(path, MaxFileSize) }

// readFileMax is readFile with another size limit.
func readFileMax(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, errors.New(readReason(err))
	}
	if err := checkStatMax(st, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, errors.New(readReason(err))
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, errors.New(readReason(err))
	} else if err := checkStatMax(st, limit); err != nil {
		return nil, err // replaced between the check and the open
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, errors.New(readReason(err))
	}
	if int64(len(b)) > limit {
		return nil, errors.New("larger than " + bytesize.Name(limit))
	}
	return b, nil
}

// checkFile is readFile's check without the read, for files another
// process reads (mmConfigs).
func checkFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return errors.New(readReason(err))
	}
	return checkStat(st)
}

func checkStat(st fs.FileInfo) error { return checkStatMax(st, MaxFileSize) }

func checkStatMax(st fs.FileInfo, limit int64) error {
	m := st.Mode()
	switch {
	case m.IsRegular():
		if st.Size() > limit {
			return fmt.Errorf("larger than %s (%d bytes)", bytesize.Name(limit), st.Size())
		}
		return nil
	case m.IsDir():
		return errors.New("is a directory")
	case m&fs.ModeNamedPipe != 0:
		return errors.New("not a regular file (a named pipe)")
	case m&fs.ModeSocket != 0:
		return errors.New("not a regular file (a socket)")
	case m&fs.ModeDevice != 0:
		return errors.New("not a regular file (a device)")
	}
	return errors.New("not a regular file")
}

// AgentsFileName is the file in which a project gives its instructions to
// the agents that work in it (Codex, Cursor, Gemini CLI, opencode and
// others read it too).
const AgentsFileName = "AGENTS.md"

// MaxAgentsFileSize bounds AGENTS.md: 32 KiB, Codex's default limit
// (project_doc_max_bytes). The file joins the system message of every
// request, whole: a larger one is an error, never cut.
const MaxAgentsFileSize = 32 << 10

// ReadAgentsFile reads dir's AGENTS.md with the safety of a config file
// (a regular file — a FIFO would block, a device never end — of at most
// MaxAgentsFileSize bytes, UTF-8 text) and returns its text without the
// blank lines and spaces that end it, and its path; text is "" when the
// file does not exist or holds only blank space. The error names the file.
func ReadAgentsFile(dir string) (text, path string, err error) {
	path = filepath.Join(dir, AgentsFileName)
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return "", path, nil
	}
	b, err := readFileMax(path, MaxAgentsFileSize)
	if err != nil {
		return "", path, fmt.Errorf("%s: %v", path, err)
	}
	if !utf8.Valid(b) {
		return "", path, fmt.Errorf("%s: not UTF-8 text", path)
	}
	return strings.TrimRightFunc(string(b), unicode.IsSpace), path, nil
}
