package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

const invalidPrefix = "invalid JSON on stdout: "

func sp(s string) *string { return &s }

// showReply prints a Reply with its pointers dereferenced, for failure messages.
func showReply(r Reply) string {
	p := func(s *string) string {
		if s == nil {
			return "nil"
		}
		return fmt.Sprintf("%q", *s)
	}
	return fmt.Sprintf("{Action:%q Prompt:%s Transcript:%s Answer:%s Context:%q Input:%s Reason:%q Response:%q Error:%q}",
		r.Action, p(r.Prompt), p(r.Transcript), p(r.Answer), r.Context, r.Input, r.Reason, r.Response, r.Error)
}

// decodeOK decodes stdout for event, failing the test on an error or a panic.
func decodeOK(t *testing.T, event Event, stdout string) Reply {
	t.Helper()
	r, err := DecodeReply(event, []byte(stdout))
	if err != nil {
		t.Fatalf("DecodeReply(%s, %q): unexpected error %v", event, stdout, err)
	}
	return r
}

func TestDecodeReplyBlank(t *testing.T) {
	t.Parallel()
	for _, e := range Events {
		for _, s := range []string{"", " ", "\n", " \t\r\n  \n", "\n\n\n"} {
			r, err := DecodeReply(e, []byte(s))
			if err != nil {
				t.Errorf("%s %q: error %v, want continue", e, s, err)
				continue
			}
			if !reflect.DeepEqual(r, Reply{}) {
				t.Errorf("%s %q: got %s, want the zero Reply (continue)", e, s, showReply(r))
			}
		}
	}
	// nil stdout too.
	if r, err := DecodeReply(PreToolCall, nil); err != nil || !reflect.DeepEqual(r, Reply{}) {
		t.Errorf("nil stdout: %s, %v", showReply(r), err)
	}
}

// TestDecodeReplyFieldsPerEvent decodes one reply with every field set and
// checks each event keeps exactly the fields the reference's Reply table
// says it reads.
func TestDecodeReplyFieldsPerEvent(t *testing.T) {
	t.Parallel()
	const all = `{"action":"continue","prompt":"p","transcript":"t","answer":"a","context":"c",` +
		`"input":{"command":"ls && rm"},"reason":"r","response":"resp","error":"e","unknown":[1,2,{"x":null}]}`
	in := json.RawMessage(`{"command":"ls && rm"}`)
	tests := []struct {
		event Event
		want  Reply
	}{
		{PreGeneration, Reply{Action: "continue", Prompt: sp("p"), Context: "c", Reason: "r", Response: "resp", Error: "e"}},
		{PreToolCall, Reply{Action: "continue", Input: in, Reason: "r", Error: "e"}},
		{PostToolCall, Reply{Action: "continue", Context: "c", Error: "e"}},
		{PostGeneration, Reply{Action: "continue", Error: "e"}},
		{PreAsk, Reply{Action: "continue", Prompt: sp("p"), Transcript: sp("t"), Context: "c", Reason: "r", Error: "e"}},
		{PostAsk, Reply{Action: "continue", Answer: sp("a"), Context: "c", Error: "e"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.event), func(t *testing.T) {
			got := decodeOK(t, tc.event, all)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %s\nwant %s", showReply(got), showReply(tc.want))
			}
		})
	}
}

// readers is the reference's Reply table: the events that read each field.
var readers = map[string][]Event{
	"action":     Events,
	"error":      Events,
	"prompt":     {PreGeneration, PreAsk},
	"transcript": {PreAsk},
	"answer":     {PostAsk},
	"context":    {PreGeneration, PostToolCall, PreAsk, PostAsk},
	"reason":     {PreGeneration, PreToolCall, PreAsk},
	"response":   {PreGeneration},
}

func readBy(field string, e Event) bool {
	for _, x := range readers[field] {
		if x == e {
			return true
		}
	}
	return false
}

// TestDecodeReplyWrongTypes: a string field of the wrong type is an error on
// the events that read it and is ignored on the others.
func TestDecodeReplyWrongTypes(t *testing.T) {
	t.Parallel()
	bad := []string{`5`, `-1.5e3`, `true`, `false`, `[]`, `["x"]`, `{}`, `{"a":"b"}`}
	for field := range readers {
		for _, e := range Events {
			for _, v := range bad {
				stdout := fmt.Sprintf(`{%q: %s}`, field, v)
				r, err := DecodeReply(e, []byte(stdout))
				if readBy(field, e) {
					want := fmt.Sprintf(`invalid JSON on stdout: %q must be a string`, field)
					if err == nil || err.Error() != want {
						t.Errorf("%s %s: err = %v, want %q", e, stdout, err, want)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s %s: err = %v, want the field ignored", e, stdout, err)
				} else if !reflect.DeepEqual(r, Reply{}) {
					t.Errorf("%s %s: got %s, want the zero Reply", e, stdout, showReply(r))
				}
			}
		}
	}
}

func TestDecodeReplyPromptType(t *testing.T) {
	t.Parallel()
	// The brief's two examples, spelled out.
	if r, err := DecodeReply(PostGeneration, []byte(`{"prompt": 42}`)); err != nil || r.Prompt != nil {
		t.Errorf("postGeneration: prompt of the wrong type must be ignored; got %s, %v", showReply(r), err)
	}
	_, err := DecodeReply(PreGeneration, []byte(`{"prompt": 42}`))
	if want := `invalid JSON on stdout: "prompt" must be a string`; err == nil || err.Error() != want {
		t.Errorf("preGeneration: err = %v, want %q", err, want)
	}
}

func TestDecodeReplyValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		event  Event
		stdout string
		want   Reply
	}{
		{"prompt empty string replaces", PreGeneration, `{"prompt": ""}`, Reply{Prompt: sp("")}},
		{"prompt null is absent", PreGeneration, `{"prompt": null}`, Reply{}},
		{"prompt unicode and escapes", PreAsk, `{"prompt": "é\u00e9\n\"&<>"}`, Reply{Prompt: sp("éé\n\"&<>")}},
		{"transcript empty string replaces", PreAsk, `{"transcript": ""}`, Reply{Transcript: sp("")}},
		{"transcript null is absent", PreAsk, `{"transcript": null}`, Reply{}},
		{"answer empty string replaces", PostAsk, `{"answer": ""}`, Reply{Answer: sp("")}},
		{"answer null is absent", PostAsk, `{"answer": null}`, Reply{}},
		{"action null is absent", PreToolCall, `{"action": null}`, Reply{}},
		{"action kept as written", PreToolCall, `{"action": "deny", "reason": "no"}`, Reply{Action: "deny", Reason: "no"}},
		{"unknown action is not a decode error", PreToolCall, `{"action": "explode"}`, Reply{Action: "explode"}},
		{"context null", PostToolCall, `{"context": null}`, Reply{}},
		{"context blank kept verbatim", PostToolCall, `{"context": "  "}`, Reply{Context: "  "}},
		{"surrounding whitespace", PreToolCall, " \n\t{\"reason\":\"r\"}\n\n ", Reply{Reason: "r"}},
		{"unknown fields ignored", PreToolCall, `{"foo": 1, "bar": {"baz": [null]}}`, Reply{}},
		{"input null is absent", PreToolCall, `{"input": null}`, Reply{}},
		{"input object", PreToolCall, `{"input": {"command": "a && b > c"}}`, Reply{Input: json.RawMessage(`{"command": "a && b > c"}`)}},
		{"input empty object", PreToolCall, `{"input": {}}`, Reply{Input: json.RawMessage(`{}`)}},
		{"input string", PreToolCall, `{"input": "ls"}`, Reply{Input: json.RawMessage(`"ls"`)}},
		{"input empty string", PreToolCall, `{"input": ""}`, Reply{Input: json.RawMessage(`""`)}},
		{"input number", PreToolCall, `{"input": 3.5}`, Reply{Input: json.RawMessage(`3.5`)}},
		{"input bool", PreToolCall, `{"input": false}`, Reply{Input: json.RawMessage(`false`)}},
		{"input array", PreToolCall, `{"input": [1, "two", null]}`, Reply{Input: json.RawMessage(`[1, "two", null]`)}},
		{"input ignored off preToolCall", PostToolCall, `{"input": {"a": 1}}`, Reply{}},
		{"input ignored on preAsk", PreAsk, `{"input": "x"}`, Reply{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := decodeOK(t, tc.event, tc.stdout)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %s\nwant %s", showReply(got), showReply(tc.want))
			}
		})
	}
}

// invalidReplies are stdouts that are neither blank nor one JSON object.
var invalidReplies = []string{
	`null`,
	` null `,
	`[]`,
	`[{"action":"stop"}]`,
	`"continue"`,
	`""`,
	`42`,
	`-0.5`,
	`true`,
	`false`,
	`continue`,
	`action: stop`,
	`{`,
	`}`,
	`{"action":"stop"`,
	`{"action":`,
	`{"action"}`,
	`{'action':'stop'}`,
	`{action:"stop"}`,
	`{"action":"stop",}`,
	`{"a":1 "b":2}`,
	`{"context":"unterminated}`,
	`{"context":"bad \q escape"}`,
	`{"n": NaN}`,
	`{"n": 01}`,
	"\x00",
	"\x00\x01\x02\xff\xfe",
	"\xff\xd8\xff\xe0\x00\x10JFIF",
	"\xef\xbb\xbf{}", // a byte order mark is not JSON
	`{} {}`,
	`{}{"action":"stop"}`,
	"{\"action\":\"continue\"}\n{\"action\":\"stop\"}",
	`{} null`,
	`{} 1`,
	`{} x`,
	`{}garbage`,
}

// trailingBrackets are one object followed by a stray closing bracket. They
// are not JSON ("stdout n'est pas du JSON → invalid JSON on stdout: …"), but
// encoding/json's Decoder.More reports false before ']' and '}', so a check
// built on More alone lets them through.
var trailingBrackets = []string{
	`{}}`,
	`{}]`,
	`{"action":"stop"}}`,
	"{\"context\":\"x\"}\n]",
}

func TestDecodeReplyInvalid(t *testing.T) {
	t.Parallel()
	for _, e := range Events {
		for _, s := range invalidReplies {
			r, err := decodeNoPanic(e, []byte(s))
			if err == nil {
				t.Errorf("%s %q: accepted as %s, want an %q error", e, s, showReply(r), invalidPrefix+"…")
				continue
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, invalidPrefix) || len(msg) == len(invalidPrefix) {
				t.Errorf("%s %q: error %q, want %q followed by a reason", e, s, msg, invalidPrefix+"…")
			}
			if strings.ContainsAny(msg, "\n\r") {
				t.Errorf("%s %q: error %q spans lines; it goes on one failure line", e, s, msg)
			}
		}
	}
}

func TestDecodeReplyTrailingBracket(t *testing.T) {
	t.Parallel()
	for _, s := range trailingBrackets {
		var accepted []string
		for _, e := range Events {
			r, err := decodeNoPanic(e, []byte(s))
			if err == nil {
				accepted = append(accepted, string(e)+" as "+showReply(r))
			} else if !strings.HasPrefix(err.Error(), invalidPrefix) {
				t.Errorf("%s %q: error %q, want %q…", e, s, err, invalidPrefix)
			}
		}
		if len(accepted) > 0 {
			t.Errorf("%q is not JSON but was accepted on %d event(s), e.g. %s", s, len(accepted), accepted[0])
		}
	}
}

// TestDecodeReplyNotAnObject pins the reasons given for JSON that is not an
// object, so a hook author can tell what went wrong.
func TestDecodeReplyNotAnObject(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		`null`:        "want an object, got null",
		`[1]`:         "want an object, got array",
		`"s"`:         "want an object, got string",
		`7`:           "want an object, got number",
		`true`:        "want an object, got bool",
		`{} {}`:       "data after the JSON object",
		`{"a":1} [2]`: "data after the JSON object",
	}
	for s, reason := range tests {
		_, err := DecodeReply(PreToolCall, []byte(s))
		if want := invalidPrefix + reason; err == nil || err.Error() != want {
			t.Errorf("%q: err = %v, want %q", s, err, want)
		}
	}
}

func decodeNoPanic(e Event, b []byte) (r Reply, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return DecodeReply(e, b)
}

// TestDecodeReplyLarge: a big but valid reply (under the 1 MiB limit) decodes.
func TestDecodeReplyLarge(t *testing.T) {
	t.Parallel()
	ctx := strings.Repeat("é", 300_000) // 600 000 bytes
	r := decodeOK(t, PostToolCall, `{"context":"`+ctx+`"}`)
	if r.Context != ctx {
		t.Errorf("context of %d bytes came back as %d bytes", len(ctx), len(r.Context))
	}
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	r = decodeOK(t, PreToolCall, `{"input":`+deep+`}`)
	if string(r.Input) != deep {
		t.Errorf("deep input not kept verbatim")
	}
}

func TestInputEncode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{
			"only the event",
			Input{Event: PreGeneration},
			`{"event":"preGeneration"}`,
		},
		{
			"reference preGeneration example",
			Input{Event: PreGeneration, Cwd: "/home/moi/projet", Model: "llmman/hf.co/unsloth/gemma-4-E4B-it-GGUF:Q4_K_M", Prompt: "list the files"},
			`{"event":"preGeneration","cwd":"/home/moi/projet","model":"llmman/hf.co/unsloth/gemma-4-E4B-it-GGUF:Q4_K_M","prompt":"list the files"}`,
		},
		{
			"reference preToolCall example",
			Input{Event: PreToolCall, Cwd: "/home/moi/projet", Model: "llmman/…", Tool: &Tool{ID: "call_1", Name: "bash", Input: json.RawMessage(`{"command":"rm -rf build"}`)}},
			`{"event":"preToolCall","cwd":"/home/moi/projet","model":"llmman/…","tool":{"id":"call_1","name":"bash","input":{"command":"rm -rf build"}}}`,
		},
		{
			"reference postAsk example",
			Input{Event: PostAsk, Cwd: "/home/moi/projet", Model: "llmman/…",
				Ask:    &Ask{Agent: "expert", Config: "/home/moi/projet/agent.expert.yaml", AgentModel: "llmman/…", Via: "tool", Prompt: "Qu'est-ce qu'un inode ?"},
				Answer: "Un inode est …", DurationMs: 25374},
			`{"event":"postAsk","cwd":"/home/moi/projet","model":"llmman/…","ask":{"agent":"expert","config":"/home/moi/projet/agent.expert.yaml","agentModel":"llmman/…","via":"tool","withContext":false,"depth":0,"prompt":"Qu'est-ce qu'un inode ?"},"answer":"Un inode est …","durationMs":25374}`,
		},
		{
			"&, < and > unescaped in strings",
			Input{Event: PreGeneration, Prompt: "a && b > c < d", Cwd: "/x&y"},
			`{"event":"preGeneration","cwd":"/x&y","prompt":"a && b > c < d"}`,
		},
		{
			"&, < and > unescaped inside the raw tool input, which is compacted",
			Input{Event: PreToolCall, Tool: &Tool{Name: "bash", Input: json.RawMessage("{ \"command\" :\n \"make && ./a.out > log 2>&1 < in\" }")}},
			`{"event":"preToolCall","tool":{"name":"bash","input":{"command":"make && ./a.out > log 2>&1 < in"}}}`,
		},
		{
			"empty tool id and input omitted, name kept",
			Input{Event: PostToolCall, Tool: &Tool{Name: "read_file"}, Output: "out"},
			`{"event":"postToolCall","tool":{"name":"read_file"},"output":"out"}`,
		},
		{
			"tool name kept even when empty",
			Input{Event: PostToolCall, Tool: &Tool{}},
			`{"event":"postToolCall","tool":{"name":""}}`,
		},
		{
			"ask depth 0 and withContext false kept, empty strings omitted",
			Input{Event: PreAsk, Ask: &Ask{Agent: "expert"}},
			`{"event":"preAsk","ask":{"agent":"expert","withContext":false,"depth":0}}`,
		},
		{
			"ask full",
			Input{Event: PreAsk, Ask: &Ask{Agent: "e", Config: "/c.yaml", AgentModel: "p/m", Via: "command", WithContext: true, Depth: 2, Prompt: "q", Transcript: "t"}},
			`{"event":"preAsk","ask":{"agent":"e","config":"/c.yaml","agentModel":"p/m","via":"command","withContext":true,"depth":2,"prompt":"q","transcript":"t"}}`,
		},
		{
			"postGeneration with error, asked",
			Input{Event: PostGeneration, Prompt: "[prompt blocked by a hook: x]", Error: "boom", Asked: &Asked{Depth: 1}},
			`{"event":"postGeneration","prompt":"[prompt blocked by a hook: x]","error":"boom","asked":{"depth":1}}`,
		},
		{
			"zero durationMs omitted",
			Input{Event: PostAsk, Ask: &Ask{Agent: "a"}, DurationMs: 0, Answer: ""},
			`{"event":"postAsk","ask":{"agent":"a","withContext":false,"depth":0}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			b, err := in.encode()
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if !bytes.HasSuffix(b, []byte("\n")) || bytes.Count(b, []byte("\n")) != 1 {
				t.Errorf("encode = %q: want one line ending in a newline", b)
			}
			if got := strings.TrimSuffix(string(b), "\n"); got != tc.want {
				t.Errorf("encode =\n  %s\nwant\n  %s", got, tc.want)
			}
			if bytes.Contains(b, []byte(`\u0026`)) || bytes.Contains(b, []byte(`\u003c`)) || bytes.Contains(b, []byte(`\u003e`)) {
				t.Errorf("encode escaped &, < or >: %s", b)
			}
			if !json.Valid(b) {
				t.Errorf("encode wrote invalid JSON: %s", b)
			}
		})
	}
}

func TestInputEncodeInvalidRawInput(t *testing.T) {
	t.Parallel()
	in := Input{Event: PreToolCall, Tool: &Tool{Name: "bash", Input: json.RawMessage(`{"broken"`)}}
	if b, err := in.encode(); err == nil {
		t.Errorf("encode of an invalid raw tool input = %q, want an error", b)
	}
}

func FuzzDecodeReply(f *testing.F) {
	seeds := []string{
		"", "  \n", "{}", `{"action":"continue"}`, `{"action":"stop","reason":"r","response":"x"}`,
		`{"action":"deny","reason":"no"}`, `{"action":"error","error":"bad"}`, `{"action":5}`,
		`{"prompt":"p","transcript":"t","answer":"a","context":"c","input":{"k":[1,2]},"reason":"r","response":"s","error":"e"}`,
		`{"prompt":1}`, `{"input":null}`, `{"input":"x"}`, `null`, `[]`, `"s"`, `1`, `{} {}`, `{"a":`,
		"\x00\xff", `{"context":"\ud800"}`, `{"context":"é"}`, "\xef\xbb\xbf{}",
	}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s))
	}
	f.Fuzz(func(t *testing.T, ev uint8, data []byte) {
		event := Events[int(ev)%len(Events)]
		r, err := DecodeReply(event, data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), invalidPrefix) {
				t.Fatalf("DecodeReply(%s, %q): error %q does not start with %q", event, data, err, invalidPrefix)
			}
			return
		}
		if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && !json.Valid(trimmed) {
			t.Fatalf("DecodeReply(%s, %q): accepted stdout that is not JSON", event, data)
		}
		if r.Input != nil && !json.Valid(r.Input) {
			t.Fatalf("DecodeReply(%s, %q): input %q is not valid JSON", event, data, r.Input)
		}
		if r.Input != nil && event != PreToolCall {
			t.Fatalf("DecodeReply(%s, %q): input read on %s", event, data, event)
		}
	})
}
