package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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
func readFile(path string) ([]byte, error) {
	if err := checkFile(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, errors.New(readReason(err))
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, errors.New(readReason(err))
	} else if err := checkStat(st); err != nil {
		return nil, err // replaced between the check and the open
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, errors.New(readReason(err))
	}
	if len(b) > MaxFileSize {
		return nil, errors.New("larger than 1 MiB")
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

func checkStat(st fs.FileInfo) error {
	m := st.Mode()
	switch {
	case m.IsRegular():
		if st.Size() > MaxFileSize {
			return fmt.Errorf("larger than 1 MiB (%d bytes)", st.Size())
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
