package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strconv"
	"strings"
)

// maxLine bounds one SSE line. A tool call's arguments can be megabytes
// (a whole file to write), so the limit is generous; it exists only so a
// broken server cannot make mm buffer without end.
const maxLine = 64 << 20

var errLineTooLong = errors.New("a line of the stream is longer than 64 MB")

// errCut reports a stream that ended before the server said it was done.
var errCut = errors.New("the reply was cut off before it was complete")

// cutError is a cut stream with the reason the body ended, when known.
type cutError struct{ cause string }

func (e *cutError) Error() string {
	if e.cause == "" {
		return errCut.Error()
	}
	return errCut.Error() + " (" + e.cause + ")"
}

// serverError is an error the server reported inside a 200 reply, either as
// a mid-stream chunk or as the JSON body.
type serverError struct{ msg string }

func (e *serverError) Error() string { return "the server reported an error: " + e.msg }

// invalidError is a reply mm cannot decode.
type invalidError struct{ reason string }

func (e *invalidError) Error() string { return "invalid reply: " + e.reason }

// notStreamError is a body that is not a chat-completions reply at all
// (a proxy's page, random bytes): its first bytes say what it was.
type notStreamError struct{ first []byte }

func (e *notStreamError) Error() string {
	return "sent something that is not a chat-completions stream: " + quoteStart(e.first)
}

// quoteStart quotes the first bytes of a body for a one-line error.
func quoteStart(b []byte) string {
	const n = 48
	if len(b) > n {
		return strconv.QuoteToASCII(string(b[:n])) + "…"
	}
	return strconv.QuoteToASCII(string(b))
}

// wireToolCall is a tool call, or a piece of one, as servers send it.
type wireToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// wireUsage is the usage a chunk or a reply carries, and llama-server's
// timings, which say the same when usage is absent: the prompt is the
// tokens it processed (prompt_n) and those it reused from its cache
// (cache_n), so a prompt mostly cached does not look like a cut one.
type wireUsage struct {
	Usage   *Usage `json:"usage"`
	Timings *struct {
		CacheN     *int `json:"cache_n"`
		PromptN    *int `json:"prompt_n"`
		PredictedN *int `json:"predicted_n"`
	} `json:"timings"`
}

// usage returns the count w carries, if any.
func (w wireUsage) usage() *Usage {
	if w.Usage != nil && (w.Usage.PromptTokens > 0 || w.Usage.CompletionTokens > 0 || w.Usage.TotalTokens > 0) {
		u := *w.Usage
		if u.TotalTokens == 0 {
			u.TotalTokens = u.PromptTokens + u.CompletionTokens
		}
		return &u
	}
	if t := w.Timings; t != nil && t.PromptN != nil {
		u := Usage{PromptTokens: *t.PromptN}
		if t.CacheN != nil && *t.CacheN > 0 {
			u.PromptTokens += *t.CacheN
		}
		if t.PredictedN != nil {
			u.CompletionTokens = *t.PredictedN
		}
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
		return &u
	}
	return nil
}

// wireChunk is one "data:" payload of a chat-completions stream.
type wireChunk struct {
	Choices []struct {
		Delta struct {
			Content          *string        `json:"content"`
			ReasoningContent *string        `json:"reasoning_content"` // llama-server, LM Studio, older vLLM
			Reasoning        *string        `json:"reasoning"`         // Ollama, vLLM
			ToolCalls        []wireToolCall `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Error json.RawMessage `json:"error"`
	wireUsage
}

// sink is where a reply's pieces go as they arrive.
type sink struct {
	onText, onReasoning func(string)
}

// reply accumulates one reply and hands its pieces to a sink, keeping the
// reasoning (whatever field or tags it came in) out of the answer.
type reply struct {
	sink
	content, reasoning rope
	think              thinkSplitter
	calls              callAssembler
	finish             string
	usage              *Usage
}

func (r *reply) addReasoning(s string) {
	if s == "" {
		return
	}
	r.reasoning.WriteString(s)
	if r.onReasoning != nil {
		r.onReasoning(s)
	}
}

func (r *reply) addText(s string) {
	if s == "" {
		return
	}
	r.content.WriteString(s)
	if r.onText != nil {
		r.onText(s)
	}
}

// addContent takes a piece of the content, which may open with a
// <think> block.
func (r *reply) addContent(s string) {
	th, text := r.think.feed(s)
	r.addReasoning(th)
	r.addText(text)
}

// result is the reply so far; it ends the content (a <think> block still
// open is reasoning).
func (r *reply) result() Reply {
	th, text := r.think.flush()
	r.addReasoning(th)
	r.addText(text)
	return Reply{Content: r.content.String(), Reasoning: r.reasoning.String(),
		ToolCalls: r.calls.result(), FinishReason: r.finish, Usage: r.usage}
}

// readStream parses an SSE chat-completions stream into the complete Reply,
// calling onText (when not nil) with each piece of assistant text in order.
// With an error it returns what had arrived. Its errors do not name the
// server; Chat adds that.
func readStream(r io.Reader, onText func(string)) (Reply, error) {
	return readStreamTo(r, sink{onText: onText})
}

func readStreamTo(r io.Reader, sk sink) (Reply, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	rep := &reply{sink: sk}
	// What the body starts with tells an SSE stream from a JSON reply sent
	// anyway, and both from what is neither.
	switch kind, head := sniff(br); kind {
	case sniffJSON:
		data, err := io.ReadAll(br)
		if err != nil {
			return Reply{}, &cutError{cause: shortCause(err)}
		}
		return decodeReply(data, sk)
	case sniffOther:
		return Reply{}, &notStreamError{first: head}
	}
	var (
		finished bool   // a finish_reason was seen
		event    string // the current SSE event's name
		first    = true
	)
	for {
		line, rerr := readLine(br)
		if rerr != nil && rerr != io.EOF {
			if errors.Is(rerr, errLineTooLong) {
				return rep.result(), &invalidError{reason: rerr.Error()}
			}
			if finished {
				return rep.result(), nil
			}
			return rep.result(), &cutError{cause: shortCause(rerr)}
		}
		partial := rerr == io.EOF && len(line) > 0 && line[len(line)-1] != '\n'
		line = bytes.TrimRight(line, "\r\n")
		if first {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
			first = false
		}
		switch {
		case len(line) == 0:
			event = ""
		case line[0] == ':':
			// A comment, often a keep-alive.
		case bytes.HasPrefix(line, []byte("event:")):
			event = string(bytes.TrimSpace(line[len("event:"):]))
		case bytes.HasPrefix(line, []byte("data:")):
			data := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
			data = bytes.TrimSpace(data)
			if len(data) == 0 {
				break
			}
			if string(data) == "[DONE]" {
				return rep.result(), nil
			}
			if event == "error" {
				return rep.result(), &serverError{msg: errorText(data)}
			}
			var ch wireChunk
			if err := json.Unmarshal(data, &ch); err != nil {
				if partial {
					if finished {
						return rep.result(), nil // only the tail after the finish was lost
					}
					return rep.result(), &cutError{}
				}
				return rep.result(), &invalidError{reason: jsonReason(err)}
			}
			if hasValue(ch.Error) {
				return rep.result(), &serverError{msg: errorText(ch.Error)}
			}
			if u := ch.usage(); u != nil {
				rep.usage = u
			}
			if len(ch.Choices) == 0 {
				break // usage-only or empty chunk
			}
			c := ch.Choices[0]
			if c.Delta.ReasoningContent != nil {
				rep.addReasoning(*c.Delta.ReasoningContent)
			}
			if c.Delta.Reasoning != nil {
				rep.addReasoning(*c.Delta.Reasoning)
			}
			if c.Delta.Content != nil {
				rep.addContent(*c.Delta.Content)
			}
			for _, tc := range c.Delta.ToolCalls {
				if err := rep.calls.add(tc); err != nil {
					return rep.result(), err
				}
			}
			if c.FinishReason != nil && *c.FinishReason != "" {
				rep.finish = *c.FinishReason
				finished = true
			}
		default:
			// id:, retry: and anything else a server may add.
		}
		if rerr == io.EOF {
			if finished {
				return rep.result(), nil
			}
			return rep.result(), &cutError{}
		}
	}
}

// What a body starts with.
const (
	sniffSSE   = iota // server-sent events (or nothing yet)
	sniffJSON         // a JSON object
	sniffOther        // neither
)

// sniff looks at the start of a body, reading no more than it needs to
// tell, and returns what it is and, for sniffOther, its first bytes.
func sniff(br *bufio.Reader) (int, []byte) {
	bom := []byte("\xef\xbb\xbf")
	for k := 1; k <= br.Size(); k++ {
		b, err := br.Peek(k)
		t := b
		if len(t) < len(bom) && bytes.HasPrefix(bom, t) && err == nil {
			continue
		}
		t = bytes.TrimPrefix(t, bom)
		t = bytes.TrimLeft(t, " \t\r\n")
		switch {
		case len(t) == 0:
		case t[0] == '{':
			return sniffJSON, nil
		default:
			switch sseStart(t) {
			case sseYes:
				return sniffSSE, nil
			case sseNo:
				head, _ := br.Peek(64)
				return sniffOther, head
			}
		}
		if err != nil {
			return sniffSSE, nil // too short to tell: the stream parser says it was cut
		}
	}
	return sniffSSE, nil
}

// Answers of sseStart.
const (
	sseNo = iota
	sseYes
	sseMaybe // too short to tell
)

// sseStart tells whether b starts like a server-sent events stream: a
// field name of the SSE format, or a comment.
func sseStart(b []byte) int {
	if b[0] == ':' {
		return sseYes
	}
	maybe := false
	for _, f := range []string{"data", "event", "id", "retry"} {
		switch {
		case len(b) <= len(f):
			if strings.HasPrefix(f, string(b)) {
				maybe = true
			}
		case string(b[:len(f)]) == f && (b[len(f)] == ':' || b[len(f)] == '\n' || b[len(f)] == '\r'):
			return sseYes
		}
	}
	if maybe {
		return sseMaybe
	}
	return sseNo
}

// readLine reads one line including its '\n', of any length up to maxLine;
// bufio.Scanner would stop at 64 KB, which a tool call's arguments exceed.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	buf := append([]byte(nil), line...)
	for err == bufio.ErrBufferFull {
		line, err = br.ReadSlice('\n')
		if len(buf)+len(line) > maxLine {
			return nil, errLineTooLong
		}
		buf = append(buf, line...)
	}
	return buf, err
}

// callAssembler puts together tool calls that arrive whole or in pieces.
type callAssembler struct {
	calls   []ToolCall
	args    []rope      // args[i]: the arguments of calls[i] so far
	keys    []int       // sort key of each call: its index, or later for a re-used index
	byIndex map[int]int // wire index → position in calls of the call now using it
	maxKey  int
}

// add merges one tool-call delta. Pieces with the same index belong to the
// same call, unless the piece starts another call (a different id where the
// call at that index already has a name, or, when the server sends no
// index at all, a second name), which is then appended at the end.
func (a *callAssembler) add(d wireToolCall) error {
	args, err := argumentsText(d.Function.Arguments)
	if err != nil {
		return err
	}
	idx := 0
	if d.Index != nil {
		idx = *d.Index
	}
	if a.byIndex == nil {
		a.byIndex = make(map[int]int)
	}
	pos, ok := a.byIndex[idx]
	if ok {
		c := a.calls[pos]
		switch {
		case d.ID != "" && c.ID != "" && d.ID != c.ID && c.Function.Name != "":
			ok = false
		case d.Index == nil && d.Function.Name != "" && c.Function.Name != "":
			ok = false
		}
	}
	if !ok {
		key := idx
		if _, used := a.byIndex[idx]; used {
			key = a.maxKey + 1
		}
		if len(a.calls) == 0 || key > a.maxKey {
			a.maxKey = key
		}
		a.byIndex[idx] = len(a.calls)
		a.calls = append(a.calls, ToolCall{ID: d.ID, Type: "function",
			Function: FunctionCall{Name: d.Function.Name}})
		a.args = append(a.args, rope{})
		a.args[len(a.args)-1].WriteString(args)
		a.keys = append(a.keys, key)
		return nil
	}
	c := &a.calls[pos]
	if c.ID == "" {
		c.ID = d.ID
	}
	if c.Function.Name == "" {
		c.Function.Name = d.Function.Name
	} else if d.Function.Name != "" && d.Function.Name != c.Function.Name {
		c.Function.Name += d.Function.Name // a name sent in pieces
	}
	a.args[pos].WriteString(args) // not +=: arguments of megabytes come in thousands of pieces
	return nil
}

// result returns the calls in index order, appended calls last, without
// pieces that carried nothing at all.
func (a *callAssembler) result() []ToolCall {
	if len(a.calls) == 0 {
		return nil
	}
	order := make([]int, len(a.calls))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return a.keys[order[i]] < a.keys[order[j]] })
	var out []ToolCall
	for _, i := range order {
		c := a.calls[i]
		if i < len(a.args) {
			c.Function.Arguments = a.args[i].String()
		}
		if c.ID == "" && c.Function.Name == "" && c.Function.Arguments == "" {
			continue
		}
		out = append(out, c)
	}
	return out
}

// argumentsText returns a tool call's arguments as text. The wire sends a
// JSON string; a few servers send the object itself, which is kept as its
// JSON text so the caller sees the same thing either way.
func argumentsText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if !hasValue(raw) {
		return "", nil
	}
	if raw[0] != '"' {
		return string(raw), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", &invalidError{reason: jsonReason(err)}
	}
	return s, nil
}

// hasValue reports whether a raw JSON field was present and not null.
func hasValue(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}

// errorText finds the human message in an error value that may be a string,
// an object with "message" (OpenAI, llama-server, vLLM), or anything else.
func errorText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return clip(collapse(s), maxMessage)
	}
	var obj struct {
		Message json.RawMessage `json:"message"`
		Error   json.RawMessage `json:"error"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		for _, f := range []json.RawMessage{obj.Message, obj.Error, obj.Detail} {
			if json.Unmarshal(f, &s) == nil && s != "" {
				return clip(collapse(s), maxMessage)
			}
		}
		if hasValue(obj.Error) && len(obj.Error) < len(raw) {
			return errorText(obj.Error)
		}
	}
	return clip(collapse(string(raw)), maxMessage)
}

// maxMessage bounds a server's message inside mm's one-line errors.
const maxMessage = 500

// jsonReason shortens a decoding error to what a user can act on.
func jsonReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return clip(collapse(se.Error()), 200)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			return "unexpected " + te.Value
		}
		return "unexpected " + te.Value + " for " + field
	}
	return clip(collapse(strings.TrimPrefix(err.Error(), "json: ")), 200)
}

// collapse turns any run of whitespace into one space, so that text from a
// server cannot break mm's one-line errors.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to at most n bytes on a character boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !isRuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
