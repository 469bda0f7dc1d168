// Package sessionfile keeps a session's history in a JSON Lines file, so a
// session can be resumed and a reader can trust what it shows: the messages
// as the model read them (a stopped prompt as its marker, tool calls as the
// model wrote them), turn by turn, and the compressions that replaced older
// turns by a summary.
//
// A turn is written as its records followed by an end record, in one
// write, then synced. Loading keeps only the turns that have their end
// record, so a crash in the middle of a write loses at most the turn in
// flight and never makes earlier lines unreadable.
package sessionfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mm-agent/mm/internal/model"
	"github.com/mm-agent/mm/orchestrator"
)

// Record is one line of a session file.
type Record struct {
	Type string `json:"type"` // "message", "shown", "compact" or "end"
	Turn int    `json:"turn"`
	Time string `json:"time,omitempty"` // on "end"
	// Message, for "message".
	Message *model.Message `json:"message,omitempty"`
	// Shown, for "shown": what the user was shown of the tool call whose
	// output is the message record just before it (a reader that does not
	// know "shown" skips it, and loses nothing of the history).
	Shown *Shown `json:"shown,omitempty"`
	// For "compact": the summary that replaced the conversation before the
	// last Kept messages.
	Summary string `json:"summary,omitempty"`
	Kept    int    `json:"kept,omitempty"`
}

// Shown is what a front end showed of a tool call, kept where it differs
// from what the history lets it show again: the history holds what the
// model read (the output with postToolCall's context after it, an asked
// agent's answer as postAsk replaced it), and what was shown never changes.
type Shown struct {
	Title   string   `json:"title,omitempty"`
	Failed  bool     `json:"failed,omitempty"`
	Content []string `json:"content"` // the texts shown, in order
}

// File is an open session file.
type File struct {
	mu    sync.Mutex
	f     *os.File
	turn  int
	shown []*Shown // of the history Open read, by message
}

// Open opens (creating it if need be) the session file at path and returns
// the history it holds.
func Open(path string) (*File, []model.Message, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, err
	}
	history, shown, turn, end, err := read(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	// Drop what an interrupted write left after the last complete turn, so
	// the next turn starts on a line of its own.
	if st, err := f.Stat(); err == nil && st.Size() > end {
		if err := f.Truncate(end); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return &File{f: f, turn: turn, shown: shown}, history, nil
}

// Shown is what was shown of the tool calls of the history Open returned,
// by message (nil where nothing was kept: show the message itself).
func (f *File) Shown() []*Shown { return f.shown }

// Load reads the history of the session file at path without keeping it
// open (mm --ask-with-context --session, session/load).
func Load(path string) ([]model.Message, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, _, _, _, err := read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// read replays the complete turns of a session file; end is the offset
// just after the last one; shown goes with history, message by message.
func read(r io.Reader) (history []model.Message, shown []*Shown, lastTurn int, end int64, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var pending []Record
	var offset int64
	for {
		line, err := br.ReadBytes('\n')
		offset += int64(len(line))
		if errors.Is(err, io.EOF) {
			// A last line without its newline is a write cut short: the
			// turn in flight, dropped with the rest of its turn.
			return history, shown, lastTurn, end, nil
		}
		if err != nil {
			return nil, nil, 0, 0, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil {
			pending = nil // the remains of an interrupted turn
			continue
		}
		if rec.Type != "end" {
			pending = append(pending, rec)
			continue
		}
		for _, p := range pending {
			if p.Turn != rec.Turn {
				continue
			}
			switch p.Type {
			case "message":
				if p.Message != nil {
					history = append(history, *p.Message)
					shown = append(shown, nil)
				}
			case "shown":
				if n := len(history); n > 0 && history[n-1].Role == "tool" {
					shown[n-1] = p.Shown
				}
			case "compact":
				n := len(history)
				history = orchestrator.Compacted(p.Summary, history, p.Kept)
				kept := shown[n-(len(history)-2):]
				shown = append([]*Shown{nil, nil}, kept...)
			}
		}
		pending, lastTurn, end = nil, rec.Turn, offset
	}
}

// AppendTurn records the messages one turn added.
func (f *File) AppendTurn(msgs []model.Message) error {
	return f.AppendTurnShown(msgs, nil)
}

// AppendTurnShown records the messages one turn added and, after each,
// what was shown of it where shown has it (shown[i] goes with msgs[i];
// nil, or shown shorter than msgs: nothing).
func (f *File) AppendTurnShown(msgs []model.Message, shown []*Shown) error {
	recs := make([]Record, 0, len(msgs))
	for i := range msgs {
		recs = append(recs, Record{Type: "message", Message: &msgs[i]})
		if i < len(shown) && shown[i] != nil {
			recs = append(recs, Record{Type: "shown", Shown: shown[i]})
		}
	}
	return f.write(recs)
}

// AppendCompaction records that the conversation before the last kept
// messages was replaced by summary.
func (f *File) AppendCompaction(summary string, kept int) error {
	return f.write([]Record{{Type: "compact", Summary: summary, Kept: kept}})
}

func (f *File) write(recs []Record) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.turn++
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, r := range recs {
		r.Turn = f.turn
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	enc.Encode(Record{Type: "end", Turn: f.turn, Time: time.Now().UTC().Format(time.RFC3339)})
	if _, err := f.f.Write(b.Bytes()); err != nil {
		return err
	}
	return f.f.Sync()
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }
