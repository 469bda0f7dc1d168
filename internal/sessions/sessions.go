// Package sessions is where mm keeps every conversation by default, as
// other CLI agents do: one session file (internal/sessionfile) a session
// in the sessions directory, $XDG_STATE_HOME/mm/sessions (state rather than
// data or cache, as the XDG spec files history), named by an id that sorts
// by creation time, beside a small file naming the directory the session
// worked in, so that mm --continue and mm --resume find the sessions of
// the current directory.
package sessions

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mm-agent/mm/internal/sessionfile"
)

// Dir is the sessions directory: $MM_SESSIONS_DIR, else
// $XDG_STATE_HOME/mm/sessions, else ~/.local/state/mm/sessions, made on
// first use readable by its owner only (conversations hold secrets).
func Dir() (string, error) {
	dir := os.Getenv("MM_SESSIONS_DIR")
	if dir == "" {
		state := os.Getenv("XDG_STATE_HOME")
		if !filepath.IsAbs(state) { // the XDG spec ignores a relative one
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("sessions directory: %w (set MM_SESSIONS_DIR)", err)
			}
			state = filepath.Join(home, ".local", "state")
		}
		dir = filepath.Join(state, "mm", "sessions")
	}
	dir, err := filepath.Abs(dir)
	if err == nil {
		err = os.MkdirAll(dir, 0o700)
	}
	if err != nil {
		return "", fmt.Errorf("sessions directory: %w", err)
	}
	return dir, nil
}

// validID is what NewID makes: an id names a file in the sessions
// directory and nothing outside it.
var validID = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z_-]*$`)

// ValidID says id can be a session's id.
func ValidID(id string) bool { return len(id) <= 100 && validID.MatchString(id) }

// NewID is a session id that sorts by creation time.
func NewID() string {
	var b [6]byte
	rand.Read(b[:]) // never fails (Go 1.24+)
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// Path is the session file of session id in dir.
func Path(dir, id string) string { return filepath.Join(dir, id+".jsonl") }

// meta is what a session's side file says of it.
type meta struct {
	Cwd string `json:"cwd"`
}

func metaPath(dir, id string) string { return filepath.Join(dir, id+".meta.json") }

// Begin records that session id works in cwd (its side file); the session
// file itself is written by the session.
func Begin(dir, id, cwd string) error {
	b, _ := json.Marshal(meta{Cwd: cwd})
	if err := os.WriteFile(metaPath(dir, id), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("sessions directory: %w", err)
	}
	return nil
}

// Session is a kept session as a listing shows it.
type Session struct {
	ID   string
	Path string
	// Time is when the session was last written.
	Time time.Time
	// First is the session's first question, on one line.
	First string
}

// In are the sessions of dir that worked in cwd and hold at least one
// question, the most recently written first. A session file that cannot
// be read is left out of the list (it is an error when resumed).
func In(dir, cwd string) ([]Session, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("sessions directory: %w", err)
	}
	var out []Session
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".meta.json")
		if !ok || !ValidID(id) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		var m meta
		if err != nil || json.Unmarshal(b, &m) != nil || m.Cwd != cwd {
			continue
		}
		path := Path(dir, id)
		st, err := os.Stat(path)
		if err != nil || st.Size() == 0 {
			continue
		}
		history, _, err := sessionfile.Load(path)
		if err != nil {
			continue
		}
		first := ""
		for _, msg := range history {
			if msg.Role == "user" {
				first = oneLine(msg.Content)
				break
			}
		}
		if first == "" {
			continue
		}
		out = append(out, Session{ID: id, Path: path, Time: st.ModTime(), First: first})
	}
	slices.SortFunc(out, func(a, b Session) int {
		if c := b.Time.Compare(a.Time); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, nil
}

// oneLine is text on one line of at most 72 characters.
func oneLine(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > 72 {
		text = string(r[:71]) + "…"
	}
	return text
}

// Discard removes session id from dir: its file and its side file.
func Discard(dir, id string) {
	os.Remove(Path(dir, id))
	os.Remove(metaPath(dir, id))
}
