package sessionfile

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mm-agent/mm/internal/model"
)

// Lines of a well-formed file, as mm writes them.
const (
	user1  = `{"type":"message","turn":1,"message":{"role":"user","content":"remember the milk"}}` + "\n"
	asst1  = `{"type":"message","turn":1,"message":{"role":"assistant","content":"Noted."}}` + "\n"
	end1   = `{"type":"end","turn":1,"time":"2026-11-29T13:54:04Z"}` + "\n"
	user2  = `{"type":"message","turn":2,"message":{"role":"user","content":"list"}}` + "\n"
	call2  = `{"type":"message","turn":2,"message":{"role":"assistant","content":"","tool_calls":[{"id":"call_1_1","type":"function","function":{"name":"bash","arguments":"{}"}}]}}` + "\n"
	tool2  = `{"type":"message","turn":2,"message":{"role":"tool","content":"a.txt","tool_call_id":"call_1_1"}}` + "\n"
	end2   = `{"type":"end","turn":2,"time":"2026-11-29T13:54:05Z"}` + "\n"
	comp3  = `{"type":"compact","turn":3,"summary":"S","kept":2}` + "\n"
	end3   = `{"type":"end","turn":3,"time":"2026-11-29T13:54:06Z"}` + "\n"
	turn1  = user1 + asst1 + end1
	turn2  = user2 + call2 + tool2 + end2
	cutRec = `{"type":"message","turn":2,"message":{"role":"us`
)

var (
	mUser1 = model.Message{Role: "user", Content: "remember the milk"}
	mAsst1 = model.Message{Role: "assistant", Content: "Noted."}
)

func TestRead(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    []model.Message
		turn    int
		dropped *Dropped
		err     string // a substring of the error; "" for none
	}{
		{name: "empty", data: ""},
		{name: "blank lines only", data: "\n  \n"},
		{name: "one turn", data: turn1, want: []model.Message{mUser1, mAsst1}, turn: 1},
		{name: "blank lines between", data: user1 + "\n" + asst1 + end1 + "\n", want: []model.Message{mUser1, mAsst1}, turn: 1},
		{name: "a turn with a tool call", data: turn1 + turn2, turn: 2},
		{name: "a compaction", data: turn1 + turn2 + comp3 + end3, turn: 3},
		{name: "an end with no records", data: turn1 + `{"type":"end","turn":2}` + "\n", want: []model.Message{mUser1, mAsst1}, turn: 2},
		{name: "unknown fields are kept for later versions", data: `{"type":"message","turn":1,"extra":true,"message":{"role":"user","content":"remember the milk","name":"x"}}` + "\n" + asst1 + end1, want: []model.Message{mUser1, mAsst1}, turn: 1},

		{name: "cut in the middle of a line", data: turn1 + cutRec, want: []model.Message{mUser1, mAsst1}, turn: 1,
			dropped: &Dropped{Turn: 0, FirstLine: 4, LastLine: 4}},
		{name: "whole records without their end", data: turn1 + user2 + call2, want: []model.Message{mUser1, mAsst1}, turn: 1,
			dropped: &Dropped{Turn: 2, FirstLine: 4, LastLine: 5}},
		{name: "whole records then a cut line", data: turn1 + user2 + cutRec, want: []model.Message{mUser1, mAsst1}, turn: 1,
			dropped: &Dropped{Turn: 2, FirstLine: 4, LastLine: 5}},
		{name: "cut after a few bytes", data: turn1 + `{"ty`, want: []model.Message{mUser1, mAsst1}, turn: 1,
			dropped: &Dropped{FirstLine: 4, LastLine: 4}},
		{name: "zeros a crash left", data: turn1 + "\x00\x00\x00", want: []model.Message{mUser1, mAsst1}, turn: 1,
			dropped: &Dropped{FirstLine: 4, LastLine: 4}},
		{name: "the first write cut short", data: `{"type":"message","turn":1,"message":{"role":"us`, dropped: &Dropped{FirstLine: 1, LastLine: 1}},
		{name: "the first write cut just after its opening", data: `{"type":"message","turn":1,"`, dropped: &Dropped{FirstLine: 1, LastLine: 1}},
		{name: "an end without its newline", data: strings.TrimSuffix(turn1, "\n"), want: []model.Message{mUser1, mAsst1}, turn: 1},

		{name: "text", data: "Shopping list\n- milk\n", err: "not a session file (line 1 is not a record mm writes)"},
		{name: "text without a newline", data: "hello", err: "not a session file"},
		{name: "a prefix too short to be a record", data: `{"ty`, err: "not a session file"},
		{name: "GeoJSON, one line, no newline", data: `{"type":"FeatureCollection","features":[]}`, err: "not a session file (line 1"},
		{name: "GeoJSON, one line", data: `{"type":"FeatureCollection","features":[]}` + "\n", err: "not a session file (line 1"},
		{name: "package.json, one line, no newline", data: `{"type":"module","name":"x"}`, err: "not a session file (line 1"},
		{name: "JSON of a record type, no newline", data: `{"type":"message","turn":1}`, err: `line 1: a "message" record without its message`},
		{name: "JSON Lines of another program, the last without newline", data: `{"type":"Feature"}` + "\n" + `{"type":"Feature"}`, err: "not a session file (line 1"},
		{name: "a cut line of another program", data: `{"type":"module","name":"x`, err: "not a session file (line 1"},
		{name: "a cut line of turn 2 first", data: cutRec, err: "not a session file (line 1"},
		{name: "whole unknown record at the end, no newline", data: turn1 + `{"type":"note","turn":2}`, err: `line 4: record of unknown type "note"`},
		{name: "binary", data: "\x89PNG\r\n\x1a\n\x00\x00", err: "not a session file"},
		{name: "other JSON lines", data: `{"event":"deploy"}` + "\n", err: "not a session file"},
		{name: "a JSON array", data: "[1,2]\n", err: "not a session file"},
		{name: "garbage in the middle", data: turn1 + "garbage\n" + turn2, err: "line 4: not a session record (invalid character 'g'"},
		{name: "garbage at the end, whole", data: turn1 + "garbage\n", err: "line 4: not a session record"},
		{name: "garbage at the end, no newline", data: turn1 + "garbage", err: "line 4: not a session record"},
		{name: "unknown type", data: turn1 + `{"type":"note","turn":2}` + "\n", err: `line 4: record of unknown type "note"`},
		{name: "no type", data: turn1 + `{"turn":2}` + "\n", err: `line 4: record of unknown type ""`},
		{name: "wrong field type", data: turn1 + `{"type":"end","turn":"2"}` + "\n", err: "line 4: not a session record"},
		{name: "fractional turn", data: turn1 + `{"type":"end","turn":2.5}` + "\n", err: "line 4: not a session record"},
		{name: "unknown role", data: `{"type":"message","turn":1,"message":{"role":"robot","content":"x"}}` + "\n" + end1, err: `line 1: message role "robot"`},
		{name: "empty role", data: `{"type":"message","turn":1,"message":{"content":"x"}}` + "\n" + end1, err: `line 1: message role ""`},
		{name: "orphan tool message", data: turn1 + user2 + tool2 + end2, err: `line 5: a tool message answering call "call_1_1", which no earlier assistant message made`},
		{name: "tool message before its call", data: turn1 + user2 + tool2 + call2 + end2, err: "line 5: a tool message"},
		{name: "message record without message", data: `{"type":"message","turn":1}` + "\n" + end1, err: `line 1: a "message" record without its message`},
		{name: "negative kept", data: turn1 + `{"type":"compact","turn":2,"summary":"S","kept":-1}` + "\n", err: `line 4: a "compact" record keeping -1`},
		{name: "turn 0", data: `{"type":"end","turn":0}` + "\n", err: "line 1: turn 0 after turn 0"},
		{name: "a turn number again", data: turn1 + turn1, err: "line 4: turn 1 after turn 1"},
		{name: "turns going back", data: turn1 + turn2 + turn1, err: "line 8: turn 1 after turn 2"},
		{name: "turns mixed", data: user1 + user2 + asst1 + end1, err: "line 2: a record of turn 2 among the records of turn 1"},
		{name: "end of another turn", data: user1 + asst1 + end2, err: "line 3: a record of turn 2 among the records of turn 1"},
		{name: "mixed turns in the incomplete tail", data: turn1 + user2 + `{"type":"message","turn":3,"message":{"role":"user","content":"x"}}` + "\n", err: "line 5: a record of turn 3 among the records of turn 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := read(strings.NewReader(tt.data), "chat.jsonl")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				if strings.HasPrefix(tt.err, "not a session file") && !errors.Is(err, ErrNotSessionFile) {
					t.Fatalf("error %v is not ErrNotSessionFile", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if tt.want != nil && !reflect.DeepEqual(l.history, tt.want) {
				t.Errorf("history %+v, want %+v", l.history, tt.want)
			}
			if l.turn != tt.turn {
				t.Errorf("turn %d, want %d", l.turn, tt.turn)
			}
			if tt.dropped != nil {
				tt.dropped.Path = "chat.jsonl"
			}
			if !reflect.DeepEqual(l.dropped, tt.dropped) {
				t.Errorf("dropped %+v, want %+v", l.dropped, tt.dropped)
			}
		})
	}
}

func TestReadCompaction(t *testing.T) {
	l, err := read(strings.NewReader(turn1+turn2+comp3+end3), "f")
	if err != nil {
		t.Fatal(err)
	}
	roles := []string{}
	for _, m := range l.history {
		roles = append(roles, m.Role)
	}
	// The summary and its acknowledgement, then the last two messages kept.
	if got := strings.Join(roles, " "); got != "user assistant assistant tool" {
		t.Errorf("roles %q", got)
	}
}

func TestDroppedString(t *testing.T) {
	for _, tt := range []struct {
		d    Dropped
		want string
	}{
		{Dropped{Path: "c.jsonl", Turn: 3, FirstLine: 7, LastLine: 9}, "session file c.jsonl: dropped the incomplete last turn (turn 3, lines 7-9): its write did not finish"},
		{Dropped{Path: "c.jsonl", FirstLine: 4, LastLine: 4}, "session file c.jsonl: dropped the incomplete last turn (line 4): its write did not finish"},
	} {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.d, got, tt.want)
		}
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOpenRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	f, h, err := Open(path)
	if err != nil || len(h) != 0 || f.Dropped() != nil {
		t.Fatalf("new file: %v %v %v", h, f.Dropped(), err)
	}
	msgs := []model.Message{
		{Role: "user", Content: "list <the> files & more"},
		{Role: "assistant", ToolCalls: []model.ToolCall{{ID: "call_1_1", Type: "function", Function: model.FunctionCall{Name: "bash", Arguments: `{"command":"ls"}`}}}},
		{Role: "tool", ToolCallID: "call_1_1", Content: "a.txt\n[exit status 0]"},
		{Role: "assistant", Content: "One file."},
	}
	if err := f.AppendTurn(msgs[:2]); err != nil {
		t.Fatal(err)
	}
	if err := f.AppendTurn(msgs[2:]); err != nil {
		t.Fatal(err)
	}
	if err := f.AppendCompaction("S", 2); err != nil {
		t.Fatal(err)
	}
	f.Close()

	h, d, err := Load(path)
	if err != nil || d != nil {
		t.Fatalf("Load: %v %v", d, err)
	}
	if len(h) != 4 || !reflect.DeepEqual(h[2:], msgs[2:]) {
		t.Errorf("history %+v", h)
	}
	f, h2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !reflect.DeepEqual(h, h2) {
		t.Errorf("Open %+v, Load %+v", h2, h)
	}
	if f.turn != 3 {
		t.Errorf("turn %d, want 3", f.turn)
	}
}

func TestOpenRefusesAndLeavesTheFile(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"text":    "Shopping list\n- milk\n",
		"binary":  "\x00\x01\x02\xff\xfe",
		"corrupt": turn1 + "garbage\n" + turn2,
		"orphan":  turn1 + user2 + tool2 + end2,
		// One-line JSON files of other programs: never a cut-short turn.
		"map.geojson": `{"type":"FeatureCollection","features":[]}`,
		"pkg.json":    `{"type":"module","name":"x"}`,
		"pkg2.json":   `{"type":"module","name":"x"}` + "\n",
		"unknown end": turn1 + `{"type":"note","turn":2}`,
	} {
		path := filepath.Join(dir, name)
		write(t, path, data)
		if f, _, err := Open(path); err == nil {
			f.Close()
			t.Errorf("%s: opened", name)
		} else if !strings.HasPrefix(err.Error(), path+": ") {
			t.Errorf("%s: error %q does not name the file first", name, err)
		}
		if got := content(t, path); got != data {
			t.Errorf("%s: the file changed to %q", name, got)
		}
	}
	if _, _, err := Open(dir); !errors.Is(err, ErrNotSessionFile) || !strings.Contains(err.Error(), "(a directory)") {
		t.Errorf("a directory: %v", err)
	}
	if _, _, err := Load(dir); !errors.Is(err, ErrNotSessionFile) {
		t.Errorf("Load a directory: %v", err)
	}
}

func TestOpenRemovesTheIncompleteTurn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	write(t, path, turn1+user2+cutRec)
	h, d, err := Load(path)
	if err != nil || len(h) != 2 || d == nil || d.Turn != 2 {
		t.Fatalf("Load: %v %+v %v", h, d, err)
	}
	if got := content(t, path); got != turn1+user2+cutRec {
		t.Fatalf("Load changed the file: %q", got)
	}
	f, h, err := Open(path)
	if err != nil || len(h) != 2 {
		t.Fatalf("Open: %v %v", h, err)
	}
	if d := f.Dropped(); d == nil || d.FirstLine != 4 || d.LastLine != 5 {
		t.Errorf("dropped %+v", d)
	}
	if err := f.AppendTurn([]model.Message{{Role: "user", Content: "again"}}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got := content(t, path)
	if !strings.HasPrefix(got, turn1+`{"type":"message","turn":2,"message":{"role":"user","content":"again"}}`+"\n") {
		t.Errorf("file %q", got)
	}
}

func TestOpenRestoresACutNewline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	write(t, path, strings.TrimSuffix(turn1, "\n"))
	f, h, err := Open(path)
	if err != nil || len(h) != 2 || f.Dropped() != nil {
		t.Fatalf("Open: %v %v", h, err)
	}
	f.AppendTurn(nil)
	f.Close()
	if got := content(t, path); !strings.HasPrefix(got, turn1+`{"type":"end","turn":2,`) {
		t.Errorf("file %q", got)
	}
}

// TestOpenLocks: a second writer is refused while the first holds the
// file — in the same process too, since the lock belongs to the open file —
// and the file is free again once the first closes it. Readers are not
// refused. (The end-to-end script session_in_use shows the lock dying with
// a killed process.)
func TestOpenLocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	write(t, path, turn1)
	f, _, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if g, _, err := Open(path); !errors.Is(err, ErrInUse) {
		if g != nil {
			g.Close()
		}
		t.Fatalf("second Open: %v, want ErrInUse", err)
	}
	if h, _, err := Load(path); err != nil || len(h) != 2 {
		t.Fatalf("Load while open: %v %v", h, err)
	}
	if got := content(t, path); got != turn1 {
		t.Fatalf("the refused Open changed the file: %q", got)
	}
	f.Close()
	g, _, err := Open(path)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	g.Close()
}
