package agent

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

// OpenLog opens the diagnostics log at path, appending (a new file is
// readable by its owner only: it names files and commands). It is mm's own
// account of what happens behind the product — asked agents' processes
// started, handshakes that failed and go-plugin's account of them, exits —
// for when something needs explaining; it is off unless asked for (mm
// --log FILE, MM_LOG=FILE). Every mm process of a relay chain writes to
// the same file, each line naming its pid and depth.
//
// It returns the logger, the path made absolute (for MM_LOG of what mm
// starts) and what closes the file.
func OpenLog(path string, depth int) (*slog.Logger, string, io.Closer, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", nil, fmt.Errorf("log %s: %w", path, err)
	}
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, "", nil, fmt.Errorf("log: %w", err)
	}
	h := slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug})
	return slog.New(h).With("pid", os.Getpid(), "depth", depth), abs, f, nil
}
