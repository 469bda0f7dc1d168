package model

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// serve starts a server whose /v1/chat/completions runs h and returns the
// base URL to give a Client.
func serve(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// writeSlowly sends body as an SSE stream in small flushed pieces, the way
// a model server writes as it generates.
func writeSlowly(w http.ResponseWriter, body string, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	for _, p := range pieces(body, n) {
		if _, err := io.WriteString(w, p); err != nil {
			return
		}
		f.Flush()
	}
}

// checkOneLine asserts the rules every user-visible error follows.
func checkOneLine(t *testing.T, err error) {
	t.Helper()
	if strings.ContainsAny(err.Error(), "\r\n") {
		t.Errorf("error is not one line: %q", err)
	}
	if errors.Unwrap(err) != nil {
		t.Errorf("error wraps another: %#v", err)
	}
	var me *Error
	if !errors.As(err, &me) {
		t.Errorf("error is %T, want *Error", err)
	}
}

func TestChatStream(t *testing.T) {
	for _, tc := range streamCases() {
		t.Run(tc.name, func(t *testing.T) {
			n := 7
			if len(tc.body) > 64<<10 {
				n = 4096
			}
			base := serve(t, func(w http.ResponseWriter, r *http.Request) { writeSlowly(w, tc.body, n) })
			c := &Client{BaseURL: base, Stream: true}
			var got []string
			reply, err := c.Chat(context.Background(), Request{Model: "m"}, func(s string) { got = append(got, s) })
			want := strings.ReplaceAll(tc.chatErr, "URL", base)
			checkResult(t, reply, err, tc.want, want)
			if err != nil {
				checkOneLine(t, err)
				return
			}
			if !reflect.DeepEqual(got, tc.wantText) {
				t.Errorf("onText calls = %q, want %q", got, tc.wantText)
			}
		})
	}
}

func TestChatConnectionDropped(t *testing.T) {
	base := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		writeSlowly(w, sse(callStart(0, "call_1", "write_file"), callArgs(0, `{"path":`)), 1000)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close() // the server died mid-reply: no end of the chunked body
	})
	_, err := (&Client{BaseURL: base, Stream: true}).Chat(context.Background(), Request{}, nil)
	want := "model server at " + base + ": the reply was cut off before it was complete (connection closed by the server)"
	if err == nil || err.Error() != want {
		t.Fatalf("error\n got %v\nwant %s", err, want)
	}
	checkOneLine(t, err)
}

func TestChatNonStream(t *testing.T) {
	cases := []struct {
		name     string
		ctype    string
		body     string
		stream   bool
		want     Reply
		wantText []string
		wantErr  string
	}{
		{
			name:  "tool calls and null content",
			ctype: "application/json",
			body: `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[` +
				`{"id":"call_1","type":"function","function":{"name":"read_file","arguments":` + js(argsA) + `}},` +
				`{"id":"call_2","type":"function","function":{"name":"write_file","arguments":` + js(argsB) + `}}]},` +
				`"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":9,"total_tokens":12}}`,
			want: Reply{ToolCalls: []ToolCall{call("call_1", "read_file", argsA), call("call_2", "write_file", argsB)},
				FinishReason: "tool_calls", Usage: &Usage{PromptTokens: 3, CompletionTokens: 9, TotalTokens: 12}},
		},
		{
			name:     "text reaches onText once",
			ctype:    "application/json; charset=utf-8",
			body:     `{"choices":[{"index":0,"message":{"role":"assistant","content":"Hello there.","reasoning_content":"hmm"},"finish_reason":"stop"}]}`,
			want:     Reply{Content: "Hello there.", Reasoning: "hmm", FinishReason: "stop"},
			wantText: []string{"Hello there."},
		},
		{
			name:     "json reply to a streamed request",
			ctype:    "application/json",
			stream:   true,
			body:     `{"choices":[{"message":{"content":"whole"},"finish_reason":"stop"}]}`,
			want:     Reply{Content: "whole", FinishReason: "stop"},
			wantText: []string{"whole"},
		},
		{
			name:     "stream reply to an unstreamed request",
			ctype:    "text/event-stream",
			body:     sse(textChunk("a"), textChunk("b"), finishChunk("stop"), "[DONE]"),
			want:     Reply{Content: "ab", FinishReason: "stop"},
			wantText: []string{"a", "b"},
		},
		{
			name:    "error in a 200 body",
			ctype:   "application/json",
			body:    `{"error":{"message":"model is loading"}}`,
			wantErr: "model server at URL reported an error: model is loading",
		},
		{
			name:    "no choices",
			ctype:   "application/json",
			body:    `{"choices":[]}`,
			wantErr: "model server at URL: invalid reply: no choices",
		},
		{
			name:    "not json",
			ctype:   "text/html",
			body:    "<html>hello</html>",
			wantErr: `model server at URL sent something that is not a chat-completions stream: "<html>hello</html>"`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.ctype)
				io.WriteString(w, tc.body)
			})
			c := &Client{BaseURL: base, Stream: tc.stream}
			var got []string
			reply, err := c.Chat(context.Background(), Request{Model: "m"}, func(s string) { got = append(got, s) })
			checkResult(t, reply, err, tc.want, strings.ReplaceAll(tc.wantErr, "URL", base))
			if err != nil {
				checkOneLine(t, err)
				return
			}
			if !reflect.DeepEqual(got, tc.wantText) {
				t.Errorf("onText calls = %q, want %q", got, tc.wantText)
			}
		})
	}
}

func TestChatHTTPErrors(t *testing.T) {
	long := strings.Repeat("abcdefghij ", 40)
	cases := []struct {
		name   string
		status int
		ctype  string
		body   string
		want   string
	}{
		{
			name:   "500 with json error",
			status: 500,
			ctype:  "application/json",
			body:   `{"error":{"code":500,"message":"failed to load model\n  out of memory","type":"server_error"}}`,
			want:   "model server at URL answered 500 Internal Server Error: failed to load model out of memory",
		},
		{
			name:   "404 with plain text",
			status: 404,
			ctype:  "text/plain",
			body:   "404 page not found\n",
			want:   "model server at URL answered 404 Not Found: 404 page not found",
		},
		{
			name:   "ollama string error",
			status: 404,
			ctype:  "application/json",
			body:   `{"error":"model \"qwen3:8b\" not found, try pulling it first"}`,
			want:   `model server at URL does not have the model "m" (404: model "qwen3:8b" not found, try pulling it first); check the model name (GET URL/models lists the server's models)`,
		},
		{
			name:   "vllm top-level message",
			status: 400,
			ctype:  "application/json",
			body:   `{"object":"error","message":"This model's maximum context length is 8192 tokens.","type":"BadRequestError","code":400}`,
			want: "the conversation is longer than the model's context (model server at URL answered 400 Bad Request: This model's maximum context length is 8192 tokens.); " +
				"set contextBudget below the model's context size so mm compresses older turns, or /compact the session",
		},
		{
			name:   "401 hints at the key",
			status: 401,
			ctype:  "application/json",
			body:   `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`,
			want:   "model server at URL answered 401 Unauthorized: Incorrect API key provided; check the API key",
		},
		{
			name:   "403 with empty body",
			status: 403,
			want:   "model server at URL answered 403 Forbidden; check the API key",
		},
		{
			name:   "long plain body is cut",
			status: 502,
			ctype:  "text/plain",
			body:   long,
			want:   "model server at URL answered 502 Bad Gateway: " + collapse(long[:200]) + "…",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := serve(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.ctype != "" {
					w.Header().Set("Content-Type", tc.ctype)
				}
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			})
			for _, stream := range []bool{false, true} {
				c := &Client{BaseURL: base, Stream: stream, Hint: "start llmman"}
				_, err := c.Chat(context.Background(), Request{Model: "m"}, nil)
				if err == nil {
					t.Fatal("no error")
				}
				if want := strings.ReplaceAll(tc.want, "URL", base); err.Error() != want {
					t.Fatalf("error\n got %q\nwant %q", err, want)
				}
				checkOneLine(t, err)
				var me *Error
				if errors.As(err, &me) && me.Status != tc.status {
					t.Errorf("Status = %d, want %d", me.Status, tc.status)
				}
			}
		})
	}
}

func TestChatUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	base := "http://" + addr + "/v1"
	cases := []struct {
		name string
		hint string
		want string
	}{
		{"with hint", "start llmman, or set LLMMAN_HOST", "cannot reach the model server at " + base + " (connection refused); start llmman, or set LLMMAN_HOST"},
		{"without hint", "", "cannot reach the model server at " + base + " (connection refused)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &Client{BaseURL: base + "/", Stream: true, Hint: tc.hint}
			_, err := c.Chat(context.Background(), Request{Model: "m"}, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tc.want {
				t.Fatalf("error\n got %q\nwant %q", err, tc.want)
			}
			checkOneLine(t, err)
		})
	}
}

func TestChatBadRequest(t *testing.T) {
	base := serve(t, func(w http.ResponseWriter, r *http.Request) { t.Error("request sent") })
	cases := []struct {
		name string
		req  Request
		want string
	}{
		{"response format", Request{ResponseFormat: json.RawMessage(`{"type":`)},
			"cannot send the request to the model server at " + base + ": the response format is not valid JSON"},
		{"tool parameters", Request{Tools: []ToolDef{{Name: "ls", Parameters: json.RawMessage(`{x}`)}}},
			"cannot send the request to the model server at " + base + `: the parameters of tool "ls" are not valid JSON`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := (&Client{BaseURL: base}).Chat(context.Background(), tc.req, nil)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error\n got %v\nwant %s", err, tc.want)
			}
			checkOneLine(t, err)
		})
	}
}

func TestChatBadURL(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:8080/v1", "ftp://host/v1", "http://"} {
		_, err := (&Client{BaseURL: u}).Chat(context.Background(), Request{}, nil)
		if err == nil || !strings.HasPrefix(err.Error(), "invalid model server URL") {
			t.Errorf("BaseURL %q: error %v", u, err)
		}
	}
}

func TestChatRequestBody(t *testing.T) {
	params := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	history := []Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "read it"},
		{Role: "assistant", ToolCalls: []ToolCall{call("call_1", "read_file", `{"path":"a"}`)}},
		{Role: "tool", ToolCallID: "call_1", Content: "contents"},
	}
	cases := []struct {
		name   string
		client Client
		req    Request
		want   string // the body, as JSON
		auth   string
	}{
		{
			name:   "everything set",
			client: Client{APIKey: "sk-test", Stream: true},
			req: Request{Model: "qwen3", Messages: history,
				Tools:          []ToolDef{{Name: "read_file", Description: "Read a file.", Parameters: params}, {Name: "now", Description: "The time."}},
				ResponseFormat: json.RawMessage(`{"type":"json_object"}`)},
			want: `{"model":"qwen3","messages":[
				{"role":"system","content":"be brief"},
				{"role":"user","content":"read it"},
				{"role":"assistant","content":"","tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]},
				{"role":"tool","content":"contents","tool_call_id":"call_1"}],
				"tools":[
				{"type":"function","function":{"name":"read_file","description":"Read a file.","parameters":` + string(params) + `}},
				{"type":"function","function":{"name":"now","description":"The time.","parameters":{"type":"object","properties":{}}}}],
				"stream":true,"stream_options":{"include_usage":true},"response_format":{"type":"json_object"}}`,
			auth: "Bearer sk-test",
		},
		{
			name:   "nothing optional",
			client: Client{},
			req:    Request{Model: "llama"},
			want:   `{"model":"llama","messages":[],"stream":false}`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body []byte
			var hdr http.Header
			base := serve(t, func(w http.ResponseWriter, r *http.Request) {
				body, _ = io.ReadAll(r.Body)
				hdr = r.Header.Clone()
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}]}`)
			})
			c := tc.client
			c.BaseURL = base + "/"
			if _, err := c.Chat(context.Background(), tc.req, nil); err != nil {
				t.Fatal(err)
			}
			var got, want any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("body %s: %v", body, err)
			}
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("body\n got %s\nwant %s", body, tc.want)
			}
			if ct := hdr.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			if a := hdr.Get("Authorization"); a != tc.auth {
				t.Errorf("Authorization = %q, want %q", a, tc.auth)
			}
		})
	}
}

func TestChatCancel(t *testing.T) {
	cases := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		// cancelOnText: cancel once the first text arrives
		cancelOnText bool
		want         error
	}{
		{"cancel", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, true, context.Canceled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 200*time.Millisecond)
		}, false, context.DeadlineExceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stop := make(chan struct{})
			base := serve(t, func(w http.ResponseWriter, r *http.Request) {
				writeSlowly(w, sse(textChunk("thinking")), 1000)
				select { // a model that never says more
				case <-r.Context().Done():
				case <-stop:
				}
			})
			defer close(stop)
			ctx, cancel := tc.ctx()
			defer cancel()
			c := &Client{BaseURL: base, Stream: true}
			start := time.Now()
			_, err := c.Chat(ctx, Request{Model: "m"}, func(string) {
				if tc.cancelOnText {
					cancel()
				}
			})
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Fatalf("took %v to notice", d)
			}
		})
	}
}

func TestChatCancelledBeforeConnect(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	base := serve(t, func(w http.ResponseWriter, r *http.Request) {})
	_, err := (&Client{BaseURL: base}).Chat(ctx, Request{}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}
