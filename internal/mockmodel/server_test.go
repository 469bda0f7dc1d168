package mockmodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// --- helpers -----------------------------------------------------------------

func mustParse(t *testing.T, src string) *Script {
	t.Helper()
	s, err := ParseScript([]byte(src))
	if err != nil {
		t.Fatalf("ParseScript: %v", err)
	}
	return s
}

// serve starts a Server for src on an httptest server and returns it with
// the base URL.
func serve(t *testing.T, src, record string) (*Server, string) {
	t.Helper()
	srv := New(mustParse(t, src), record)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { srv.Close() })
	return srv, ts.URL + "/v1"
}

type msg struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

func chatBody(stream bool, msgs ...msg) []byte {
	b, _ := json.Marshal(map[string]any{"model": "test-model", "stream": stream, "messages": msgs})
	return b
}

func user(s string) msg { return msg{"user", s} }

func post(t *testing.T, ctx context.Context, base string, body []byte) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// chunk is the test's own view of a stream chunk.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role      string          `json:"role"`
			Content   *string         `json:"content"`
			ToolCalls []toolCallDelta `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
}

type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      *string `json:"name"`
		Arguments *string `json:"arguments"`
	} `json:"function"`
}

// sse is what readSSE saw: the data payloads before [DONE], whether [DONE]
// arrived, and the read error that ended the stream, if any.
type sse struct {
	events [][]byte
	done   bool
	err    error
}

// readSSE is a tiny server-sent-events reader: it collects "data:" lines,
// checks that every event ends with a blank line, and stops at [DONE].
func readSSE(t *testing.T, r io.Reader) sse {
	t.Helper()
	var out sse
	br := bufio.NewReader(r)
	pending := false
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if line != "" || pending {
				t.Errorf("stream ended inside an event: %q", line)
			}
			if !errors.Is(err, io.EOF) {
				out.err = err
			}
			return out
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if !pending {
				t.Errorf("blank line with no event before it")
			}
			pending = false
			if out.done {
				if rest, _ := io.ReadAll(br); len(rest) > 0 {
					t.Errorf("bytes after [DONE]: %q", rest)
				}
				return out
			}
		case strings.HasPrefix(line, "data: "):
			if pending {
				t.Errorf("two data lines in one event")
			}
			if out.done {
				t.Errorf("event after [DONE]: %q", line)
			}
			pending = true
			data := strings.TrimPrefix(line, "data: ")
			if data == "[DONE]" {
				out.done = true
			} else {
				out.events = append(out.events, []byte(data))
			}
		default:
			t.Errorf("unexpected stream line %q", line)
		}
	}
}

func chunks(t *testing.T, s sse) []chunk {
	t.Helper()
	var out []chunk
	for _, e := range s.events {
		var c chunk
		if err := json.Unmarshal(e, &c); err != nil {
			t.Fatalf("chunk %s: %v", e, err)
		}
		if len(c.Choices) != 1 || c.Choices[0].Index != 0 {
			t.Fatalf("chunk %s: want one choice with index 0", e)
		}
		if c.Object != "chat.completion.chunk" || !strings.HasPrefix(c.ID, "chatcmpl-") || c.Created == 0 {
			t.Fatalf("chunk %s: bad envelope", e)
		}
		if !bytes.Contains(e, []byte(`"finish_reason":`)) {
			t.Fatalf("chunk %s: finish_reason missing (must be null or a string)", e)
		}
		out = append(out, c)
	}
	return out
}

// reassembled is what a client would build from a stream.
type reassembled struct {
	role    string
	text    string
	calls   []reCall
	finish  string
	nText   int // chunks carrying text
	nFinish int
}

type reCall struct{ id, typ, name, args string }

func reassemble(t *testing.T, cs []chunk) reassembled {
	t.Helper()
	var r reassembled
	for _, c := range cs {
		ch := c.Choices[0]
		if ch.Delta.Role != "" {
			r.role = ch.Delta.Role
		}
		if ch.Delta.Content != nil && *ch.Delta.Content != "" {
			r.text += *ch.Delta.Content
			r.nText++
		}
		for _, tc := range ch.Delta.ToolCalls {
			if tc.Index == nil {
				t.Fatalf("tool call delta without index")
			}
			for len(r.calls) <= *tc.Index {
				r.calls = append(r.calls, reCall{})
			}
			rc := &r.calls[*tc.Index]
			if tc.ID != "" {
				rc.id = tc.ID
			}
			if tc.Type != "" {
				rc.typ = tc.Type
			}
			if tc.Function.Name != nil {
				rc.name += *tc.Function.Name
			}
			if tc.Function.Arguments != nil {
				rc.args += *tc.Function.Arguments
			}
		}
		if ch.FinishReason != nil {
			r.finish = *ch.FinishReason
			r.nFinish++
		}
	}
	return r
}

func streamOf(t *testing.T, base string, body []byte) (sse, []chunk) {
	t.Helper()
	resp := post(t, context.Background(), base, body)
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q", ct)
	}
	s := readSSE(t, resp.Body)
	return s, chunks(t, s)
}

type completion struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// complete sends a non-streamed request and returns the status and body.
func complete(t *testing.T, base string, body []byte) (int, []byte) {
	t.Helper()
	resp := post(t, context.Background(), base, body)
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return resp.StatusCode, b
}

func textOf(t *testing.T, base string, body []byte) string {
	t.Helper()
	code, b := complete(t, base, body)
	if code != 200 {
		t.Fatalf("status %d: %s", code, b)
	}
	var c completion
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	var s string
	json.Unmarshal(c.Choices[0].Message.Content, &s)
	return s
}

func errorMessage(t *testing.T, b []byte) string {
	t.Helper()
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &e); err != nil || e.Error.Message == "" {
		t.Fatalf("not an error body: %s", b)
	}
	return e.Error.Message
}

// --- script -----------------------------------------------------------------

func TestParseScript(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		wantErr string // substring; empty means success
		check   func(t *testing.T, s *Script)
	}{
		{name: "full", src: `
replies:
  - match: 'list (the )?files'
    text: "Here: {{.Last}}"
    toolCalls:
      - name: bash
        args: {command: ls -l, n: 3, f: 1.5, ok: true, none: null, list: [b, a], nested: {z: 1, a: "2"}}
      - name: edit
        argsText: '{"path": '
        id: call_x
    delay: 200ms
    chunkDelay: 2ms
    wholeToolCalls: true
    finishReason: length
    repeat: true
  - status: 503
    errorMessage: boom
    cut: true
`, check: func(t *testing.T, s *Script) {
			r := s.Replies[0]
			if r.Delay != 200*time.Millisecond || r.ChunkDelay != 2*time.Millisecond {
				t.Errorf("delays %v %v", r.Delay, r.ChunkDelay)
			}
			want := `{"command":"ls -l","n":3,"f":1.5,"ok":true,"none":null,"list":["b","a"],"nested":{"z":1,"a":"2"}}`
			if got := r.ToolCalls[0].ArgumentsText(); got != want {
				t.Errorf("args\n got %s\nwant %s", got, want)
			}
			if got := r.ToolCalls[1].ArgumentsText(); got != `{"path": ` {
				t.Errorf("argsText %q", got)
			}
			if !r.WholeToolCalls || !r.Repeat || r.FinishReason != "length" || r.ToolCalls[1].ID != "call_x" {
				t.Errorf("fields not decoded: %+v", r)
			}
			if s.Replies[1].Status != 503 || s.Replies[1].ErrorMessage != "boom" || !s.Replies[1].Cut {
				t.Errorf("second reply %+v", s.Replies[1])
			}
		}},
		{name: "json", src: `{"replies":[{"text":"hi","toolCalls":[{"name":"f","args":{"b":[1,2],"a":"x"}}]}]}`,
			check: func(t *testing.T, s *Script) {
				if got := s.Replies[0].ToolCalls[0].ArgumentsText(); got != `{"b":[1,2],"a":"x"}` {
					t.Errorf("args %s", got)
				}
			}},
		{name: "no args is empty object", src: "replies: [{toolCalls: [{name: f}]}]",
			check: func(t *testing.T, s *Script) {
				if got := s.Replies[0].ToolCalls[0].ArgumentsText(); got != "{}" {
					t.Errorf("args %s", got)
				}
			}},
		{name: "empty argsText kept", src: "replies: [{toolCalls: [{name: f, argsText: ''}]}]",
			check: func(t *testing.T, s *Script) {
				if got := s.Replies[0].ToolCalls[0].ArgumentsText(); got != "" {
					t.Errorf("args %q", got)
				}
			}},
		{name: "unknown top-level field", src: "x: 1\nreplies: []", wantErr: "field x not found"},
		{name: "aliases", src: "replies: [{toolCalls: [{name: f, args: &a {k: [v, 2]}}]}, {toolCalls: [{name: g, args: *a}]}]",
			check: func(t *testing.T, s *Script) {
				if got := s.Replies[1].ToolCalls[0].ArgumentsText(); got != `{"k":["v",2]}` {
					t.Errorf("args %s", got)
				}
			}},
		{name: "empty", src: "", wantErr: "empty script"},
		{name: "unknown field", src: "replies: [{txt: hi}]", wantErr: "txt"},
		{name: "bad regexp", src: "replies: [{match: '('}]", wantErr: "reply 1: match"},
		{name: "bad template", src: "replies: [{text: '{{.Nope}}'}]", wantErr: "reply 1: text"},
		{name: "unclosed template", src: "replies: [{text: '{{.Last'}]", wantErr: "reply 1: text"},
		{name: "both args", src: "replies: [{toolCalls: [{name: f, args: {}, argsText: x}]}]", wantErr: "both"},
		{name: "no name", src: "replies: [{toolCalls: [{args: {}}]}]", wantErr: "no name"},
		{name: "ok status", src: "replies: [{status: 200}]", wantErr: "status 200"},
		{name: "message without status", src: "replies: [{errorMessage: x}]", wantErr: "needs status"},
		{name: "bad duration", src: "replies: [{delay: soon}]", wantErr: "script"},
		{name: "negative delay", src: "replies: [{delay: -1s}]", wantErr: "negative"},
		{name: "infinite arg", src: "replies: [{toolCalls: [{name: f, args: {x: .inf}}]}]", wantErr: "no JSON form"},
		{name: "two documents", src: "replies: []\n---\nreplies: []\n", wantErr: "more than one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseScript([]byte(tt.src))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, s)
		})
	}
}

func TestLoadScript(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("replies: [{text: hi}]"), 0o644)
	if s, err := LoadScript(good); err != nil || len(s.Replies) != 1 {
		t.Fatalf("LoadScript: %v", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("replies: [{match: '('}]"), 0o644)
	if _, err := LoadScript(bad); err == nil || !strings.Contains(err.Error(), "bad.yaml") {
		t.Fatalf("bad script: err = %v, want naming the file", err)
	}
	if _, err := LoadScript(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Fatal("missing script loaded")
	}
}

// --- selection and templates -------------------------------------------------

func TestSelection(t *testing.T) {
	const src = `
replies:
  - match: 'files'
    text: files-1
  - match: 'files'
    text: files-2
  - match: '^ping$'
    text: pong
    repeat: true
  - text: fallback-1
  - text: fallback-2
`
	tests := []struct {
		name string
		asks []string
		want []string // "" means the no-match error
	}{
		{"in order then used up", []string{"list files", "more files", "files again"},
			[]string{"files-1", "files-2", "fallback-1"}},
		{"repeat is not used up", []string{"ping", "ping", "ping"}, []string{"pong", "pong", "pong"}},
		{"unanchored match", []string{"xx ping"}, []string{"fallback-1"}},
		{"exhausted", []string{"a", "b", "c"}, []string{"fallback-1", "fallback-2", ""}},
		{"mixed", []string{"hello", "ping", "files", "hello", "ping", "bye"},
			[]string{"fallback-1", "pong", "files-1", "fallback-2", "pong", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, base := serve(t, src, "")
			for i, ask := range tt.asks {
				code, b := complete(t, base, chatBody(false, user(ask)))
				if tt.want[i] == "" {
					if code != 500 {
						t.Fatalf("ask %d %q: status %d, want 500", i, ask, code)
					}
					continue
				}
				if code != 200 {
					t.Fatalf("ask %d %q: status %d: %s", i, ask, code, b)
				}
				var c completion
				json.Unmarshal(b, &c)
				var got string
				json.Unmarshal(c.Choices[0].Message.Content, &got)
				if got != tt.want[i] {
					t.Errorf("ask %d %q: got %q, want %q", i, ask, got, tt.want[i])
				}
			}
		})
	}
}

func TestMatchesLastMessage(t *testing.T) {
	_, base := serve(t, `
replies:
  - match: 'total 42'
    text: 'saw the tool output'
  - text: 'other'
`, "")
	// The user's question matches but the last message (a tool result) is
	// what counts.
	body := chatBody(false,
		msg{"user", "what does ls say? total 42"},
		msg{"tool", "nothing here"})
	if got := textOf(t, base, body); got != "other" {
		t.Fatalf("got %q, want the reply for the tool output", got)
	}
	body = chatBody(false, msg{"user", "q"}, msg{"tool", "total 42\nfoo"})
	if got := textOf(t, base, body); got != "saw the tool output" {
		t.Fatalf("got %q", got)
	}
}

func TestTemplateFields(t *testing.T) {
	tests := []struct {
		name string
		text string
		msgs []msg
		want string
	}{
		{"last", "{{.Last}}", []msg{{"user", "a"}, {"assistant", "b"}, {"tool", "out"}}, "out"},
		{"last user", "{{.LastUser}}", []msg{{"user", "a"}, {"user", "b"}, {"tool", "out"}}, "b"},
		{"system", "{{.System}}", []msg{{"system", "s1"}, {"system", "s2"}, {"user", "u"}}, "s1"},
		{"model", "{{.Model}}", []msg{{"user", "u"}}, "test-model"},
		{"number", "#{{.N}}", []msg{{"user", "u"}}, "#1"},
		{"content parts", "{{.Last}}", []msg{{"user", []map[string]string{
			{"type": "text", "text": "hello "}, {"type": "image_url"}, {"type": "text", "text": "world"}}}}, "hello world"},
		{"null content", "[{{.Last}}]", []msg{{"user", "u"}, {"assistant", nil}}, "[]"},
		{"no messages", "[{{.Last}}|{{.System}}]", nil, "[|]"},
		{"functions", `{{printf "%q" .LastUser}} {{len .Last}}`, []msg{{"user", "hi"}}, `"hi" 2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, _ := json.Marshal(map[string]any{"replies": []any{map[string]any{"text": tt.text}}})
			_, base := serve(t, string(src), "")
			if got := textOf(t, base, chatBody(false, tt.msgs...)); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("N counts requests", func(t *testing.T) {
		_, base := serve(t, "replies: [{text: 'n={{.N}}', repeat: true}]", "")
		for i := 1; i <= 3; i++ {
			if got, want := textOf(t, base, chatBody(false, user("x"))), fmt.Sprintf("n=%d", i); got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
		}
	})
}

// --- streaming ---------------------------------------------------------------

func TestStreamText(t *testing.T) {
	tests := []struct {
		name, text string
	}{
		{"ascii", "Hello, world! This is a streamed reply."},
		{"multibyte", "héllo wörld — 日本語のテキスト 🎉🎉 ok"},
		{"short", "hi"},
		{"html and quotes", `<b>"a" & 'b'</b>` + "\n\ttab"},
		{"empty", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, _ := json.Marshal(map[string]any{"replies": []any{map[string]any{"text": tt.text}}})
			_, base := serve(t, string(src), "")
			s, cs := streamOf(t, base, chatBody(true, user("hi")))
			if !s.done || s.err != nil {
				t.Fatalf("done=%v err=%v", s.done, s.err)
			}
			first := cs[0].Choices[0]
			if first.Delta.Role != "assistant" || first.FinishReason != nil {
				t.Fatalf("first chunk %s: want role assistant", s.events[0])
			}
			last := cs[len(cs)-1].Choices[0]
			if last.FinishReason == nil || *last.FinishReason != "stop" || last.Delta.Content != nil || last.Delta.Role != "" {
				t.Fatalf("last chunk %s: want empty delta and finish stop", s.events[len(s.events)-1])
			}
			r := reassemble(t, cs)
			if r.text != tt.text || r.nFinish != 1 || len(r.calls) != 0 {
				t.Fatalf("reassembled %+v", r)
			}
			wantPieces := (utf8.RuneCountInString(tt.text) + 3) / 4
			if r.nText != wantPieces || len(cs) != wantPieces+2 {
				t.Fatalf("%d text chunks of %d, want %d", r.nText, len(cs), wantPieces)
			}
			for _, c := range cs {
				if c.ID != cs[0].ID || c.Model != "test-model" {
					t.Fatalf("chunk id %q model %q", c.ID, c.Model)
				}
				if p := c.Choices[0].Delta.Content; p != nil && utf8.RuneCountInString(*p) > 4 {
					t.Fatalf("piece %q longer than 4 runes", *p)
				}
			}
		})
	}
}

func TestStreamToolCalls(t *testing.T) {
	const src = `
replies:
  - text: "Let me look."
    toolCalls:
      - name: bash
        args: {command: "ls -la /tmp && echo \"done\"", timeout: 30}
      - name: write
        id: my_id
        args: {path: "ü/ñ.txt", content: "日本語 text"}
  - toolCalls:
      - name: edit
        argsText: '{"path": "a.go", "old": '
    finishReason: length
`
	_, base := serve(t, src, "")
	script := mustParse(t, src)

	t.Run("fragments", func(t *testing.T) {
		s, cs := streamOf(t, base, chatBody(true, user("go")))
		if !s.done {
			t.Fatal("no [DONE]")
		}
		r := reassemble(t, cs)
		if r.text != "Let me look." || r.finish != "tool_calls" {
			t.Fatalf("text %q finish %q", r.text, r.finish)
		}
		want := []reCall{
			{"call_1_0", "function", "bash", script.Replies[0].ToolCalls[0].ArgumentsText()},
			{"my_id", "function", "write", script.Replies[0].ToolCalls[1].ArgumentsText()},
		}
		if len(r.calls) != len(want) {
			t.Fatalf("calls %+v", r.calls)
		}
		for i := range want {
			if r.calls[i] != want[i] {
				t.Errorf("call %d\n got %+v\nwant %+v", i, r.calls[i], want[i])
			}
			if !json.Valid([]byte(r.calls[i].args)) {
				t.Errorf("call %d args not JSON: %s", i, r.calls[i].args)
			}
		}
		// llama-server shape: a head chunk with id, type, name and empty
		// arguments, then argument fragments carrying only index and text.
		var heads, frags int
		for _, c := range cs {
			for _, tc := range c.Choices[0].Delta.ToolCalls {
				if len(c.Choices[0].Delta.ToolCalls) != 1 {
					t.Fatal("more than one call in a fragment chunk")
				}
				if tc.ID != "" {
					heads++
					if tc.Function.Name == nil || tc.Function.Arguments == nil || *tc.Function.Arguments != "" || tc.Type != "function" {
						t.Errorf("head chunk %+v", tc)
					}
					continue
				}
				frags++
				if tc.Function.Name != nil || tc.Type != "" {
					t.Errorf("fragment carries name or type: %+v", tc)
				}
				if n := len(*tc.Function.Arguments); n == 0 || n > 8+3 {
					t.Errorf("fragment of %d bytes", n)
				}
			}
		}
		if heads != 2 || frags < 2*len(want[0].args)/12 {
			t.Errorf("%d heads, %d fragments", heads, frags)
		}
	})

	t.Run("malformed argsText and finish override", func(t *testing.T) {
		s, cs := streamOf(t, base, chatBody(true, user("go")))
		r := reassemble(t, cs)
		if !s.done || r.finish != "length" || len(r.calls) != 1 ||
			r.calls[0].args != `{"path": "a.go", "old": ` || r.calls[0].id != "call_2_0" {
			t.Fatalf("got %+v", r)
		}
		if r.nText != 0 {
			t.Fatalf("%d text chunks for a reply without text", r.nText)
		}
	})
}

func TestWholeToolCalls(t *testing.T) {
	_, base := serve(t, `
replies:
  - wholeToolCalls: true
    toolCalls:
      - {name: read, args: {path: a.txt}}
      - {name: read, args: {path: b.txt}, id: second}
`, "")
	s, cs := streamOf(t, base, chatBody(true, user("go")))
	if !s.done {
		t.Fatal("no [DONE]")
	}
	var withCalls int
	for _, c := range cs {
		tcs := c.Choices[0].Delta.ToolCalls
		if len(tcs) == 0 {
			continue
		}
		withCalls++
		if len(tcs) != 2 {
			t.Fatalf("chunk carries %d calls, want both", len(tcs))
		}
		for i, tc := range tcs {
			if *tc.Index != i || tc.Type != "function" || *tc.Function.Name != "read" {
				t.Errorf("call %d: %+v", i, tc)
			}
		}
		if *tcs[0].Function.Arguments != `{"path":"a.txt"}` || *tcs[1].Function.Arguments != `{"path":"b.txt"}` {
			t.Errorf("arguments %q %q", *tcs[0].Function.Arguments, *tcs[1].Function.Arguments)
		}
		if tcs[0].ID != "call_1_0" || tcs[1].ID != "second" {
			t.Errorf("ids %q %q", tcs[0].ID, tcs[1].ID)
		}
	}
	if withCalls != 1 {
		t.Fatalf("%d chunks with tool calls, want 1", withCalls)
	}
	if r := reassemble(t, cs); r.finish != "tool_calls" {
		t.Fatalf("finish %q", r.finish)
	}
}

func TestChunkDelay(t *testing.T) {
	_, base := serve(t, "replies: [{text: 'abcdefghijklmnop', chunkDelay: 20ms}]", "")
	start := time.Now()
	s, cs := streamOf(t, base, chatBody(true, user("x")))
	// role + 4 text + finish = 6 chunks, 5 pauses.
	if el := time.Since(start); el < 5*20*time.Millisecond {
		t.Fatalf("stream of %d chunks took %v, want at least 100ms", len(cs), el)
	}
	if !s.done {
		t.Fatal("no [DONE]")
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		name, src string
	}{
		{"text", "replies: [{text: 'This reply will never be finished by the server.', cut: true}]"},
		{"tool call", "replies: [{toolCalls: [{name: bash, args: {command: 'echo a long command line here'}}], cut: true}]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, base := serve(t, tt.src, "")
			resp := post(t, context.Background(), base, chatBody(true, user("x")))
			s := readSSE(t, resp.Body)
			if s.done {
				t.Fatal("cut stream sent [DONE]")
			}
			if !errors.Is(s.err, io.ErrUnexpectedEOF) {
				t.Fatalf("stream ended with %v, want unexpected EOF", s.err)
			}
			cs := chunks(t, s)
			r := reassemble(t, cs)
			if r.nFinish != 0 || r.role != "assistant" || len(cs) < 2 {
				t.Fatalf("%d chunks, reassembled %+v", len(cs), r)
			}
		})
	}
	t.Run("non-stream", func(t *testing.T) {
		_, base := serve(t, "replies: [{text: 'half of this', cut: true}]", "")
		resp := post(t, context.Background(), base, chatBody(false, user("x")))
		if _, err := io.ReadAll(resp.Body); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("read err %v, want unexpected EOF", err)
		}
	})
}

// --- non-streamed and errors --------------------------------------------------

func TestNonStream(t *testing.T) {
	tests := []struct {
		name        string
		reply       string
		wantContent string // raw JSON
		wantCalls   int
		wantFinish  string
	}{
		{"text", "{text: hello}", `"hello"`, 0, "stop"},
		{"empty text", "{}", `""`, 0, "stop"},
		{"tool calls only", "{toolCalls: [{name: f, args: {a: 1}}, {name: g}]}", `null`, 2, "tool_calls"},
		{"text and tool calls", "{text: hi, toolCalls: [{name: f}]}", `"hi"`, 1, "tool_calls"},
		{"finish override", "{text: cut off, finishReason: length}", `"cut off"`, 0, "length"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, base := serve(t, "replies: ["+tt.reply+"]", "")
			resp := post(t, context.Background(), base, chatBody(false, user("x")))
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
				t.Fatalf("status %d type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			var c completion
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatal(err)
			}
			if c.Object != "chat.completion" || c.ID != "chatcmpl-1" || c.Model != "test-model" || len(c.Choices) != 1 {
				t.Fatalf("envelope: %s", b)
			}
			m := c.Choices[0].Message
			if m.Role != "assistant" || string(m.Content) != tt.wantContent || c.Choices[0].FinishReason != tt.wantFinish {
				t.Fatalf("message: %s", b)
			}
			if len(m.ToolCalls) != tt.wantCalls {
				t.Fatalf("tool calls: %s", b)
			}
			if tt.wantCalls == 0 && bytes.Contains(b, []byte("tool_calls\":")) {
				t.Fatalf("tool_calls present with none: %s", b)
			}
			for i, tc := range m.ToolCalls {
				if tc.ID != fmt.Sprintf("call_1_%d", i) || tc.Type != "function" || !json.Valid([]byte(tc.Function.Arguments)) {
					t.Errorf("call %d: %+v", i, tc)
				}
			}
		})
	}
}

func TestErrors(t *testing.T) {
	long := strings.Repeat("é", 250)
	tests := []struct {
		name     string
		src      string
		stream   bool
		ask      string
		wantCode int
		wantMsg  string
	}{
		{"status with message", "replies: [{status: 503, errorMessage: boom}]", false, "x", 503, "boom"},
		{"status default message", "replies: [{status: 429}]", true, "x", 429, "scripted error"},
		{"no match", "replies: [{match: zzz}]", false, "hello there", 500,
			"mockmodel: no scripted reply matches the last message: hello there"},
		{"no match truncated", "replies: []", true, long, 500,
			"mockmodel: no scripted reply matches the last message: " + strings.Repeat("é", 200)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, base := serve(t, tt.src, "")
			resp := post(t, context.Background(), base, chatBody(tt.stream, user(tt.ask)))
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantCode {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.wantCode)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type %q", ct)
			}
			if got := errorMessage(t, b); got != tt.wantMsg {
				t.Fatalf("message %q, want %q", got, tt.wantMsg)
			}
		})
	}
	t.Run("bad request body", func(t *testing.T) {
		srv, base := serve(t, "replies: [{text: hi}]", "")
		code, b := complete(t, base, []byte("{not json"))
		if code != 400 {
			t.Fatalf("status %d", code)
		}
		errorMessage(t, b)
		if rs := srv.Requests(); len(rs) != 1 || string(rs[0].Body) != `"{not json"` {
			t.Fatalf("recorded %+v", rs)
		}
	})
	t.Run("unknown path", func(t *testing.T) {
		_, base := serve(t, "replies: []", "")
		resp, err := http.Get(base + "/embeddings")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
}

func TestModels(t *testing.T) {
	for _, path := range []string{"/v1/models", "/models"} {
		t.Run(path, func(t *testing.T) {
			_, base := serve(t, "replies: []", "")
			resp, err := http.Get(strings.TrimSuffix(base, "/v1") + path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var list struct {
				Object string `json:"object"`
				Data   []struct {
					ID     string `json:"id"`
					Object string `json:"object"`
				} `json:"data"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != 200 || list.Object != "list" || len(list.Data) != 1 || list.Data[0].ID != "scripted" {
				t.Fatalf("got %d %+v", resp.StatusCode, list)
			}
		})
	}
}

// --- concurrency, recording, cancellation, lifecycle -------------------------

func TestConcurrent(t *testing.T) {
	const n = 40
	var src strings.Builder
	src.WriteString("replies:\n")
	for i := range n {
		fmt.Fprintf(&src, "  - text: 'reply-%d'\n", i)
	}
	srv, base := serve(t, src.String(), "")
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		seen = map[string]int{}
	)
	for i := range n + 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stream := i%2 == 0
			resp := post(t, context.Background(), base, chatBody(stream, user("x")))
			var got string
			switch {
			case resp.StatusCode != 200:
				got = "error"
				io.Copy(io.Discard, resp.Body)
			case stream:
				s := readSSE(t, resp.Body)
				got = reassemble(t, chunks(t, s)).text
			default:
				var c completion
				json.NewDecoder(resp.Body).Decode(&c)
				json.Unmarshal(c.Choices[0].Message.Content, &got)
			}
			mu.Lock()
			seen[got]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if seen["error"] != 5 {
		t.Errorf("%d errors, want 5", seen["error"])
	}
	for i := range n {
		if c := seen[fmt.Sprintf("reply-%d", i)]; c != 1 {
			t.Errorf("reply-%d answered %d times", i, c)
		}
	}
	if got := len(srv.Requests()); got != n+5 {
		t.Errorf("%d requests recorded, want %d", got, n+5)
	}
}

func TestRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	srv, base := serve(t, "replies: [{text: ok}, {status: 500}]", path)
	bodies := [][]byte{
		chatBody(false, user("first <b>&</b>")),
		[]byte("{\n  \"model\": \"m\",\n  \"stream\": true,\n  \"messages\": [{\"role\": \"user\", \"content\": \"second\"}]\n}"),
		chatBody(true, user("third, no reply left")),
	}
	before := time.Now()
	for _, b := range bodies {
		resp := post(t, context.Background(), base, b)
		io.Copy(io.Discard, resp.Body)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != len(bodies) || !strings.HasSuffix(string(data), "\n") {
		t.Fatalf("%d lines: %q", len(lines), data)
	}
	recs := srv.Requests()
	if len(recs) != len(bodies) {
		t.Fatalf("%d recorded in memory", len(recs))
	}
	for i, line := range lines {
		var rec struct {
			Time string          `json:"time"`
			Body json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %d not JSON: %v: %s", i, err, line)
		}
		ts, err := time.Parse(time.RFC3339Nano, rec.Time)
		if err != nil || ts.Before(before.Add(-time.Second)) {
			t.Errorf("line %d time %q: %v", i, rec.Time, err)
		}
		var want bytes.Buffer
		json.Compact(&want, bodies[i])
		if string(rec.Body) != want.String() {
			t.Errorf("line %d body\n got %s\nwant %s", i, rec.Body, want.Bytes())
		}
		if string(recs[i].Body) != want.String() || recs[i].Time.Before(before) {
			t.Errorf("in-memory record %d: %s", i, recs[i].Body)
		}
	}
}

func TestCancelDuringDelay(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			srv := New(mustParse(t, "replies: [{text: late, delay: 30s}]"), "")
			ts := httptest.NewServer(srv)
			defer ts.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/chat/completions",
				bytes.NewReader(chatBody(stream, user("x"))))
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
				t.Fatal("request succeeded despite cancellation")
			}
			if el := time.Since(start); el > 5*time.Second {
				t.Fatalf("client returned after %v", el)
			}
			// The handler must give up too: closing the test server waits
			// for handlers, so it returns promptly only if ours stopped.
			done := make(chan struct{})
			go func() { ts.Close(); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("handler still running after the client went away")
			}
		})
	}
}

func TestCancelDuringStream(t *testing.T) {
	srv := New(mustParse(t, "replies: [{text: '"+strings.Repeat("word ", 200)+"', chunkDelay: 50ms}]"), "")
	ts := httptest.NewServer(srv)
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/chat/completions",
		bytes.NewReader(chatBody(true, user("x"))))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	br.ReadString('\n') // the role chunk has arrived
	cancel()
	resp.Body.Close()
	done := make(chan struct{})
	go func() { ts.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("stream still running after the client went away")
	}
}

func TestStartClose(t *testing.T) {
	srv := New(mustParse(t, "replies: [{text: 'via {{.Model}}'}]"), "")
	if srv.Addr() != "" {
		t.Fatal("Addr before Start")
	}
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(srv.Addr(), "127.0.0.1:") || base != "http://"+srv.Addr()+"/v1" {
		t.Fatalf("base %q addr %q", base, srv.Addr())
	}
	if _, err := srv.Start("127.0.0.1:0"); err == nil {
		t.Fatal("second Start succeeded")
	}
	if got := textOf(t, base, chatBody(false, user("x"))); got != "via test-model" {
		t.Fatalf("got %q", got)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := http.Get(base + "/models"); err == nil {
		t.Fatal("server still answering after Close")
	}
}

func TestCloseEndsDelay(t *testing.T) {
	srv := New(mustParse(t, "replies: [{text: late, delay: 30s}]"), "")
	base, err := srv.Start("")
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		resp, err := http.Post(base+"/chat/completions", "application/json", bytes.NewReader(chatBody(false, user("x"))))
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond)
	srv.Close()
	select {
	case <-errc:
	case <-time.After(5 * time.Second):
		t.Fatal("request still waiting after Close")
	}
}

func TestScriptBuiltInGo(t *testing.T) {
	args := `{"x":1}`
	s := &Script{Replies: []Reply{
		{Match: "(", Text: "never"},
		{Text: "hi {{.LastUser}}", ToolCalls: []ToolCall{{Name: "f", ArgsText: &args}}},
	}}
	srv := New(s, "")
	ts := httptest.NewServer(srv)
	defer ts.Close()
	code, b := complete(t, ts.URL+"/v1", chatBody(false, user("a")))
	if code != 500 || !strings.Contains(errorMessage(t, b), "reply 1") {
		t.Fatalf("invalid reply: %d %s", code, b)
	}
	code, b = complete(t, ts.URL+"/v1", chatBody(false, user("a")))
	if code != 200 || !strings.Contains(string(b), `"hi a"`) || !strings.Contains(string(b), `"arguments":"{\"x\":1}"`) {
		t.Fatalf("got %d %s", code, b)
	}
	if s.Replies[1].tmpl != nil {
		t.Fatal("New wrote to the caller's script")
	}
}

// With slots: 1, a second request waits until the first is answered, as a
// server with one slot (Ollama's OLLAMA_NUM_PARALLEL=1) makes it wait:
// two requests of a 300 ms reply take 600 ms; with no limit, 300 ms.
func TestSlots(t *testing.T) {
	for _, tc := range []struct {
		slots    string
		min, max time.Duration
	}{
		{"slots: 1\n", 600 * time.Millisecond, 10 * time.Second},
		{"", 300 * time.Millisecond, 590 * time.Millisecond},
	} {
		_, base := serve(t, tc.slots+"replies:\n  - repeat: true\n    delay: 300ms\n    text: ok\n", "")
		start := time.Now()
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				resp := post(t, context.Background(), base, chatBody(false, user("hi")))
				io.Copy(io.Discard, resp.Body)
			})
		}
		wg.Wait()
		if took := time.Since(start); took < tc.min || took > tc.max {
			t.Errorf("%q: two requests took %s, want %s to %s", tc.slots, took, tc.min, tc.max)
		}
	}
	if _, err := ParseScript([]byte("slots: -1\n")); err == nil || !strings.Contains(err.Error(), "slots must not be negative") {
		t.Errorf("slots: -1: %v", err)
	}
}
