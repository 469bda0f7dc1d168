// Package sessionfile keeps a session's history in a JSON Lines file, so a
// session can be resumed and a reader can trust what it shows: the messages
// as the model read them (a stopped prompt as its marker, tool calls as the
// model wrote them), turn by turn, and the compressions that replaced older
// turns by a summary.
//
// A turn is written as its records followed by an end record, in one
// write, then synced. A crash in the middle of a write therefore leaves a
// prefix of that write after the last complete turn: loading drops it, with
// a notice (Dropped), and never makes earlier lines unreadable. Anything
// else that is not what mm writes — a line that is not a record, a record
// of an unknown type, a message a model server would reject (an unknown
// role, a tool result no earlier call asked for), turns out of order — is
// an error naming the file and the line: a session is never resumed from a
// history silently different from the one written.
//
// A file is written by one process at a time: Open takes an exclusive lock
// the system releases when the process ends, however it ends, and refuses
// a file another process holds (ErrInUse). Load, for readers, takes none.
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

var (
	// ErrInUse: another running process has the file open for writing.
	ErrInUse = errors.New("in use by another running mm (one mm writes a session file at a time): wait for it to end, or give another file")
	// ErrNotSessionFile: the file exists and holds something else; it is
	// left as it is.
	ErrNotSessionFile = errors.New("not a session file")
)

// errLocked is what lock returns when another process holds the lock.
var errLocked = errors.New("locked")

// Dropped is the incomplete last turn a load left out: what a write cut
// short (a crash, a kill -9) left after the last complete turn.
type Dropped struct {
	Path string
	// Turn is the turn's number, 0 when not one of its records is whole.
	Turn int
	// FirstLine and LastLine are the lines it held, from 1.
	FirstLine, LastLine int
}

// String is the notice a front end prints on stderr.
func (d *Dropped) String() string {
	where := fmt.Sprintf("line %d", d.FirstLine)
	if d.LastLine > d.FirstLine {
		where = fmt.Sprintf("lines %d-%d", d.FirstLine, d.LastLine)
	}
	if d.Turn > 0 {
		where = fmt.Sprintf("turn %d, %s", d.Turn, where)
	}
	return fmt.Sprintf("session file %s: dropped the incomplete last turn (%s): its write did not finish", d.Path, where)
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
	mu      sync.Mutex
	f       *os.File
	turn    int
	dropped *Dropped
	shown   []*Shown // of the history Open read, by message
}

// Open opens (creating it if need be) the session file at path for
// writing, locks it, and returns the history it holds. A file that is not
// a session file, or that another mm has open, is refused and left byte
// for byte as it was. An incomplete last turn is removed from the file, so
// the next turn starts on a line of its own; Dropped says so.
func Open(path string) (*File, []model.Message, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: %w (%s)", path, ErrNotSessionFile, fileKind(st.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*File, []model.Message, error) {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if st, err := f.Stat(); err != nil {
		return fail(err)
	} else if !st.Mode().IsRegular() {
		return fail(fmt.Errorf("%w (%s)", ErrNotSessionFile, fileKind(st.Mode())))
	}
	if err := lock(f); err != nil {
		if errors.Is(err, errLocked) {
			return fail(ErrInUse)
		}
		return fail(fmt.Errorf("cannot lock it: %w", err))
	}
	l, err := read(f, path)
	if err != nil {
		return fail(err)
	}
	switch {
	case l.dropped != nil:
		if err := f.Truncate(l.end); err != nil {
			return fail(err)
		}
	case l.noNewline:
		// The last end record is whole but its newline was cut off.
		if _, err := f.Write([]byte("\n")); err != nil {
			return fail(err)
		}
	}
	return &File{f: f, turn: l.turn, dropped: l.dropped, shown: l.shown}, l.history, nil
}

// Dropped is the incomplete last turn Open removed from the file, nil when
// there was none.
func (f *File) Dropped() *Dropped { return f.dropped }

// Load reads the history of the session file at path without keeping it
// open and without locking it (mm --ask-with-context --session): the same
// rules as Open, but nothing is written. dropped is the incomplete last
// turn left out, nil when there was none.
func Load(path string) (history []model.Message, dropped *Dropped, err error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: %w (%s)", path, ErrNotSessionFile, fileKind(st.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	l, err := read(f, path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return l.history, l.dropped, nil
}

// fileKind names what a path that is not a regular file is.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// loaded is what read found.
type loaded struct {
	history []model.Message
	shown   []*Shown // what was shown of history's tool calls, by message
	turn    int      // the last complete turn
	end     int64    // the offset just after it
	dropped *Dropped
	// noNewline: the file ends with the last complete turn's end record,
	// without its newline.
	noNewline bool
}

// recordStart is how every record mm writes begins; a write cut short
// leaves a prefix of it, at least.
var recordStart = []byte(`{"type":"`)

// firstStarts are how the first record of a session file begins, exactly
// as mm writes it (Record's fields in order, turn 1): a file whose only
// line, cut short, does not begin so is something else — a one-line JSON
// file of another program, say — and is never dropped as a crashed turn.
var firstStarts = [][]byte{[]byte(`{"type":"message","turn":1,"`), []byte(`{"type":"compact","turn":1,"`)}

// pendingRecord is a record of the turn being read, before its end.
type pendingRecord struct {
	Record
	line int
}

// read replays the complete turns of a session file, checking every line.
func read(r io.Reader, path string) (loaded, error) {
	var (
		l       loaded
		br      = bufio.NewReaderSize(r, 64<<10)
		offset  int64
		lineNo  int
		records int // whole records read so far
		pending []pendingRecord
		cut     int // the line a write was cut short on, 0 for none
		// calls are the tool call ids of the assistant messages read so
		// far: a tool message must answer one of them.
		calls = map[string]bool{}
	)
	for {
		line, rerr := br.ReadBytes('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return loaded{}, rerr
		}
		if len(line) == 0 {
			break
		}
		lineNo++
		offset += int64(len(line))
		whole := line[len(line)-1] == '\n'
		text := bytes.TrimSpace(line)
		if len(text) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(text, &rec); err != nil || !knownType(rec.Type) {
			if !whole && cutShort(text, records > 0) {
				cut = lineNo // the end of a write cut short
				break
			}
			if records == 0 {
				return loaded{}, fmt.Errorf("%w (line %d is not a record mm writes); it is left as it is: give another file name", ErrNotSessionFile, lineNo)
			}
			if err != nil {
				return loaded{}, fmt.Errorf("line %d: not a session record (%v)", lineNo, err)
			}
			return loaded{}, fmt.Errorf("line %d: record of unknown type %q (want message, shown, compact or end)", lineNo, rec.Type)
		}
		records++
		if err := check(rec, l.turn, pending, calls); err != nil {
			return loaded{}, fmt.Errorf("line %d: %w", lineNo, err)
		}
		if rec.Type != "end" {
			pending = append(pending, pendingRecord{rec, lineNo})
			continue
		}
		for _, p := range pending {
			switch p.Type {
			case "message":
				l.history = append(l.history, *p.Message)
				l.shown = append(l.shown, nil)
			case "shown":
				if n := len(l.history); n > 0 && l.history[n-1].Role == "tool" {
					l.shown[n-1] = p.Shown
				}
			case "compact":
				n := len(l.history)
				l.history = orchestrator.Compacted(p.Summary, l.history, p.Kept)
				kept := l.shown[n-(len(l.history)-2):]
				l.shown = append([]*Shown{nil, nil}, kept...)
			}
		}
		pending, l.turn, l.end, l.noNewline = nil, rec.Turn, offset, !whole
	}
	if len(pending) > 0 || cut > 0 {
		d := &Dropped{Path: path, LastLine: cut}
		if len(pending) > 0 {
			d.Turn, d.FirstLine = pending[0].Turn, pending[0].line
		} else {
			d.FirstLine = cut
		}
		if cut == 0 {
			d.LastLine = pending[len(pending)-1].line
		}
		l.dropped, l.noNewline = d, false
	}
	return l, nil
}

func knownType(t string) bool {
	return t == "message" || t == "shown" || t == "compact" || t == "end"
}

// cutShort reports whether text, the last line of a file with no newline,
// is what a write cut short leaves. A line that is a whole JSON value never
// is (it was written whole: a record of a type mm does not write, or
// another program's JSON). Before any record, it must be the start of the
// first record mm writes (firstStarts) and more; after records, the start
// of a record, a prefix of one, or the zeros a crash can leave.
func cutShort(text []byte, afterRecords bool) bool {
	if json.Valid(text) {
		return false
	}
	if !afterRecords {
		for _, start := range firstStarts {
			if bytes.HasPrefix(text, start) {
				return true
			}
		}
		return false
	}
	if bytes.HasPrefix(text, recordStart) {
		return true
	}
	return bytes.HasPrefix(recordStart, text) || len(bytes.Trim(text, "\x00")) == 0
}

// roles are the message roles a chat-completions server accepts.
var roles = map[string]bool{"system": true, "user": true, "assistant": true, "tool": true}

// check rejects a record mm never writes: one out of its turn's order, an
// empty message, a message a model server would refuse.
func check(rec Record, lastTurn int, pending []pendingRecord, calls map[string]bool) error {
	switch {
	case len(pending) > 0 && rec.Turn != pending[0].Turn:
		return fmt.Errorf("a record of turn %d among the records of turn %d (was the file written by two mm at once?)", rec.Turn, pending[0].Turn)
	case rec.Turn <= lastTurn:
		return fmt.Errorf("turn %d after turn %d: turns are numbered in order (was the file written by two mm at once?)", rec.Turn, lastTurn)
	}
	switch rec.Type {
	case "message":
		m := rec.Message
		if m == nil {
			return errors.New(`a "message" record without its message`)
		}
		if !roles[m.Role] {
			return fmt.Errorf("message role %q (want system, user, assistant or tool)", m.Role)
		}
		if m.Role == "tool" && !calls[m.ToolCallID] {
			return fmt.Errorf("a tool message answering call %q, which no earlier assistant message made", m.ToolCallID)
		}
		for _, c := range m.ToolCalls {
			calls[c.ID] = true
		}
	case "shown":
		if rec.Shown == nil {
			return errors.New(`a "shown" record without what was shown`)
		}
	case "compact":
		if rec.Kept < 0 {
			return fmt.Errorf(`a "compact" record keeping %d messages`, rec.Kept)
		}
	}
	return nil
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

// Shown is what was shown of the tool calls of the history Open returned,
// by message (nil where nothing was kept: show the message itself).
func (f *File) Shown() []*Shown { return f.shown }

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

// Close closes the file, which releases its lock.
func (f *File) Close() error { return f.f.Close() }
