package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// sse frames each payload as one SSE event.
func sse(payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	return b.String()
}

// js is s as a JSON string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func textChunk(s string) string {
	return `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":` + js(s) + `},"finish_reason":null}]}`
}

func finishChunk(reason string) string {
	return `{"choices":[{"index":0,"delta":{},"finish_reason":` + js(reason) + `}]}`
}

// callStart is the first piece of a streamed call: id and name, no arguments.
func callStart(index int, id, name string) string {
	return `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":` + itoa(index) + `,"id":` + js(id) +
		`,"type":"function","function":{"name":` + js(name) + `,"arguments":""}}]},"finish_reason":null}]}`
}

// callArgs is a later piece of a streamed call: arguments only.
func callArgs(index int, frag string) string {
	return `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":` + itoa(index) +
		`,"function":{"arguments":` + js(frag) + `}}]},"finish_reason":null}]}`
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// pieces cuts s into n-byte fragments.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func call(id, name, args string) ToolCall {
	return ToolCall{ID: id, Type: "function", Function: FunctionCall{Name: name, Arguments: args}}
}

const (
	argsA = `{"path":"internal/model/client.go","offset":0,"limit":200}`
	argsB = `{"path":"README.md","content":"# mm\n\nA \"local\" agent.\n"}`
)

// bigArgs is a tool call's arguments far longer than bufio.Scanner's 64 KB.
var bigArgs = `{"content":"` + strings.Repeat("x", 1<<20) + `"}`

// streamCase is one stream and what must come of it; client_test.go runs
// the same cases through Chat and an HTTP server.
type streamCase struct {
	name     string
	body     string
	want     Reply
	wantText []string // onText calls in order; nil: none
	wantErr  string   // readStream's error; "" for none
	chatErr  string   // Chat's error, with URL standing for the base URL
}

func streamCases() []streamCase {
	split := []string{callStart(0, "call_7", "read_file")}
	for _, f := range pieces(argsA, 5) {
		split = append(split, callArgs(0, f))
	}
	split = append(split, finishChunk("tool_calls"), "[DONE]")

	fa, fb := pieces(argsA, 5), pieces(argsB, 5)
	inter := []string{callStart(0, "call_a", "read_file"), callStart(1, "call_b", "write_file")}
	for i := 0; i < len(fa) || i < len(fb); i++ {
		if i < len(fa) {
			inter = append(inter, callArgs(0, fa[i]))
		}
		if i < len(fb) {
			inter = append(inter, callArgs(1, fb[i]))
		}
	}
	inter = append(inter, finishChunk("tool_calls"), "[DONE]")

	return []streamCase{
		{
			name: "text in small chunks",
			body: ": keep-alive\n\n" +
				sse(`{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
					`{"choices":[{"index":0,"delta":{"reasoning_content":"let me think"},"finish_reason":null}]}`,
					`{"choices":[{"index":0,"delta":{"reasoning":"more thought"},"finish_reason":null}]}`) +
				"event: message\n" +
				sse(textChunk("Hel"), textChunk("lo, "), textChunk("wör"), textChunk("ld"), finishChunk("stop"),
					`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":4,"total_tokens":14}}`, "[DONE]"),
			want: Reply{Content: "Hello, wörld", Reasoning: "let me thinkmore thought", FinishReason: "stop",
				Usage: &Usage{PromptTokens: 10, CompletionTokens: 4, TotalTokens: 14}},
			wantText: []string{"Hel", "lo, ", "wör", "ld"},
		},
		{
			name: "tool call split across many chunks",
			body: sse(split...),
			want: Reply{ToolCalls: []ToolCall{call("call_7", "read_file", argsA)}, FinishReason: "tool_calls"},
		},
		{
			name: "parallel tool calls interleaved by index",
			body: sse(inter...),
			want: Reply{ToolCalls: []ToolCall{call("call_a", "read_file", argsA), call("call_b", "write_file", argsB)},
				FinishReason: "tool_calls"},
		},
		{
			name: "whole tool calls in one chunk",
			body: sse(textChunk("Let me look."),
				`{"choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[`+
					`{"id":"call_1","index":0,"type":"function","function":{"name":"read_file","arguments":`+js(argsA)+`}},`+
					`{"id":"call_2","index":1,"type":"function","function":{"name":"write_file","arguments":`+js(argsB)+`}}]},"finish_reason":null}]}`,
				finishChunk("tool_calls"), "[DONE]"),
			want: Reply{Content: "Let me look.", ToolCalls: []ToolCall{call("call_1", "read_file", argsA), call("call_2", "write_file", argsB)},
				FinishReason: "tool_calls"},
			wantText: []string{"Let me look."},
		},
		{
			name: "whole tool calls without index",
			body: sse(`{"choices":[{"index":0,"delta":{"tool_calls":[`+
				`{"type":"function","function":{"name":"read_file","arguments":`+js(argsA)+`}},`+
				`{"type":"function","function":{"name":"write_file","arguments":`+js(argsB)+`}}]},"finish_reason":"tool_calls"}]}`,
				"[DONE]"),
			want: Reply{ToolCalls: []ToolCall{call("", "read_file", argsA), call("", "write_file", argsB)}, FinishReason: "tool_calls"},
		},
		{
			name: "same index different id",
			body: sse(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"read_file","arguments":`+js(argsA)+`}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_2","function":{"name":"write_file","arguments":"{\"path\""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":\"a\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_3","function":{"name":"list","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_4","function":{"name":"grep","arguments":"{}"}}]}}]}`,
				finishChunk("tool_calls"), "[DONE]"),
			want: Reply{ToolCalls: []ToolCall{
				call("call_1", "read_file", argsA),
				call("call_2", "write_file", `{"path":"a"}`),
				call("call_3", "list", "{}"),
				call("call_4", "grep", "{}"),
			}, FinishReason: "tool_calls"},
		},
		{
			name: "indexes out of order",
			body: sse(callStart(1, "call_b", "write_file"), callStart(0, "call_a", "read_file"),
				callArgs(1, argsB), callArgs(0, argsA), finishChunk("tool_calls"), "[DONE]"),
			want: Reply{ToolCalls: []ToolCall{call("call_a", "read_file", argsA), call("call_b", "write_file", argsB)},
				FinishReason: "tool_calls"},
		},
		{
			name: "arguments sent as an object",
			body: sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"ls","arguments":{"dir":"."}}}]},"finish_reason":"tool_calls"}]}`),
			want: Reply{ToolCalls: []ToolCall{call("c", "ls", `{"dir":"."}`)}, FinishReason: "tool_calls"},
		},
		{
			name: "tool call arguments of a megabyte in one line",
			body: sse(callStart(0, "call_big", "write_file"), callArgs(0, bigArgs), finishChunk("tool_calls"), "[DONE]"),
			want: Reply{ToolCalls: []ToolCall{call("call_big", "write_file", bigArgs)}, FinishReason: "tool_calls"},
		},
		{
			name: "usage-only chunk",
			body: sse(textChunk("ok"), finishChunk("stop"),
				`{"id":"x","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
				"[DONE]"),
			want:     Reply{Content: "ok", FinishReason: "stop", Usage: &Usage{PromptTokens: 1, CompletionTokens: 1, TotalTokens: 2}},
			wantText: []string{"ok"},
		},
		{
			name:     "crlf line endings and no space after data",
			body:     strings.ReplaceAll(strings.ReplaceAll(sse(textChunk("a"), textChunk("b"), finishChunk("length"), "[DONE]"), "data: ", "data:"), "\n", "\r\n"),
			want:     Reply{Content: "ab", FinishReason: "length"},
			wantText: []string{"a", "b"},
		},
		{
			name:     "finish reason without done",
			body:     sse(textChunk("done"), finishChunk("stop")),
			want:     Reply{Content: "done", FinishReason: "stop"},
			wantText: []string{"done"},
		},
		{
			name:     "finish reason without done and no final newline",
			body:     strings.TrimRight(sse(textChunk("done"), finishChunk("stop")), "\n"),
			want:     Reply{Content: "done", FinishReason: "stop"},
			wantText: []string{"done"},
		},
		{
			name:     "mid-stream error chunk",
			body:     sse(textChunk("partial"), `{"error":{"message":"the request exceeds the available context size\ntry a smaller prompt","type":"exceed_context_size_error","code":400}}`),
			wantText: []string{"partial"},
			wantErr:  "the server reported an error: the request exceeds the available context size try a smaller prompt",
			chatErr:  "model server at URL reported an error: the request exceeds the available context size try a smaller prompt",
		},
		{
			name:    "error event",
			body:    "event: error\ndata: {\"message\":\"model unloaded\"}\n\n",
			wantErr: "the server reported an error: model unloaded",
			chatErr: "model server at URL reported an error: model unloaded",
		},
		{
			name:     "cut stream",
			body:     sse(textChunk("Hello"), textChunk(" there")),
			wantText: []string{"Hello", " there"},
			wantErr:  "the reply was cut off before it was complete",
			chatErr:  "model server at URL: the reply was cut off before it was complete",
		},
		{
			name:    "cut inside a chunk",
			body:    sse(textChunk("Hello"))[:20],
			wantErr: "the reply was cut off before it was complete",
			chatErr: "model server at URL: the reply was cut off before it was complete",
		},
		{
			name:    "empty body",
			body:    "",
			wantErr: "the reply was cut off before it was complete",
			chatErr: "model server at URL: the reply was cut off before it was complete",
		},
		{
			name:    "invalid json",
			body:    sse(`{"choices":[{"delta":{"content":"x"}}]`, "[DONE]"),
			wantErr: "invalid reply: unexpected end of JSON input",
			chatErr: "model server at URL: invalid reply: unexpected end of JSON input",
		},
		{
			name:    "wrong json type",
			body:    sse(`{"choices":[{"delta":{"content":42}}]}`, "[DONE]"),
			wantErr: "invalid reply: unexpected number for choices.delta.content",
			chatErr: "model server at URL: invalid reply: unexpected number for choices.delta.content",
		},
	}
}

func TestReadStream(t *testing.T) {
	for _, tc := range streamCases() {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			// One byte at a time, so that no line arrives in one read.
			reply, err := readStream(iotest.OneByteReader(strings.NewReader(tc.body)), func(s string) { got = append(got, s) })
			checkResult(t, reply, err, tc.want, tc.wantErr)
			if !reflect.DeepEqual(got, tc.wantText) {
				t.Errorf("onText calls = %q, want %q", got, tc.wantText)
			}
		})
	}
}

func TestReadStreamNilOnText(t *testing.T) {
	reply, err := readStream(strings.NewReader(sse(textChunk("hi"), "[DONE]")), nil)
	if err != nil || reply.Content != "hi" {
		t.Fatalf("got %+v, %v", reply, err)
	}
}

func TestReadStreamStopsAtDone(t *testing.T) {
	// Nothing after [DONE] is read: the reader fails if it is.
	body := io.MultiReader(strings.NewReader(sse(textChunk("hi"), "[DONE]")), iotest.ErrReader(errors.New("read past [DONE]")))
	reply, err := readStream(body, nil)
	if err != nil || reply.Content != "hi" {
		t.Fatalf("got %+v, %v", reply, err)
	}
}

func checkResult(t *testing.T, reply Reply, err error, want Reply, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil {
			t.Fatalf("no error, want %q; reply %+v", wantErr, reply)
		}
		if err.Error() != wantErr {
			t.Fatalf("error %q, want %q", err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if !reflect.DeepEqual(reply, want) {
		t.Fatalf("reply\n got %s\nwant %s", brief(reply), brief(want))
	}
}

// brief shows a Reply with long arguments shortened.
func brief(r Reply) string {
	for i := range r.ToolCalls {
		r.ToolCalls[i].Function.Arguments = clip(r.ToolCalls[i].Function.Arguments, 80)
	}
	b, _ := json.Marshal(r)
	return string(b)
}

func FuzzReadStream(f *testing.F) {
	for _, tc := range streamCases() {
		if len(tc.body) < 4096 {
			f.Add([]byte(tc.body))
		}
	}
	f.Add([]byte("data: [DONE]\n"))
	f.Add([]byte(sse(`{"choices":[{"delta":{"tool_calls":[{"index":-3,"id":"x"},{"index":9007199254740993}]}}]}`)))
	f.Add([]byte(sse(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f"}},{"index":0,"id":"b","function":{"name":"g","arguments":"\u0000"}}]},"finish_reason":"stop"}]}`)))
	f.Add([]byte("\xef\xbb\xbfdata: {\"error\":\"boom\"}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var text strings.Builder
		reply, err := readStream(bytes.NewReader(data), func(s string) { text.WriteString(s) })
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error is not one line: %q", err)
			}
		} else {
			if reply.Content != text.String() {
				t.Fatalf("Content %q is not what onText saw %q", reply.Content, text.String())
			}
			for _, c := range reply.ToolCalls {
				if c.Type != "function" {
					t.Fatalf("tool call type %q", c.Type)
				}
				if c.ID == "" && c.Function.Name == "" && c.Function.Arguments == "" {
					t.Fatalf("empty tool call in %+v", reply.ToolCalls)
				}
			}
		}
		// How the body is split into reads must not matter.
		reply2, err2 := readStream(iotest.OneByteReader(bytes.NewReader(data)), nil)
		if (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() {
			t.Fatalf("errors differ: %v / %v", err, err2)
		}
		if !reflect.DeepEqual(reply, reply2) {
			t.Fatalf("replies differ: %+v / %+v", reply, reply2)
		}
	})
}

// TestTimingsCountTheCache: llama-server's timings, read when a stream has
// no usage, count the prompt as the tokens processed and those reused from
// the cache: a prompt mostly cached is not a short one.
func TestTimingsCountTheCache(t *testing.T) {
	stream := `data: {"choices":[{"index":0,"delta":{"content":"Hi."}}]}

data: {"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"timings":{"cache_n":900,"prompt_n":12,"predicted_n":3}}

data: [DONE]

`
	rep, err := readStream(strings.NewReader(stream), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Usage == nil || rep.Usage.PromptTokens != 912 || rep.Usage.CompletionTokens != 3 {
		t.Fatalf("usage %+v", rep.Usage)
	}
}
