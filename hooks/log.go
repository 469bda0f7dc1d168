package hooks

import (
	"encoding/json"
	"os"
	"sync"
	"time"
)

// Log is the hooksLog audit trail: every run appended as one JSON line,
// written by mm itself so that no hook can skip it. A line holds what ran
// and what it decided, never a prompt, so a blocked secret never lands in
// it. Each line is one write on a file opened for appending, so the lines
// of concurrent tool calls, and of asked agents writing the same file, do
// not interleave.
type Log struct {
	mu sync.Mutex
	f  *os.File
}

// OpenLog opens (creating it if need be) the audit file at path.
func OpenLog(path string) (*Log, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return &Log{f: f}, nil
}

// LogLine is one run in the audit file.
type LogLine struct {
	Time       time.Time `json:"time"`
	Event      Event     `json:"event"`
	Depth      int       `json:"depth"`
	Tool       string    `json:"tool,omitempty"`
	Agent      string    `json:"agent,omitempty"`
	Command    string    `json:"command,omitempty"`
	URL        string    `json:"url,omitempty"` // a URL hook's, in place of command
	Decision   string    `json:"decision"`
	DurationMs float64   `json:"durationMs"`
	Failure    string    `json:"failure,omitempty"`
	OnError    OnError   `json:"onError"`
}

// Write appends run, made by an agent at depth; an error is returned for
// the caller to report, the run itself is not affected.
func (l *Log) Write(run Run, depth int) error {
	line := LogLine{
		Time: run.Start.UTC(), Event: run.Event, Depth: depth, Command: run.Command, URL: run.URL,
		Decision: run.Decision, Failure: run.Failure, OnError: run.OnError,
		DurationMs: float64(run.Duration.Microseconds()) / 1000,
	}
	if run.Event == PreAsk || run.Event == PostAsk {
		line.Agent = run.Target
	} else {
		line.Tool = run.Target
	}
	b, err := json.Marshal(line)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err = l.f.Write(b)
	return err
}

// Close closes the file.
func (l *Log) Close() error { return l.f.Close() }
