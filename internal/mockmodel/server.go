package mockmodel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Sizes of the pieces a streamed reply is cut into. They are small so that
// every client-side reassembly path is exercised even by short replies.
const (
	textPieceRunes = 4 // runes of assistant text per chunk
	argsPieceBytes = 8 // bytes (rounded up to a rune boundary) of tool arguments per chunk
	noMatchPreview = 200
)

// listedModel and modelList are GET /v1/models' answer, the OpenAI shape
// every server writes (its owned_by aside).
type listedModel struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

type modelList struct {
	Object string        `json:"object"`
	Data   []listedModel `json:"data"`
}

// Recorded is one request the server received, kept so tests can assert on
// exactly what the client sent.
type Recorded struct {
	Time time.Time
	// Body is the request body as received, compacted; a body that is not
	// JSON is kept as a JSON string so that Body is always valid JSON.
	Body json.RawMessage
}

// Server answers chat-completions requests from a Script. It is an
// http.Handler so tests can mount it on httptest.NewServer, and it can also
// listen by itself with Start for the mockmodel command.
type Server struct {
	script     *Script
	profile    *profile // nil: the generic stream
	bad        []error  // bad[i]: why Replies[i] (built in Go, not parsed) is invalid
	recordPath string
	created    int64 // unix time of New, reported by /v1/models

	mu   sync.Mutex // guards used
	used []bool     // used[i]: script.Replies[i] has answered and does not repeat

	recMu    sync.Mutex // guards n, requests and writes to recordPath
	n        int        // requests numbered so far
	requests []Recorded

	slots chan struct{} // a token a request being answered; nil: no limit

	startMu   sync.Mutex
	ln        net.Listener
	hs        *http.Server
	closed    chan struct{}
	closeOnce sync.Once
}

// New makes a server for script s. When recordPath is not empty every
// request is also appended to that file as one JSON line, so a test driving
// a separate mm process can inspect what it sent. The file is appended to,
// never truncated.
func New(s *Script, recordPath string) *Server {
	// The server works on its own copy so that preparing a Script built in
	// Go (rather than parsed) never writes to the caller's values.
	sc := &Script{}
	var bad []error
	if s != nil {
		sc.Profile, sc.Slots = s.Profile, s.Slots
		sc.Models = append([]Model(nil), s.Models...)
		sc.Replies = append([]Reply(nil), s.Replies...)
		bad = make([]error, len(sc.Replies))
		for i := range sc.Replies {
			r := &sc.Replies[i]
			r.ToolCalls = append([]ToolCall(nil), r.ToolCalls...)
			if r.tmpl == nil {
				if err := r.prepare(); err != nil {
					bad[i] = fmt.Errorf("mockmodel: reply %d: %w", i+1, err)
				}
			}
		}
	}
	var slots chan struct{}
	if sc.Slots > 0 {
		slots = make(chan struct{}, sc.Slots)
	}
	return &Server{
		slots:      slots,
		script:     sc,
		profile:    profiles[sc.Profile],
		bad:        bad,
		recordPath: recordPath,
		created:    time.Now().Unix(),
		used:       make([]bool, len(sc.Replies)),
		closed:     make(chan struct{}),
	}
}

// SetProfile makes the server write as the named real server does
// (overriding the script's profile); "" for the generic stream.
func (s *Server) SetProfile(name string) error {
	if name == "" {
		s.profile = nil
		return nil
	}
	p := profiles[name]
	if p == nil {
		return fmt.Errorf("mockmodel: profile %q: want one of %s", name, strings.Join(ProfileNames(), ", "))
	}
	s.profile = p
	return nil
}

// Start listens on addr ("127.0.0.1:0" when empty) and serves in the
// background until Close. It returns the base URL a client is configured
// with, "http://127.0.0.1:<port>/v1".
func (s *Server) Start(addr string) (baseURL string, err error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.hs != nil {
		return "", errors.New("mockmodel: already started")
	}
	select {
	case <-s.closed:
		return "", errors.New("mockmodel: server closed")
	default:
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("mockmodel: %w", err)
	}
	s.ln = ln
	s.hs = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.hs.Serve(ln)
	return "http://" + ln.Addr().String() + "/v1", nil
}

// Addr returns the address the server listens on, "127.0.0.1:<port>", the
// form LLMMAN_HOST takes; it is empty before Start.
func (s *Server) Addr() string {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Close stops the server at once, dropping open connections, and makes any
// request still waiting out a delay give up, so tests end promptly. It is
// safe to call more than once and without Start.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { close(s.closed) })
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.hs == nil {
		return nil
	}
	if err := s.hs.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("mockmodel: %w", err)
	}
	return nil
}

// Requests returns a copy of every chat-completions request received so
// far, in arrival order, including those answered with an error.
func (s *Server) Requests() []Recorded {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	return append([]Recorded(nil), s.requests...)
}

// ServeHTTP answers POST /v1/chat/completions and GET /v1/models (also
// without the /v1 prefix, as llama-server accepts), and with the ollama
// profile Ollama's POST /api/show. A reply scripted with
// cut aborts the connection by panicking with http.ErrAbortHandler, which
// net/http handles silently; call it through a real http.Server.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	path = strings.TrimPrefix(path, "/v1")
	switch path {
	case "/chat/completions":
		s.chat(w, r)
	case "/models":
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			writeError(w, http.StatusMethodNotAllowed, "mockmodel: method not allowed")
			return
		}
		if p := s.profile; p != nil && p.models != nil {
			ctype, b := p.models(s.models(), s.created)
			writeRaw(w, http.StatusOK, ctype, b)
			return
		}
		var data []listedModel
		for _, m := range s.models() {
			data = append(data, listedModel{m.ID, "model", s.created, "mockmodel"})
		}
		writeJSON(w, http.StatusOK, modelList{"list", data})
	case "/api/show":
		// Ollama's native API (not under /v1): only its profile has it.
		if p := s.profile; p != nil && p.show != nil && r.URL.Path == "/api/show" {
			var req struct {
				Model string `json:"model"`
				Name  string `json:"name"` // the older spelling
			}
			body, _ := io.ReadAll(r.Body)
			if r.Method != http.MethodPost || json.Unmarshal(body, &req) != nil {
				writeRaw(w, http.StatusBadRequest, "application/json; charset=utf-8", []byte(`{"error":"invalid request"}`))
				return
			}
			name := cmpOr(req.Model, req.Name)
			for _, m := range s.models() {
				if m.ID == name {
					ctype, b := p.show(m, s.created)
					writeRaw(w, http.StatusOK, ctype, b)
					return
				}
			}
			// server/routes.go ShowHandler: os.IsNotExist
			writeRaw(w, http.StatusNotFound, "application/json; charset=utf-8", goJSON(map[string]string{"error": "model '" + name + "' not found"}))
			return
		}
		writeError(w, http.StatusNotFound, "mockmodel: no such endpoint: "+r.URL.Path)
	default:
		writeError(w, http.StatusNotFound, "mockmodel: no such endpoint: "+r.URL.Path)
	}
}

// models are the models the server lists: the script's, or "scripted".
func (s *Server) models() []Model {
	if len(s.script.Models) > 0 {
		return s.script.Models
	}
	return []Model{{ID: "scripted"}}
}

// model is the script's model named name, nil when the script lists none
// such (a request for it is then answered with no limit).
func (s *Server) model(name string) *Model {
	for i := range s.script.Models {
		if s.script.Models[i].ID == name {
			return &s.script.Models[i]
		}
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// chatRequest is the part of a chat-completions request the server reads.
type chatRequest struct {
	Model         string            `json:"model"`
	Tools         []json.RawMessage `json:"tools"`
	Stream        bool              `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []historyMessage `json:"messages"`
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, readErr := io.ReadAll(r.Body)
	n, recErr := s.record(body)
	if readErr != nil {
		writeError(w, http.StatusBadRequest, "mockmodel: reading request: "+readErr.Error())
		return
	}
	if recErr != nil {
		writeError(w, http.StatusInternalServerError, "mockmodel: recording request: "+recErr.Error())
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "mockmodel: method not allowed")
		return
	}
	if s.slots != nil {
		select {
		case s.slots <- struct{}{}:
			defer func() { <-s.slots }()
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		}
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "mockmodel: bad request body: "+err.Error())
		return
	}
	if req.Model == "" {
		req.Model = "scripted"
	}
	d := TemplateData{Model: req.Model, N: n}
	for i, m := range req.Messages {
		text := contentText(m.Content)
		if i == len(req.Messages)-1 {
			d.Last = text
		}
		switch m.Role {
		case "user":
			d.LastUser = text
		case "system":
			if d.System == "" {
				d.System = text
			}
		}
	}

	if p := s.profile; p != nil && p.refuse != nil {
		if status, msg := p.refuse(req.Messages); status != 0 {
			ctype, b := p.errorBody(status, msg, nil)
			writeRaw(w, status, ctype, b)
			return
		}
	}
	// What the server does with the model before it generates: a model
	// whose template takes no tools (Ollama refuses the request), a prompt
	// longer than the window (llama-server, vLLM and LM Studio refuse it;
	// Ollama cuts it, below).
	counted := len(body)/4 + 1
	m := s.model(req.Model)
	if p := s.profile; p != nil && m == nil && len(s.script.Models) > 0 && !p.anyModel {
		a := &answer{model: req.Model, reply: &Reply{ServerError: "modelNotFound"}}
		status, msg, _ := p.serverError("modelNotFound", a)
		ctype, b := p.errorBody(status, msg, a)
		writeRaw(w, status, ctype, b)
		return
	}
	if p := s.profile; p != nil && m != nil {
		if m.NoTools && len(req.Tools) > 0 && p.noTools != nil {
			status, msg := p.noTools(req.Model)
			ctype, b := p.errorBody(status, msg, &answer{model: req.Model, reply: &Reply{}})
			writeRaw(w, status, ctype, b)
			return
		}
		if m.Window > 0 && counted > m.Window && !p.cutsPrompt {
			a := &answer{model: req.Model, reply: &Reply{ServerError: "contextExceeded"}, window: m.Window,
				usage: usage{PromptTokens: counted}}
			status, msg, _ := p.serverError("contextExceeded", a)
			ctype, b := p.errorBody(status, msg, a)
			writeRaw(w, status, ctype, b)
			return
		}
	}
	reply, err := s.pick(d.Last, d.Model)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if reply == nil {
		preview := d.Last
		if utf8.RuneCountInString(preview) > noMatchPreview {
			preview = string([]rune(preview)[:noMatchPreview])
		}
		writeError(w, http.StatusInternalServerError,
			"mockmodel: no scripted reply matches the last message: "+preview)
		return
	}
	text, err := reply.text(d)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "mockmodel: text template: "+err.Error())
		return
	}
	a := answer{
		id:        "chatcmpl-" + strconv.Itoa(n),
		n:         n,
		created:   time.Now().Unix(),
		model:     req.Model,
		text:      text,
		reasoning: reply.Reasoning,
		reply:     reply,
		calls:     make([]wireToolCall, len(reply.ToolCalls)),
		finish:    "stop",
		usage:     usage{PromptTokens: counted},
		// Every profile's server honours include_usage; the generic stream
		// always ends with usage.
		includeUsage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage,
	}
	if reply.PromptTokens > 0 {
		a.usage.PromptTokens = reply.PromptTokens
	}
	if m != nil && m.Window > 0 {
		a.window = m.Window
		if s.profile != nil && s.profile.cutsPrompt {
			// Ollama keeps the prompt's end that fits and counts only it.
			a.usage.PromptTokens = min(a.usage.PromptTokens, m.Window)
		}
	}
	a.usage.CompletionTokens = len(text)/4 + len(reply.Reasoning)/4 + 1
	for i, c := range reply.ToolCalls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", n, i)
		}
		a.calls[i] = wireToolCall{Index: i, ID: id, Type: "function",
			Function: wireFunction{Name: c.Name, Arguments: c.args}}
		a.usage.CompletionTokens += len(c.args)/4 + 1
	}
	a.usage.TotalTokens = a.usage.PromptTokens + a.usage.CompletionTokens
	if len(a.calls) > 0 {
		a.finish = "tool_calls"
	}
	if reply.FinishReason != "" {
		a.finish = reply.FinishReason
	}
	if !s.wait(r.Context(), reply.Delay) {
		return
	}
	p := s.profile
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
	status, msg := reply.Status, reply.ErrorMessage
	if reply.ServerError != "" {
		if p == nil {
			writeError(w, http.StatusInternalServerError, "mockmodel: serverError needs a profile")
			return
		}
		st, m, ok := p.serverError(reply.ServerError, &a)
		if !ok {
			writeError(w, http.StatusInternalServerError, "mockmodel: "+p.name+" has no "+reply.ServerError+" error")
			return
		}
		status, msg = st, m
	}
	if status != 0 {
		if msg == "" {
			msg = "scripted error"
		}
		if p == nil {
			writeError(w, status, msg)
			return
		}
		ctype, b := p.errorBody(status, msg, &a)
		writeRaw(w, status, ctype, b)
		return
	}
	if reply.Garbage {
		writeGarbage(w, n)
		return
	}
	if req.Stream {
		s.stream(w, r.Context(), &a)
	} else {
		s.whole(w, &a)
	}
}

// writeGarbage answers 200 with reproducible bytes that are no
// chat-completions reply (a broken proxy, a server speaking another
// protocol), then ends.
func writeGarbage(w http.ResponseWriter, seed int) {
	b := make([]byte, 4096)
	x := uint64(seed)*0x9E3779B97F4A7C15 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
	b[0] = 0x8b // never the start of an SSE field or a JSON object
	writeRaw(w, http.StatusOK, "application/octet-stream", b)
}

// pick selects, and uses up unless it repeats, the first available reply
// whose match accepts last; nil when there is none. A reply that failed to
// prepare is picked with its error, so the request that reaches it fails
// loudly.
func (s *Server) pick(last, model string) (*Reply, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.script.Replies {
		r := &s.script.Replies[i]
		if s.used[i] {
			continue
		}
		if s.bad[i] == nil && r.re != nil && !r.re.MatchString(last) {
			continue
		}
		if s.bad[i] == nil && r.modelRe != nil && !r.modelRe.MatchString(model) {
			continue
		}
		if !r.Repeat {
			s.used[i] = true
		}
		return r, s.bad[i]
	}
	return nil, nil
}

// record numbers and stores one request, and appends it to the record file
// in a single write so concurrent requests never interleave within a line.
func (s *Server) record(body []byte) (int, error) {
	var raw bytes.Buffer
	if json.Valid(body) {
		json.Compact(&raw, body)
	} else {
		q, _ := json.Marshal(string(body))
		raw.Write(q)
	}
	now := time.Now()
	s.recMu.Lock()
	defer s.recMu.Unlock()
	s.n++
	s.requests = append(s.requests, Recorded{Time: now, Body: json.RawMessage(raw.Bytes())})
	if s.recordPath == "" {
		return s.n, nil
	}
	ts, _ := json.Marshal(now.Format(time.RFC3339Nano))
	line := make([]byte, 0, raw.Len()+64)
	line = append(line, `{"time":`...)
	line = append(line, ts...)
	line = append(line, `,"body":`...)
	line = append(line, raw.Bytes()...)
	line = append(line, "}\n"...)
	f, err := os.OpenFile(s.recordPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return s.n, err
	}
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return s.n, err
}

// wait sleeps for d unless the client goes away or the server closes first;
// it reports whether the reply should still be sent.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.closed:
		return false
	}
}

// answer is one reply rendered for one request.
type answer struct {
	id           string
	n            int // the request's number
	created      int64
	model        string
	text         string
	reasoning    string
	reply        *Reply
	calls        []wireToolCall
	finish       string
	usage        usage
	includeUsage bool
	window       int // the model's window when the script gives one
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type wireToolCall struct {
	Index    int          `json:"index"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// whole writes a non-streamed chat.completion.
func (s *Server) whole(w http.ResponseWriter, a *answer) {
	if s.profile != nil && !a.reply.Cut {
		ctype, b := s.profile.whole(a)
		writeRaw(w, http.StatusOK, ctype, b)
		return
	}
	type toolCall struct {
		ID       string       `json:"id"`
		Type     string       `json:"type"`
		Function wireFunction `json:"function"`
	}
	type message struct {
		Role      string     `json:"role"`
		Content   *string    `json:"content"`
		ToolCalls []toolCall `json:"tool_calls,omitempty"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Message      message `json:"message"`
		FinishReason string  `json:"finish_reason"`
	}
	msg := message{Role: "assistant", Content: &a.text}
	if a.text == "" && len(a.calls) > 0 {
		msg.Content = nil
	}
	for _, c := range a.calls {
		msg.ToolCalls = append(msg.ToolCalls, toolCall{c.ID, c.Type, c.Function})
	}
	body := marshal(struct {
		ID      string   `json:"id"`
		Object  string   `json:"object"`
		Created int64    `json:"created"`
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
		Usage   usage    `json:"usage"`
	}{a.id, "chat.completion", a.created, a.model,
		[]choice{{0, msg, a.finish}}, a.usage})
	body = append(body, '\n')
	if !a.reply.Cut {
		writeRaw(w, http.StatusOK, "application/json", body)
		return
	}
	// A cut non-streamed reply promises the whole body and delivers half.
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body[:len(body)/2])
	http.NewResponseController(w).Flush()
	panic(http.ErrAbortHandler)
}

// stream writes the reply as server-sent events, the way llama-server does.
func (s *Server) stream(w http.ResponseWriter, ctx context.Context, a *answer) {
	if s.profile != nil {
		s.streamProfile(w, ctx, a)
		return
	}
	type toolDelta struct {
		ToolCalls []wireToolCall `json:"tool_calls"`
	}
	// The pieces between the role chunk and the finish chunk.
	var deltas []any
	content := a.text
	if a.reasoning != "" && a.reply.ThinkTags {
		content = "<think>\n" + a.reasoning + "\n</think>\n\n" + a.text
	} else {
		for _, p := range splitRunes(a.reasoning, textPieceRunes) {
			deltas = append(deltas, struct {
				ReasoningContent string `json:"reasoning_content"`
			}{p})
		}
	}
	for _, p := range splitRunes(content, a.reply.textPiece()) {
		deltas = append(deltas, struct {
			Content string `json:"content"`
		}{p})
	}
	if a.reply.WholeToolCalls {
		if len(a.calls) > 0 {
			deltas = append(deltas, toolDelta{a.calls})
		}
	} else {
		for _, c := range a.calls {
			head := c
			head.Function.Arguments = ""
			deltas = append(deltas, toolDelta{[]wireToolCall{head}})
			for _, p := range splitBytes(c.Function.Arguments, argsPieceBytes) {
				deltas = append(deltas, toolDelta{[]wireToolCall{{
					Index: c.Index, Function: wireFunction{Arguments: p}}}})
			}
		}
	}

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	first := true
	send := func(delta any, finish *string, u *usage) bool {
		if !first && !s.wait(ctx, a.reply.ChunkDelay) {
			return false
		}
		first = false
		if ctx.Err() != nil {
			return false
		}
		type choice struct {
			Index        int     `json:"index"`
			Delta        any     `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		}
		b := marshal(struct {
			ID      string   `json:"id"`
			Object  string   `json:"object"`
			Created int64    `json:"created"`
			Model   string   `json:"model"`
			Choices []choice `json:"choices"`
			Usage   *usage   `json:"usage,omitempty"`
		}{a.id, "chat.completion.chunk", a.created, a.model,
			[]choice{{0, delta, finish}}, u})
		return writeEvent(w, rc, b)
	}

	role := struct {
		Role    string  `json:"role"`
		Content *string `json:"content"`
	}{Role: "assistant"}
	if !send(role, nil, nil) {
		return
	}
	if a.reply.Cut || a.reply.Stall {
		for _, d := range deltas[:(len(deltas)+1)/2] {
			if !send(d, nil, nil) {
				return
			}
		}
		s.endEarly(ctx, a)
	}
	for _, d := range deltas {
		if !send(d, nil, nil) {
			return
		}
	}
	if !send(struct{}{}, &a.finish, &a.usage) {
		return
	}
	writeEvent(w, rc, []byte("[DONE]"))
}

// streamProfile writes the reply as the profile's server streams it.
func (s *Server) streamProfile(w http.ResponseWriter, ctx context.Context, a *answer) {
	chunks := s.profile.chunks(a)
	h := w.Header()
	h.Set("Content-Type", s.profile.streamType)
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if a.reply.Cut || a.reply.Stall {
		chunks = chunks[:(len(chunks)+1)/2]
	}
	for i, c := range chunks {
		if i > 0 && !s.wait(ctx, a.reply.ChunkDelay) {
			return
		}
		if !writeEvent(w, rc, c) {
			return
		}
	}
	if a.reply.Cut && s.profile.died != nil {
		// The server outlives its runner: it ends the stream its own way.
		writeEvent(w, rc, s.profile.died(a))
		return
	}
	if a.reply.Cut || a.reply.Stall {
		s.endEarly(ctx, a)
	}
	writeEvent(w, rc, []byte("[DONE]"))
}

// endEarly ends a reply scripted to stop in its middle: cut drops the
// connection; stall keeps it open and silent until the client leaves or
// the server closes.
func (s *Server) endEarly(ctx context.Context, a *answer) {
	if a.reply.Stall {
		select {
		case <-ctx.Done():
		case <-s.closed:
		}
	}
	panic(http.ErrAbortHandler)
}

// writeEvent writes one "data:" event and flushes it; false when the client
// is gone.
func writeEvent(w io.Writer, rc *http.ResponseController, data []byte) bool {
	buf := make([]byte, 0, len(data)+8)
	buf = append(buf, "data: "...)
	buf = append(buf, data...)
	buf = append(buf, "\n\n"...)
	if _, err := w.Write(buf); err != nil {
		return false
	}
	return rc.Flush() == nil
}

// marshal encodes v as compact JSON without HTML escaping, as the C++ and
// Go servers mm talks to do.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("mockmodel: " + err.Error()) // only our own types are encoded
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	writeRaw(w, status, "application/json", append(marshal(v), '\n'))
}

// writeError answers with the OpenAI error shape clients parse for the
// message they show the user.
func writeError(w http.ResponseWriter, status int, msg string) {
	type detail struct {
		Message string `json:"message"`
	}
	writeJSON(w, status, struct {
		Error detail `json:"error"`
	}{detail{msg}})
}

func writeRaw(w http.ResponseWriter, status int, ctype string, body []byte) {
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// contentText returns the text of a message's content, which the wire
// allows to be a string, null, or an array of parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" || p.Type == "" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// splitRunes cuts s into pieces of n runes (the last may be shorter).
func splitRunes(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for k := 0; k < n && i < len(s); k++ {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// splitBytes cuts s into pieces of about n bytes, never inside a rune, so
// that each piece is valid UTF-8 in its JSON string.
func splitBytes(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		i := min(n, len(s))
		for i < len(s) && !utf8.RuneStart(s[i]) {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}
