package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mm-agent/mm/internal/tracing"
)

// Client talks to one OpenAI-compatible server. It holds no connection
// state of its own, so one Client may serve many calls at once.
type Client struct {
	BaseURL string       // e.g. "http://127.0.0.1:17434/v1"; a trailing slash is tolerated
	APIKey  string       // sent as "Authorization: Bearer <key>" when not empty
	Stream  bool         // true: ask for SSE so text shows as it is written; false: one JSON reply
	Hint    string       // what the user should start when the server cannot be reached
	HTTP    *http.Client // nil: http.DefaultClient, which has no overall timeout (local models are slow)
	// Provider is the provider's name in the config ("ollama", "lab"), for
	// the hints of the errors that depend on it.
	Provider string
	// APIKeyEnv is the variable the key comes from, named by a 401 when it
	// is not set.
	APIKeyEnv string
	// IdleTimeout is the longest wait for the next byte of a reply (the
	// headers included); 0: no limit.
	IdleTimeout time.Duration
	// NoUsage leaves out stream_options, for a server that rejects it.
	NoUsage bool
}

// ErrorKind tells the errors a caller reacts to apart.
type ErrorKind int

// The kinds of Error.
const (
	ErrOther         ErrorKind = iota
	ErrUnreachable             // nothing answered at the URL
	ErrStatus                  // an HTTP error status
	ErrModelNotFound           // the server does not have the model
	ErrContextLength           // the request is longer than the model's context
	ErrCut                     // the reply ended before it was complete
	ErrIdle                    // no byte for IdleTimeout
	ErrNotStream               // the body is not a chat-completions reply
	ErrNoTools                 // the model takes no tools, and the request offered some
)

// NoToolsHint follows the error of a model that takes no tools (the
// contract's "Local models as they are").
const NoToolsHint = "use a model with tool support, or tools: [] in the config"

// Error is every error Chat reports except a cancelled or expired context.
// It is one line that names the server, made for a user to read as it is,
// so it deliberately wraps nothing.
type Error struct {
	Msg    string
	Status int // the HTTP status when the server answered with one ≥ 400, else 0
	Kind   ErrorKind
	// Cause says in a few words why a reply that had started ended, for
	// the marker the history keeps after it ("connection closed by the
	// server"); for ErrContextLength, the server's own message.
	Cause string
	// Window is, for ErrContextLength, the model's context in tokens when
	// the server said it; 0 otherwise.
	Window int
}

// Error returns the message as it is: it is already what a user should read.
func (e *Error) Error() string { return e.Msg }

// newError builds an Error, forcing it onto one line whatever a server sent.
func newError(status int, msg string) *Error {
	return &Error{Msg: collapse(msg), Status: status, Kind: ErrOther}
}

func kindError(kind ErrorKind, status int, msg, cause string) *Error {
	return &Error{Msg: collapse(msg), Status: status, Kind: kind, Cause: collapse(cause)}
}

// wireTool is a ToolDef in the wire's {"type":"function","function":…} shape.
type wireTool struct {
	Type     string  `json:"type"`
	Function ToolDef `json:"function"`
}

// wireRequest is the chat-completions request body.
type wireRequest struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	Tools          []wireTool      `json:"tools,omitempty"`
	Stream         bool            `json:"stream"`
	StreamOptions  *streamOptions  `json:"stream_options,omitempty"`
	ResponseFormat json.RawMessage `json:"response_format,omitempty"`
}

// streamOptions asks for the usage chunk at the end of a stream (OpenAI,
// llama-server, vLLM, Ollama and LM Studio all accept it; OpenAI and vLLM
// refuse it without stream).
type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// wireReply is a non-streamed chat-completions reply.
type wireReply struct {
	Choices []struct {
		Message struct {
			Content          *string        `json:"content"`
			ReasoningContent *string        `json:"reasoning_content"`
			Reasoning        *string        `json:"reasoning"`
			ToolCalls        []wireToolCall `json:"tool_calls"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Error json.RawMessage `json:"error"`
	wireUsage
}

// emptyParameters is sent for a tool without a schema: servers reject null.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// Retries of a server that answered 429 or 503: at most maxRetries, after
// the server's Retry-After (at most maxRetryAfter), else 1 s, 2 s, 4 s.
const (
	maxRetries    = 3
	maxRetryAfter = 30 * time.Second
)

// retryWait is the wait before retry n (1-based) without Retry-After.
func retryWait(n int) time.Duration { return time.Second << (n - 1) }

// Chat sends req and returns the model's complete reply. onText, when not
// nil, receives the assistant's text as it arrives (streaming) or once
// whole (not streaming), so a caller can show it while the model works.
// Errors are *Error, except ctx.Err() itself when ctx ends first; with an
// error, the Reply holds what had arrived.
func (c *Client) Chat(ctx context.Context, req Request, onText func(delta string)) (rep Reply, err error) {
	ctx, span := tracing.Start(ctx, "chat "+req.Model, tracing.Client,
		tracing.String("gen_ai.operation.name", "chat"), tracing.String("gen_ai.provider.name", c.Provider),
		tracing.String("gen_ai.request.model", req.Model), tracing.String("server.address", c.BaseURL))
	if span != nil {
		if tracing.Content() {
			if b, err := json.Marshal(req.Messages); err == nil {
				span.SetContent(tracing.String("gen_ai.input.messages", string(b)))
			}
		}
		defer func() { endChatSpan(span, rep, err) }()
	}
	base := strings.TrimRight(c.BaseURL, "/")
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Reply{}, newError(0, "invalid model server URL "+strconv.Quote(c.BaseURL)+": it must look like http://host:port/v1")
	}
	body, err := c.encode(req)
	if err != nil {
		return Reply{}, newError(0, "cannot send the request to the model server at "+base+": "+err.Error())
	}
	for attempt := 0; ; attempt++ {
		rep, err, retry := c.send(ctx, base, body, req, onText)
		if retry == nil || attempt >= maxRetries {
			return rep, err
		}
		retry.Attempt, retry.Max = attempt+1, maxRetries
		if retry.Wait < 0 {
			retry.Wait = retryWait(attempt + 1)
		}
		if req.OnRetry != nil {
			req.OnRetry(*retry)
		}
		t := time.NewTimer(retry.Wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return Reply{}, ctx.Err()
		case <-t.C:
		}
	}
}

// endChatSpan records a model request's outcome in the GenAI conventions'
// terms: the finish reason, the tokens the server counted, the error.
func endChatSpan(span *tracing.Span, rep Reply, err error) {
	if rep.FinishReason != "" {
		span.Set(tracing.StringSlice("gen_ai.response.finish_reasons", []string{rep.FinishReason}))
	}
	if rep.Usage != nil {
		span.Set(tracing.Int("gen_ai.usage.input_tokens", rep.Usage.PromptTokens),
			tracing.Int("gen_ai.usage.output_tokens", rep.Usage.CompletionTokens))
	}
	if len(rep.ToolCalls) > 0 {
		span.Set(tracing.Int("mm.response.tool_calls", len(rep.ToolCalls)))
	}
	if tracing.Content() {
		if b, err := json.Marshal(Message{Role: "assistant", Content: rep.Content, ToolCalls: rep.ToolCalls}); err == nil {
			span.SetContent(tracing.String("gen_ai.output.messages", "["+string(b)+"]"))
		}
	}
	if err != nil {
		span.Error(err)
	} else {
		span.OK()
	}
	span.End()
}

// send makes one attempt. A 429 or 503 comes back as the error it would
// be and the retry to make.
func (c *Client) send(ctx context.Context, base string, body []byte, req Request, onText func(string)) (Reply, error, *Retry) {
	// The idle watch cancels the request when the server sends nothing for
	// IdleTimeout, the wait for the headers included.
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	idle := newIdleWatch(c.IdleTimeout, cancel)
	defer idle.stop()

	accept := "application/json"
	if c.Stream {
		accept = "text/event-stream"
	}
	resp, err := c.do(ctx, rctx, idle, base, http.MethodPost, base+"/chat/completions", body, accept)
	if err != nil {
		return Reply{}, err, nil
	}
	defer resp.Body.Close()
	resp.Body = idle.reader(resp.Body)
	if resp.StatusCode >= 400 {
		e, msg := c.statusError(base, req.Model, resp)
		if idle.fired() {
			return Reply{}, c.idleError(base, ""), nil
		}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			return Reply{}, e, &Retry{Server: base, Status: resp.StatusCode, Message: msg,
				Wait: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
		}
		return Reply{}, e, nil
	}

	// Trust what the server says it sent over what was asked for: some
	// servers ignore "stream" one way or the other.
	streamed := c.Stream
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err == nil {
		switch mt {
		case "text/event-stream":
			streamed = true
		case "application/json":
			streamed = false
		}
	}
	sk := sink{onText: onText, onReasoning: req.OnReasoning}
	var rep Reply
	if streamed {
		rep, err = readStreamTo(resp.Body, sk)
	} else {
		rep, err = readReplyTo(resp.Body, sk)
	}
	if err == nil {
		return rep, nil, nil
	}
	switch {
	case ctx.Err() != nil:
		return rep, ctx.Err(), nil
	case idle.fired():
		return rep, c.idleError(base, "the server stopped sending"), nil
	}
	var (
		se *serverError
		ce *cutError
		ne *notStreamError
	)
	switch {
	case errors.As(err, &se):
		return rep, kindError(ErrOther, 0, "model server at "+base+" reported an error: "+se.msg, "the server reported an error: "+se.msg), nil
	case errors.As(err, &ce):
		cause := ce.cause
		if cause == "" {
			cause = "the stream ended early"
		}
		return rep, kindError(ErrCut, 0, "model server at "+base+": "+err.Error(), cause), nil
	case errors.As(err, &ne):
		return rep, kindError(ErrNotStream, 0, "model server at "+base+" "+err.Error(), "not a chat-completions stream"), nil
	}
	return rep, kindError(ErrOther, 0, "model server at "+base+": "+err.Error(), err.Error()), nil
}

// idleError is the one line of a server that went quiet for IdleTimeout.
func (c *Client) idleError(base, what string) *Error {
	d := Duration(c.IdleTimeout)
	msg := "no reply from the model server at " + base + " for " + d
	if what != "" {
		msg = "the model server at " + base + " sent nothing for " + d
	}
	msg += " (idleTimeout"
	if c.Provider != "" {
		msg += " of provider " + c.Provider
	}
	msg += ")"
	return kindError(ErrIdle, 0, msg, "no byte from the server for "+d)
}

// retryAfter reads a Retry-After header (seconds or an HTTP date), capped
// at maxRetryAfter; -1 when absent or unreadable (the default waits then).
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	var d time.Duration
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	} else {
		return -1
	}
	return min(max(d, 0), maxRetryAfter)
}

// idleWatch cancels a request when no byte arrives for d.
type idleWatch struct {
	d     time.Duration
	timer *time.Timer
	mu    sync.Mutex
	done  bool // fired
}

func newIdleWatch(d time.Duration, cancel func()) *idleWatch {
	w := &idleWatch{d: d}
	if d > 0 {
		w.timer = time.AfterFunc(d, func() {
			w.mu.Lock()
			w.done = true
			w.mu.Unlock()
			cancel()
		})
	}
	return w
}

func (w *idleWatch) fired() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.done
}

func (w *idleWatch) stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
}

// reader restarts the watch on every byte read through it.
func (w *idleWatch) reader(r io.ReadCloser) io.ReadCloser {
	if w.timer == nil {
		return r
	}
	return &idleReader{ReadCloser: r, w: w}
}

type idleReader struct {
	io.ReadCloser
	w *idleWatch
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 {
		r.w.timer.Reset(r.w.d)
	}
	return n, err
}

// encode builds the request body. Its errors name the part that is not
// JSON, since json.Marshal's own would not say which.
func (c *Client) encode(req Request) ([]byte, error) {
	w := wireRequest{
		Model:          req.Model,
		Messages:       req.Messages,
		Stream:         c.Stream,
		ResponseFormat: bytes.TrimSpace(req.ResponseFormat),
	}
	if c.Stream && !c.NoUsage {
		w.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	if len(w.ResponseFormat) > 0 && !json.Valid(w.ResponseFormat) {
		return nil, errors.New("the response format is not valid JSON")
	}
	if w.Messages == nil {
		w.Messages = []Message{}
	}
	for _, t := range req.Tools {
		if len(bytes.TrimSpace(t.Parameters)) == 0 {
			t.Parameters = emptyParameters
		} else if !json.Valid(t.Parameters) {
			return nil, errors.New("the parameters of tool " + strconv.Quote(t.Name) + " are not valid JSON")
		}
		w.Tools = append(w.Tools, wireTool{Type: "function", Function: t})
	}
	body, err := json.Marshal(w)
	if err != nil {
		return nil, errors.New(jsonReason(err))
	}
	return body, nil
}

// readReply decodes a non-streamed reply. A body that turns out to be an
// SSE stream anyway is handed to readStream.
func readReply(r io.Reader, onText func(string)) (Reply, error) {
	return readReplyTo(r, sink{onText: onText})
}

func readReplyTo(r io.Reader, sk sink) (Reply, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Reply{}, &cutError{cause: shortCause(err)}
	}
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(trimmed) > 0 && trimmed[0] != '{' && sseStart(trimmed) != sseNo {
		return readStreamTo(bytes.NewReader(data), sk)
	}
	return decodeReply(data, sk)
}

// decodeReply decodes a whole chat.completion body.
func decodeReply(data []byte, sk sink) (Reply, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(trimmed) == 0 {
		return Reply{}, &invalidError{reason: "empty body"}
	}
	if trimmed[0] != '{' {
		return Reply{}, &notStreamError{first: data}
	}
	var w wireReply
	if err := json.Unmarshal(trimmed, &w); err != nil {
		return Reply{}, &invalidError{reason: jsonReason(err)}
	}
	if hasValue(w.Error) {
		return Reply{}, &serverError{msg: errorText(w.Error)}
	}
	if len(w.Choices) == 0 {
		return Reply{}, &invalidError{reason: "no choices"}
	}
	ch := w.Choices[0]
	rep := &reply{sink: sk, usage: w.usage()}
	if ch.Message.ReasoningContent != nil {
		rep.addReasoning(*ch.Message.ReasoningContent)
	}
	if ch.Message.Reasoning != nil {
		rep.addReasoning(*ch.Message.Reasoning)
	}
	if ch.Message.Content != nil {
		rep.addContent(*ch.Message.Content)
	}
	if ch.FinishReason != nil {
		rep.finish = *ch.FinishReason
	}
	for _, tc := range ch.Message.ToolCalls {
		// Not streamed, each entry is a whole call, whatever its index says.
		args, err := argumentsText(tc.Function.Arguments)
		if err != nil {
			return Reply{}, err
		}
		if tc.ID == "" && tc.Function.Name == "" && args == "" {
			continue
		}
		rep.calls.calls = append(rep.calls.calls, ToolCall{ID: tc.ID, Type: "function",
			Function: FunctionCall{Name: tc.Function.Name}})
		rep.calls.args = append(rep.calls.args, rope{})
		rep.calls.args[len(rep.calls.args)-1].WriteString(args)
		rep.calls.keys = append(rep.calls.keys, len(rep.calls.keys))
	}
	return rep.result(), nil
}

// statusError turns an HTTP error answer into one line with the server's
// own message, which usually says what is wrong, and recognises the
// answers a user can act on: a model the server does not have, a request
// longer than the model's context, a missing API key. It also returns the
// server's message alone.
func (c *Client) statusError(base, modelName string, resp *http.Response) (*Error, string) {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	status := resp.StatusCode
	m := bodyMessage(data)
	lower := strings.ToLower(m + " " + string(data))
	answered := "model server at " + base + " answered " + strconv.Itoa(status)
	if t := http.StatusText(status); t != "" {
		answered += " " + t
	}
	switch {
	case contextLength(status, lower):
		e := kindError(ErrContextLength, status, "the conversation is longer than the model's context ("+answered+": "+m+
			"); set contextBudget below the model's context size so mm compresses older turns, or /compact the session", m)
		e.Window = contextWindow(data, m)
		return e, m
	case modelNotFound(status, lower):
		msg := "model server at " + base + " does not have the model " + strconv.Quote(modelName)
		if m != "" {
			msg += " (" + strconv.Itoa(status) + ": " + m + ")"
		}
		switch c.Provider {
		case "ollama":
			msg += "; run: ollama pull " + modelName
		default:
			msg += "; check the model name (GET " + base + "/models lists the server's models)"
		}
		return kindError(ErrModelNotFound, status, msg, m), m
	}
	msg := answered
	if m != "" {
		msg += ": " + m
	}
	if noTools(status, lower) {
		return kindError(ErrNoTools, status, msg+"; "+NoToolsHint, m), m
	}
	return kindError(ErrStatus, status, msg+c.keyHint(status), m), m
}

// keyHint is what an answer refusing the API key (401, 403) adds to its
// message: the variable the config names and left unset, or to check the
// key; "" for any other status.
func (c *Client) keyHint(status int) string {
	switch {
	case status != http.StatusUnauthorized && status != http.StatusForbidden:
		return ""
	case c.APIKeyEnv != "" && c.APIKey == "":
		return "; the API key variable " + c.APIKeyEnv + " is not set"
	}
	return "; check the API key"
}

// do sends one request of rctx (ctx's, cancelled by idle when the server
// is silent) to the model server at base: the API key, the headers a JSON
// body and accept call for, and a failure to get an answer said as mm says
// it (ctx's own error when ctx ended, the idle timeout, an unreachable
// server with the provider's hint).
func (c *Client) do(ctx, rctx context.Context, idle *idleWatch, base, method, u string, body []byte, accept string) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(rctx, method, u, rd)
	if err != nil {
		return nil, newError(0, "invalid model server URL "+strconv.Quote(c.BaseURL)+": "+shortCause(err))
	}
	req.Header.Set("Accept", accept)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case idle.fired():
			return nil, c.idleError(base, "")
		}
		msg := "cannot reach the model server at " + base + " (" + shortCause(err) + ")"
		if c.Hint != "" {
			msg += "; " + c.Hint
		}
		return nil, kindError(ErrUnreachable, 0, msg, shortCause(err))
	}
	return resp, nil
}

// contextLength recognises the servers' ways of saying a request is longer
// than the model's context: llama-server's exceed_context_size_error
// ("request (9412 tokens) exceeds the available context size (8192
// tokens)"), vLLM's and OpenAI's "maximum context length is …", LM
// Studio's ("… greater than the context length …", and later "the model
// is loaded with context length of only 4096 tokens").
func contextLength(status int, lower string) bool {
	if status != http.StatusBadRequest && status != http.StatusRequestEntityTooLarge && status != http.StatusInternalServerError {
		return false
	}
	for _, s := range []string{"exceed_context_size", "exceeds the available context size", "maximum context length",
		"context_length_exceeded", "context length exceeded", "greater than the context length", "context length of only"} {
		if strings.Contains(lower, s) {
			return true
		}
	}
	return false
}

// windowWords find the model's context in the servers' overflow messages:
// llama-server's "available context size (8192 tokens)", vLLM's "maximum
// context length is 8192 tokens", LM Studio's "context length of only 8192
// tokens" and "greater than the context length (9412 > 8192)".
var windowWords = []*regexp.Regexp{
	regexp.MustCompile(`context size \((\d+) tokens\)`),
	regexp.MustCompile(`maximum context length is (\d+) tokens`),
	regexp.MustCompile(`context length of only (\d+) tokens`),
	regexp.MustCompile(`greater than the context length \(\d+ > (\d+)\)`),
}

// contextWindow is the model's context an overflow error says, 0 when it
// does not: llama-server's n_ctx field, else the message's words.
func contextWindow(body []byte, msg string) int {
	var obj struct {
		Error struct {
			NCtx int `json:"n_ctx"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &obj) == nil && obj.Error.NCtx > 0 {
		return obj.Error.NCtx
	}
	for _, re := range windowWords {
		if sm := re.FindStringSubmatch(msg); sm != nil {
			if n, err := strconv.Atoi(sm[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// noTools recognises a model that takes no tools: Ollama's 400 "<model>
// does not support tools" (server/images.go CheckCapabilities).
func noTools(status int, lower string) bool {
	return status == http.StatusBadRequest && strings.Contains(lower, "does not support tools")
}

// modelNotFound recognises a 404 about the model (Ollama's "model 'x' not
// found", or "model "x" not found, try pulling it first" when its files
// are missing), vLLM's "The model `x` does not exist.",
// LM Studio's model_not_found), and a 400 with OpenAI's model_not_found.
func modelNotFound(status int, lower string) bool {
	switch status {
	case http.StatusNotFound:
		return strings.Contains(lower, "model")
	case http.StatusBadRequest:
		return strings.Contains(lower, "model_not_found")
	}
	return false
}

// bodyMessage finds the message in an error body: error.message or error
// (OpenAI, llama-server, Ollama), message (vLLM), detail (FastAPI), or
// else the start of the body as text.
func bodyMessage(data []byte) string {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return ""
	}
	var obj struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(data, &obj) == nil {
		if hasValue(obj.Error) {
			return errorText(obj.Error)
		}
		for _, f := range []json.RawMessage{obj.Message, obj.Detail} {
			if hasValue(f) {
				return errorText(f)
			}
		}
	}
	return collapse(clip(string(data), 200))
}

// shortCause is NetCause for a model server.
func shortCause(err error) string { return NetCause(err, "the server") }

// NetCause names why a connection to peer ("the server", "the agent")
// failed in a few words ("connection refused", "no such host",
// "connection closed by the server") instead of Go's whole "dial tcp …"
// chain. The model client and the remote agents' client both word their
// errors with it.
func NetCause(err error, peer string) string {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EHOSTUNREACH):
		return "no route to host"
	case errors.Is(err, syscall.ENETUNREACH):
		return "network is unreachable"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed by " + peer
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		switch {
		case dns.IsNotFound:
			return "no such host"
		case dns.IsTimeout:
			return "dns timeout"
		}
		return clip(collapse(dns.Err), 100)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "i/o timeout"
	}
	for {
		u := errors.Unwrap(err)
		if u == nil {
			break
		}
		err = u
	}
	s := err.Error()
	if strings.Contains(strings.ToLower(s), "refused") {
		return "connection refused" // Windows words it differently
	}
	return clip(collapse(s), 100)
}
