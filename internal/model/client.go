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
	"strconv"
	"strings"
	"syscall"
)

// Client talks to one OpenAI-compatible server. It holds no connection
// state of its own, so one Client may serve many calls at once.
type Client struct {
	BaseURL string       // e.g. "http://127.0.0.1:17434/v1"; a trailing slash is tolerated
	APIKey  string       // sent as "Authorization: Bearer <key>" when not empty
	Stream  bool         // true: ask for SSE so text shows as it is written; false: one JSON reply
	Hint    string       // what the user should start when the server cannot be reached
	HTTP    *http.Client // nil: http.DefaultClient, which has no overall timeout (local models are slow)
}

// Error is every error Chat reports except a cancelled or expired context.
// It is one line that names the server, made for a user to read as it is,
// so it deliberately wraps nothing.
type Error struct {
	Msg    string
	Status int // the HTTP status when the server answered with one ≥ 400, else 0
}

// Error returns the message as it is: it is already what a user should read.
func (e *Error) Error() string { return e.Msg }

// newError builds an Error, forcing it onto one line whatever a server sent.
func newError(status int, msg string) *Error {
	return &Error{Msg: collapse(msg), Status: status}
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
	ResponseFormat json.RawMessage `json:"response_format,omitempty"`
}

// wireReply is a non-streamed chat-completions reply.
type wireReply struct {
	Choices []struct {
		Message struct {
			Content   *string        `json:"content"`
			ToolCalls []wireToolCall `json:"tool_calls"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Error json.RawMessage `json:"error"`
}

// emptyParameters is sent for a tool without a schema: servers reject null.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// Chat sends req and returns the model's complete reply. onText, when not
// nil, receives the assistant's text as it arrives (streaming) or once
// whole (not streaming), so a caller can show it while the model works.
// Errors are *Error, except ctx.Err() itself when ctx ends first.
func (c *Client) Chat(ctx context.Context, req Request, onText func(delta string)) (Reply, error) {
	base := strings.TrimRight(c.BaseURL, "/")
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Reply{}, newError(0, "invalid model server URL "+strconv.Quote(c.BaseURL)+": it must look like http://host:port/v1")
	}
	body, err := c.encode(req)
	if err != nil {
		return Reply{}, newError(0, "cannot send the request to the model server at "+base+": "+err.Error())
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return Reply{}, newError(0, "invalid model server URL "+strconv.Quote(c.BaseURL)+": "+shortCause(err))
	}
	hreq.Header.Set("Content-Type", "application/json")
	if c.Stream {
		hreq.Header.Set("Accept", "text/event-stream")
	} else {
		hreq.Header.Set("Accept", "application/json")
	}
	if c.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return Reply{}, ctx.Err()
		}
		msg := "cannot reach the model server at " + base + " (" + shortCause(err) + ")"
		if c.Hint != "" {
			msg += "; " + c.Hint
		}
		return Reply{}, newError(0, msg)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return Reply{}, statusError(base, resp)
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
	var reply Reply
	if streamed {
		reply, err = readStream(resp.Body, onText)
	} else {
		reply, err = readReply(resp.Body, onText)
	}
	if err != nil {
		if ctx.Err() != nil {
			return Reply{}, ctx.Err()
		}
		var se *serverError
		if errors.As(err, &se) {
			return Reply{}, newError(0, "model server at "+base+" reported an error: "+se.msg)
		}
		return Reply{}, newError(0, "model server at "+base+": "+err.Error())
	}
	return reply, nil
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
	data, err := io.ReadAll(r)
	if err != nil {
		return Reply{}, &cutError{cause: shortCause(err)}
	}
	trimmed := bytes.TrimSpace(data)
	if bytes.HasPrefix(trimmed, []byte("data:")) || bytes.HasPrefix(trimmed, []byte(":")) || bytes.HasPrefix(trimmed, []byte("event:")) {
		return readStream(bytes.NewReader(data), onText)
	}
	if len(trimmed) == 0 {
		return Reply{}, &invalidError{reason: "empty body"}
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
	var reply Reply
	if ch.Message.Content != nil {
		reply.Content = *ch.Message.Content
	}
	if ch.FinishReason != nil {
		reply.FinishReason = *ch.FinishReason
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
		reply.ToolCalls = append(reply.ToolCalls, ToolCall{ID: tc.ID, Type: "function",
			Function: FunctionCall{Name: tc.Function.Name, Arguments: args}})
	}
	if reply.Content != "" && onText != nil {
		onText(reply.Content)
	}
	return reply, nil
}

// statusError turns an HTTP error answer into one line with the server's
// own message, which usually says what is wrong (model not found, context
// too long).
func statusError(base string, resp *http.Response) *Error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	msg := "model server at " + base + " answered " + strconv.Itoa(resp.StatusCode)
	if t := http.StatusText(resp.StatusCode); t != "" {
		msg += " " + t
	}
	if m := bodyMessage(data); m != "" {
		msg += ": " + m
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		msg += "; check the API key"
	}
	return newError(resp.StatusCode, msg)
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

// shortCause names why a connection failed in a few words ("connection
// refused", "no such host") instead of Go's whole "dial tcp …" chain.
func shortCause(err error) string {
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
		return "connection closed by the server"
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
