package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// ---- helpers ----

// h builds a hook running cmd; opts may be a time.Duration (timeout), an
// OnError, or a string (matcher). Defaults: 5s, warn, no matcher.
func h(cmd string, opts ...any) Hook {
	hk := Hook{Command: cmd, Timeout: 5 * time.Second, OnError: Warn, ConfigDir: "/etc/mm-test"}
	for _, o := range opts {
		switch o := o.(type) {
		case time.Duration:
			hk.Timeout = o
		case OnError:
			hk.OnError = o
		case string:
			hk.Matcher = regexp.MustCompile(o)
		default:
			panic(fmt.Sprintf("h: option %T", o))
		}
	}
	return hk
}

// reply is a shell command writing s (a JSON reply) on stdout.
func reply(s string) string { return "printf '%s\\n' " + shq(s) }

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// newRunner returns a Runner with set whose Cwd is a fresh directory.
func newRunner(t *testing.T, set Set) (*Runner, string) {
	t.Helper()
	dir := t.TempDir()
	return &Runner{Hooks: set, Cwd: dir, Model: "test/model"}, dir
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("hook input not captured: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("captured input %s is not JSON: %v: %q", path, err, b)
	}
	return m
}

// field walks m along keys ("tool", "input", "command").
func field(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func decisions(res Result) []string {
	var ds []string
	for _, r := range res.Runs {
		ds = append(ds, r.Decision)
	}
	return ds
}

func failures(res Result) []string {
	var fs []string
	for _, r := range res.Runs {
		fs = append(fs, r.Failure)
	}
	return fs
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return strconv.Quote(*p)
}

// oneRun runs a single hook for event and returns its only Run.
func oneRun(t *testing.T, ctx context.Context, event Event, hk Hook, in Input) (Result, Run) {
	t.Helper()
	in.Event = event
	r, _ := newRunner(t, Set{event: {hk}})
	res := r.Run(ctx, in, "bash")
	if len(res.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(res.Runs))
	}
	return res, res.Runs[0]
}

// minimal inputs per event, as the orchestrator and relay build them.
func inputFor(e Event) Input {
	switch e {
	case PreGeneration:
		return Input{Event: e, Prompt: "hello"}
	case PreToolCall:
		return Input{Event: e, Tool: &Tool{ID: "c1", Name: "bash", Input: json.RawMessage(`{"command":"ls"}`)}}
	case PostToolCall:
		return Input{Event: e, Tool: &Tool{ID: "c1", Name: "bash", Input: json.RawMessage(`{"command":"ls"}`)}, Output: "a\nb"}
	case PostGeneration:
		return Input{Event: e, Prompt: "hello", Answer: "hi"}
	case PreAsk:
		return Input{Event: e, Ask: &Ask{Agent: "bash", Via: "tool", Prompt: "q"}}
	case PostAsk:
		return Input{Event: e, Ask: &Ask{Agent: "bash", Via: "tool", Prompt: "q"}, Answer: "a", DurationMs: 12}
	}
	panic(e)
}

// procState returns the state letter of pid from /proc/<pid>/stat, or ""
// when there is no such process.
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "?"
	}
	f := strings.Fields(s[i+1:])
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// assertGone fails unless pid is gone. A zombie counts as gone: this
// container's init does not reap orphans. A SIGKILLed process can run no
// more code, but the kernel may need a moment to turn it into a zombie,
// hence the short grace.
func assertGone(t *testing.T, what string, pid int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		st := procState(pid)
		if st == "" || st == "Z" || st == "X" {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s (pid %d) still alive after Run returned: state %s", what, pid, st)
			exec := func() string {
				b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				return strings.ReplaceAll(string(b), "\x00", " ")
			}()
			t.Logf("cmdline: %s", exec)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		t.Fatalf("pid file %s: %q", path, b)
	}
	return pid
}

// ---- chains ----

func TestRunChainPreGeneration(t *testing.T) {
	t.Parallel()
	r, dir := newRunner(t, Set{PreGeneration: {
		h(`echo 1 >> order; cat > in1.json; ` + reply(`{"prompt":"second & <b>","context":"c1"}`)),
		h(`echo 2 >> order; cat > in2.json; ` + reply(`{"context":"  \n\t "}`)),
		h(`echo 3 >> order; cat > in3.json; ` + reply(`{"prompt":"third","context":"c3"}`)),
		h(`echo 4 >> order; cat > in4.json; ` + reply(`{"context":"c4"}`)),
	}})
	res := r.Run(context.Background(), Input{Event: PreGeneration, Prompt: "first @main.go $skill"}, "")

	if b, _ := os.ReadFile(filepath.Join(dir, "order")); string(b) != "1\n2\n3\n4\n" {
		t.Errorf("run order = %q, want 1..4", b)
	}
	for i, want := range []string{"first @main.go $skill", "second & <b>", "second & <b>", "third"} {
		in := readJSON(t, filepath.Join(dir, fmt.Sprintf("in%d.json", i+1)))
		if got := in["prompt"]; got != want {
			t.Errorf("hook %d read prompt %q, want %q", i+1, got, want)
		}
		if in["event"] != "preGeneration" || in["cwd"] != dir || in["model"] != "test/model" {
			t.Errorf("hook %d read event/cwd/model %v/%v/%v", i+1, in["event"], in["cwd"], in["model"])
		}
	}
	if raw, _ := os.ReadFile(filepath.Join(dir, "in2.json")); !strings.Contains(string(raw), `"prompt":"second & <b>"`) {
		t.Errorf("hook 2's stdin escapes &, < or >: %s", raw)
	}
	if res.Prompt == nil || *res.Prompt != "third" {
		t.Errorf("Result.Prompt = %s, want \"third\"", deref(res.Prompt))
	}
	if want := []string{"c1", "c3", "c4"}; !reflect.DeepEqual(res.Contexts, want) {
		t.Errorf("Contexts = %q, want %q (in order, blank dropped)", res.Contexts, want)
	}
	want := []string{"prompt replaced + context (2 chars)", "continue", "prompt replaced + context (2 chars)", "context (2 chars)"}
	if got := decisions(res); !reflect.DeepEqual(got, want) {
		t.Errorf("decisions = %q, want %q", got, want)
	}
	if res.Stop || res.Deny || res.Reason != "" || res.Response != "" {
		t.Errorf("unexpected stop/deny: %+v", res)
	}
}

func TestRunChainPreToolCallInput(t *testing.T) {
	t.Parallel()
	r, dir := newRunner(t, Set{PreToolCall: {
		h(`cat > in1.json; ` + reply(`{"input":{"command":"ls && echo hi > out"}}`)),
		h(`cat > in2.json; ` + reply(`{"input":["any", 1, {"json":"value"}]}`)),
		h(`cat > in3.json; ` + reply(`{"input":null,"context":"not read here"}`)),
		h(`cat > in4.json`),
	}})
	orig := json.RawMessage(`{"command":"rm -rf build"}`)
	in := Input{Event: PreToolCall, Tool: &Tool{ID: "call_1", Name: "bash", Input: orig}}
	res := r.Run(context.Background(), in, "bash")

	if got := field(readJSON(t, filepath.Join(dir, "in1.json")), "tool"); !reflect.DeepEqual(got, map[string]any{"id": "call_1", "name": "bash", "input": map[string]any{"command": "rm -rf build"}}) {
		t.Errorf("hook 1 read tool %v", got)
	}
	if got := field(readJSON(t, filepath.Join(dir, "in2.json")), "tool", "input", "command"); got != "ls && echo hi > out" {
		t.Errorf("hook 2 read tool.input.command %v, want hook 1's replacement", got)
	}
	if got := field(readJSON(t, filepath.Join(dir, "in3.json")), "tool", "input"); !reflect.DeepEqual(got, []any{"any", 1.0, map[string]any{"json": "value"}}) {
		t.Errorf("hook 3 read tool.input %v, want hook 2's replacement", got)
	}
	if got := field(readJSON(t, filepath.Join(dir, "in4.json")), "tool", "input"); !reflect.DeepEqual(got, []any{"any", 1.0, map[string]any{"json": "value"}}) {
		t.Errorf("hook 4 read tool.input %v: input null must leave it unchanged", got)
	}
	var got any
	if err := json.Unmarshal(res.Input, &got); err != nil || !reflect.DeepEqual(got, []any{"any", 1.0, map[string]any{"json": "value"}}) {
		t.Errorf("Result.Input = %s, want hook 2's", res.Input)
	}
	if string(in.Tool.Input) != string(orig) {
		t.Errorf("the caller's tool input was changed to %s", in.Tool.Input)
	}
	if want := []string{"input replaced", "input replaced", "continue", "continue"}; !reflect.DeepEqual(decisions(res), want) {
		t.Errorf("decisions = %q, want %q", decisions(res), want)
	}
	if len(res.Contexts) != 0 {
		t.Errorf("preToolCall does not read context; got %q", res.Contexts)
	}
	for _, run := range res.Runs {
		if run.Target != "bash" || run.Event != PreToolCall {
			t.Errorf("run %+v: want target bash, event preToolCall", run)
		}
	}
}

func TestRunChainPreAsk(t *testing.T) {
	t.Parallel()
	r, dir := newRunner(t, Set{PreAsk: {
		h(`cat > in1.json; ` + reply(`{"prompt":"p2","transcript":"t2","context":"ctx one"}`)),
		h(`cat > in2.json; ` + reply(`{"context":"ctx two"}`)),
		h(`cat > in3.json; ` + reply(`{"transcript":""}`)),
		h(`cat > in4.json`),
	}})
	in := Input{Event: PreAsk, Ask: &Ask{Agent: "expert", Config: "/c/agent.expert.yaml", Via: "tool", WithContext: true, Prompt: "p1", Transcript: "t1"}}
	res := r.Run(context.Background(), in, "expert")

	in1 := readJSON(t, filepath.Join(dir, "in1.json"))
	if field(in1, "ask", "prompt") != "p1" || field(in1, "ask", "transcript") != "t1" || field(in1, "ask", "withContext") != true || field(in1, "ask", "depth") != 0.0 {
		t.Errorf("hook 1 read ask %v", in1["ask"])
	}
	for i := 2; i <= 3; i++ {
		in := readJSON(t, filepath.Join(dir, fmt.Sprintf("in%d.json", i)))
		if field(in, "ask", "prompt") != "p2" || field(in, "ask", "transcript") != "t2" {
			t.Errorf("hook %d read ask %v, want hook 1's prompt and transcript", i, in["ask"])
		}
	}
	in4 := readJSON(t, filepath.Join(dir, "in4.json"))
	if field(in4, "ask", "prompt") != "p2" {
		t.Errorf("hook 4 read ask.prompt %v", field(in4, "ask", "prompt"))
	}
	if ask, _ := in4["ask"].(map[string]any); ask == nil || ask["transcript"] != nil {
		t.Errorf("hook 4 read ask %v: an emptied transcript is omitted", in4["ask"])
	}
	if res.Prompt == nil || *res.Prompt != "p2" || res.Transcript == nil || *res.Transcript != "" {
		t.Errorf("Result prompt %s transcript %s, want \"p2\" and \"\"", deref(res.Prompt), deref(res.Transcript))
	}
	if want := []string{"ctx one", "ctx two"}; !reflect.DeepEqual(res.Contexts, want) {
		t.Errorf("Contexts = %q, want %q", res.Contexts, want)
	}
	want := []string{"prompt replaced + transcript replaced + context (7 chars)", "context (7 chars)", "transcript replaced", "continue"}
	if !reflect.DeepEqual(decisions(res), want) {
		t.Errorf("decisions = %q, want %q", decisions(res), want)
	}
	if in.Ask.Prompt != "p1" || in.Ask.Transcript != "t1" {
		t.Errorf("the caller's ask was changed: %+v", in.Ask)
	}
}

func TestRunChainPostAsk(t *testing.T) {
	t.Parallel()
	r, dir := newRunner(t, Set{PostAsk: {
		h(`cat > in1.json; ` + reply(`{"answer":"A2","context":"k1","prompt":"ignored"}`)),
		h(`cat > in2.json; ` + reply(`{"answer":"A3 — é"}`)),
		h(`cat > in3.json; ` + reply(`{"context":"k3"}`)),
	}})
	in := Input{Event: PostAsk, Ask: &Ask{Agent: "expert", Via: "cli", Prompt: "q"}, Answer: "A1", Error: "", DurationMs: 25374}
	res := r.Run(context.Background(), in, "expert")
	for i, want := range []string{"A1", "A2", "A3 — é"} {
		got := readJSON(t, filepath.Join(dir, fmt.Sprintf("in%d.json", i+1)))
		if got["answer"] != want {
			t.Errorf("hook %d read answer %v, want %q", i+1, got["answer"], want)
		}
		if got["durationMs"] != 25374.0 || field(got, "ask", "prompt") != "q" {
			t.Errorf("hook %d read %v", i+1, got)
		}
	}
	if res.Answer == nil || *res.Answer != "A3 — é" {
		t.Errorf("Result.Answer = %s", deref(res.Answer))
	}
	if res.Prompt != nil {
		t.Errorf("postAsk does not read prompt; Result.Prompt = %s", deref(res.Prompt))
	}
	if want := []string{"k1", "k3"}; !reflect.DeepEqual(res.Contexts, want) {
		t.Errorf("Contexts = %q, want %q", res.Contexts, want)
	}
	want := []string{"answer replaced + context (2 chars)", "answer replaced", "context (2 chars)"}
	if !reflect.DeepEqual(decisions(res), want) {
		t.Errorf("decisions = %q, want %q", decisions(res), want)
	}
}

func TestRunContextsPostToolCall(t *testing.T) {
	t.Parallel()
	r, dir := newRunner(t, Set{PostToolCall: {
		h(reply(`{"context":"one"}`)),
		h(reply(`{"context":""}`)),
		h(reply(`{"context":"   "}`)),
		h(`true`),
		h(reply(`{"context":"two\nlines","prompt":"ignored","input":{"x":1},"answer":"ignored"}`)),
		h(`cat > in.json; ` + reply(`{"context":" three "}`)),
	}})
	res := r.Run(context.Background(), inputFor(PostToolCall), "bash")
	if want := []string{"one", "two\nlines", " three "}; !reflect.DeepEqual(res.Contexts, want) {
		t.Errorf("Contexts = %q, want %q", res.Contexts, want)
	}
	if res.Prompt != nil || res.Input != nil || res.Answer != nil {
		t.Errorf("postToolCall reads only context; got prompt %s input %s answer %s", deref(res.Prompt), res.Input, deref(res.Answer))
	}
	in := readJSON(t, filepath.Join(dir, "in.json"))
	if in["output"] != "a\nb" || field(in, "tool", "name") != "bash" {
		t.Errorf("postToolCall input %v", in)
	}
	want := []string{"context (3 chars)", "continue", "continue", "continue", "context (9 chars)", "context (7 chars)"}
	if !reflect.DeepEqual(decisions(res), want) {
		t.Errorf("decisions = %q, want %q", decisions(res), want)
	}
}

func TestRunPostGenerationObservesOnly(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t, Set{PostGeneration: {
		h(reply(`{"context":"audit","prompt":"x","answer":"y","input":1,"reason":"r","response":"s"}`)),
		h(reply(`{"action":"continue"}`)),
	}})
	res := r.Run(context.Background(), inputFor(PostGeneration), "")
	if len(res.Contexts) != 0 || res.Prompt != nil || res.Answer != nil || res.Input != nil || res.Stop || res.Deny {
		t.Errorf("postGeneration changed the result: %+v", res)
	}
	if want := []string{"continue", "continue"}; !reflect.DeepEqual(decisions(res), want) {
		t.Errorf("decisions = %q, want %q (a context returned to postGeneration shows continue)", decisions(res), want)
	}
}

// ---- stop and deny ----

func TestRunStopEndsChain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, reply, reason, response string
	}{
		{"default response", `{"action":"stop","reason":"secret found"}`, "secret found", "⛔ This request was blocked by a hook: secret found"},
		{"given response kept", `{"action":"stop","reason":"r","response":"Not today."}`, "r", "Not today."},
		{"blank response is the default", `{"action":"stop","reason":"r","response":" \n "}`, "r", "⛔ This request was blocked by a hook: r"},
		{"stop ignores prompt and context", `{"action":"stop","reason":"r","prompt":"p","context":"c"}`, "r", "⛔ This request was blocked by a hook: r"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, dir := newRunner(t, Set{PreGeneration: {
				h(reply(`{"context":"before"}`)),
				h(reply(tc.reply)),
				h(`touch ran`),
			}})
			res := r.Run(context.Background(), Input{Event: PreGeneration, Prompt: "x"}, "")
			if !res.Stop || res.Deny || res.Reason != tc.reason || res.Response != tc.response {
				t.Errorf("Stop %v Deny %v Reason %q Response %q; want stop, %q, %q", res.Stop, res.Deny, res.Reason, res.Response, tc.reason, tc.response)
			}
			if exists(filepath.Join(dir, "ran")) {
				t.Error("the hook after a stop ran")
			}
			if want := []string{"context (6 chars)", "stop"}; !reflect.DeepEqual(decisions(res), want) {
				t.Errorf("decisions = %q, want %q", decisions(res), want)
			}
		})
	}
	t.Run("no reason", func(t *testing.T) {
		t.Parallel()
		res, run := oneRun(t, context.Background(), PreGeneration, h(reply(`{"action":"stop"}`)), Input{Prompt: "x"})
		if !res.Stop || !strings.HasPrefix(res.Response, BlockedNotice) || run.Decision != "stop" || run.Failure != "" {
			t.Errorf("Stop %v Response %q run %+v", res.Stop, res.Response, run)
		}
	})
}

func TestRunDenyEndsChain(t *testing.T) {
	t.Parallel()
	for _, e := range []Event{PreToolCall, PreAsk} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			r, dir := newRunner(t, Set{e: {
				h(`touch ran1`),
				h(reply(`{"action":"deny","reason":"too dangerous","response":"ignored"}`)),
				h(`touch ran3`),
			}})
			res := r.Run(context.Background(), inputFor(e), "bash")
			if !res.Deny || res.Stop || res.Reason != "too dangerous" || res.Response != "" {
				t.Errorf("Deny %v Stop %v Reason %q Response %q", res.Deny, res.Stop, res.Reason, res.Response)
			}
			if !exists(filepath.Join(dir, "ran1")) || exists(filepath.Join(dir, "ran3")) {
				t.Errorf("ran1 %v (want true), ran3 %v (want false)", exists(filepath.Join(dir, "ran1")), exists(filepath.Join(dir, "ran3")))
			}
			if want := []string{"continue", "deny"}; !reflect.DeepEqual(decisions(res), want) {
				t.Errorf("decisions = %q, want %q", decisions(res), want)
			}
		})
	}
}

// ---- failures ----

func TestRunActionNotValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		event  Event
		action string
	}{
		{PostToolCall, "stop"},
		{PostToolCall, "deny"},
		{PreGeneration, "deny"},
		{PreToolCall, "stop"},
		{PreAsk, "stop"},
		{PostGeneration, "stop"},
		{PostGeneration, "deny"},
		{PostAsk, "deny"},
		{PreToolCall, "explode"},
		{PreGeneration, "Continue"},
		{PostAsk, " continue"},
	}
	for _, tc := range tests {
		t.Run(string(tc.event)+"/"+tc.action, func(t *testing.T) {
			t.Parallel()
			r, dir := newRunner(t, Set{tc.event: {
				h(reply(fmt.Sprintf(`{"action":%q,"reason":"r"}`, tc.action))),
				h(`touch next`),
			}})
			res := r.Run(context.Background(), inputFor(tc.event), "bash")
			want := fmt.Sprintf("action %q is not valid for %s", tc.action, tc.event)
			if len(res.Runs) != 2 || res.Runs[0].Failure != want || res.Runs[0].Decision != "failed" {
				t.Fatalf("runs %+v, want the first failed with %q", res.Runs, want)
			}
			if res.Stop || res.Deny {
				t.Errorf("a failing run under warn must not stop or deny: %+v", res)
			}
			if !exists(filepath.Join(dir, "next")) {
				t.Error("warn: the next hook did not run")
			}
		})
	}
	// The brief's example, exactly.
	_, run := oneRun(t, context.Background(), PostToolCall, h(reply(`{"action":"stop"}`)), inputFor(PostToolCall))
	if run.Failure != `action "stop" is not valid for postToolCall` {
		t.Errorf("Failure = %q", run.Failure)
	}
}

func TestRunActionError(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		`{"action":"error","error":"disk full"}`:      "disk full",
		`{"action":"error"}`:                          "the hook reported an error",
		`{"action":"error","error":""}`:               "the hook reported an error",
		`{"action":"error","error":"  \n"}`:           "the hook reported an error",
		`{"action":"error","error":null}`:             "the hook reported an error",
		`{"action":"error","error":"x","reason":"r"}`: "x",
	}
	for out, want := range tests {
		for _, e := range Events {
			_, run := oneRun(t, context.Background(), e, h(reply(out)), inputFor(e))
			if run.Failure != want || run.Decision != "failed" {
				t.Errorf("%s %s: failure %q decision %q, want %q failed", e, out, run.Failure, run.Decision, want)
			}
		}
	}
}

func TestRunExitStatus(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	long := strings.Repeat("a", 299) + "B" + strings.Repeat("C", 200) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "long"), []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	utf := strings.Repeat("a", 299) + "é and more"
	if err := os.WriteFile(filepath.Join(dir, "utf"), []byte(utf), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, cmd, want string
	}{
		{"stderr quoted", `echo 'no such file' >&2; exit 3`, "exit status 3: no such file"},
		{"first 300 bytes", `cat ` + shq(filepath.Join(dir, "long")) + ` >&2; exit 3`, "exit status 3: " + strings.Repeat("a", 299) + "B"},
		{"cut inside a rune", `cat ` + shq(filepath.Join(dir, "utf")) + ` >&2; exit 3`, "exit status 3: " + strings.Repeat("a", 299)},
		{"no stderr", `exit 3`, "exit status 3"},
		{"valid JSON but non-zero", reply(`{"action":"continue"}`) + `; exit 1`, "exit status 1"},
		{"exit 255", `exit 255`, "exit status 255"},
		{"command not found", `/nonexistent/hook-binary 2>/dev/null`, "exit status 127"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, run := oneRun(t, context.Background(), PreToolCall, h(tc.cmd), inputFor(PreToolCall))
			if run.Failure != tc.want {
				t.Errorf("Failure = %q\nwant      %q", run.Failure, tc.want)
			}
		})
	}
	t.Run("multi-line stderr on one line", func(t *testing.T) {
		t.Parallel()
		_, run := oneRun(t, context.Background(), PreToolCall, h(`printf 'line one\nline two\n' >&2; exit 2`), inputFor(PreToolCall))
		if !strings.HasPrefix(run.Failure, "exit status 2: line one") || !strings.Contains(run.Failure, "line two") || strings.ContainsAny(run.Failure, "\r\n") {
			t.Errorf("Failure = %q", run.Failure)
		}
	})
	t.Run("stderr ignored on success", func(t *testing.T) {
		t.Parallel()
		_, run := oneRun(t, context.Background(), PreToolCall, h(`echo noise >&2; `+reply(`{"reason":"x"}`)), inputFor(PreToolCall))
		if run.Failure != "" || run.Decision != "continue" {
			t.Errorf("run %+v", run)
		}
	})
	t.Run("stderr flood does not block", func(t *testing.T) {
		t.Parallel()
		start := time.Now()
		_, run := oneRun(t, context.Background(), PreToolCall, h(`head -c 3000000 /dev/zero >&2; exit 4`), inputFor(PreToolCall))
		if !strings.HasPrefix(run.Failure, "exit status 4") || time.Since(start) > 3*time.Second {
			t.Errorf("Failure %q after %v", run.Failure, time.Since(start))
		}
	})
}

func TestRunInvalidStdout(t *testing.T) {
	t.Parallel()
	for _, out := range []string{`not json`, `[1]`, `null`, `{"prompt":1}`, `{} {}`} {
		_, run := oneRun(t, context.Background(), PreGeneration, h(reply(out)), inputFor(PreGeneration))
		if !strings.HasPrefix(run.Failure, invalidPrefix) || run.Decision != "failed" {
			t.Errorf("%s: run %+v", out, run)
		}
	}
}

func TestRunTimeout(t *testing.T) {
	t.Parallel()
	start := time.Now()
	_, run := oneRun(t, context.Background(), PreToolCall, h(`sleep 30`, 200*time.Millisecond), inputFor(PreToolCall))
	if el := time.Since(start); el > 2*time.Second || el < 200*time.Millisecond {
		t.Errorf("Run took %v for a 200ms timeout", el)
	}
	if run.Failure != "timed out after 200ms" || run.Decision != "failed" {
		t.Errorf("run %+v", run)
	}
	t.Run("default timeout when 0", func(t *testing.T) {
		t.Parallel()
		_, run := oneRun(t, context.Background(), PreToolCall, h(`true`, time.Duration(0)), inputFor(PreToolCall))
		if run.Failure != "" {
			t.Errorf("a hook with timeout 0 (the default, 10s) failed: %q", run.Failure)
		}
	})
	t.Run("timeout spelled as written", func(t *testing.T) {
		t.Parallel()
		_, run := oneRun(t, context.Background(), PostToolCall, h(`sleep 30`, 1500*time.Millisecond), inputFor(PostToolCall))
		if run.Failure != "timed out after 1.5s" {
			t.Errorf("Failure = %q", run.Failure)
		}
	})
}

func TestRunCancelled(t *testing.T) {
	t.Parallel()
	for _, e := range []Event{PreGeneration, PreToolCall, PostToolCall, PreAsk} {
		t.Run(string(e)+"/before", func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			r, dir := newRunner(t, Set{e: {h(`touch ran`)}})
			res := r.Run(ctx, inputFor(e), "bash")
			if len(res.Runs) != 1 || res.Runs[0].Failure != "cancelled" || res.Runs[0].Decision != "failed" {
				t.Fatalf("runs %+v, want one cancelled", res.Runs)
			}
			if exists(filepath.Join(dir, "ran")) {
				t.Error("a hook ran although the turn was already cancelled")
			}
		})
		t.Run(string(e)+"/during", func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r, dir := newRunner(t, Set{e: {h(`echo $$ > sh.pid; sleep 30`, 10*time.Second)}})
			cancelled := make(chan time.Time, 1)
			go func() { // cancel once the hook is surely running
				for i := 0; i < 500 && !exists(filepath.Join(dir, "sh.pid")); i++ {
					time.Sleep(10 * time.Millisecond)
				}
				time.Sleep(50 * time.Millisecond)
				cancelled <- time.Now()
				cancel()
			}()
			res := r.Run(ctx, inputFor(e), "bash")
			if el := time.Since(<-cancelled); el > time.Second {
				t.Errorf("Run returned %v after the cancel", el)
			}
			if len(res.Runs) != 1 || res.Runs[0].Failure != "cancelled" {
				t.Fatalf("runs %+v, want one cancelled", res.Runs)
			}
			assertGone(t, "cancelled hook", readPid(t, filepath.Join(dir, "sh.pid")))
		})
	}
	t.Run("preToolCall fail denies", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, _ := oneRun(t, ctx, PreToolCall, h(`true`, Fail), inputFor(PreToolCall))
		if !res.Deny || res.Reason != "hook failed: cancelled" {
			t.Errorf("Deny %v Reason %q", res.Deny, res.Reason)
		}
	})
	for _, e := range []Event{PostGeneration, PostAsk} {
		t.Run(string(e)+"/survives", func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			r, dir := newRunner(t, Set{e: {h(`sleep 0.2; cat > in.json; ` + reply(`{"action":"continue"}`))}})
			res := r.Run(ctx, inputFor(e), "bash")
			if len(res.Runs) != 1 || res.Runs[0].Failure != "" || res.Runs[0].Decision != "continue" {
				t.Fatalf("runs %+v, want one that ran to the end after the cancel", res.Runs)
			}
			if in := readJSON(t, filepath.Join(dir, "in.json")); in["event"] != string(e) {
				t.Errorf("input %v", in)
			}
		})
		t.Run(string(e)+"/bounded by timeout", func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			start := time.Now()
			_, run := oneRun(t, ctx, e, h(`sleep 30`, 300*time.Millisecond), inputFor(e))
			el := time.Since(start)
			if run.Failure != "timed out after 300ms" || el < 300*time.Millisecond || el > 2*time.Second {
				t.Errorf("Failure %q after %v, want timed out after 300ms", run.Failure, el)
			}
		})
		t.Run(string(e)+"/cancel during", func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			time.AfterFunc(50*time.Millisecond, cancel)
			_, run := oneRun(t, ctx, e, h(`sleep 0.4; `+reply(`{"answer":"late"}`)), inputFor(e))
			if run.Failure != "" {
				t.Errorf("%s hook was cut by the cancel: %q", e, run.Failure)
			}
		})
	}
}

func TestRunStdoutLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A valid reply of exactly 1 MiB, and one byte more.
	text := strings.Repeat("x", maxStdout-len(`{"context":""}`)-1)
	exact := `{"context":"` + text + `"}` + "\n"
	if len(exact) != maxStdout {
		t.Fatalf("bad fixture: %d", len(exact))
	}
	os.WriteFile(filepath.Join(dir, "exact.json"), []byte(exact), 0o644)
	os.WriteFile(filepath.Join(dir, "over.json"), []byte(" "+exact), 0o644)
	const over = "stdout larger than 1048576 bytes"
	tests := []struct {
		name, cmd, failure string
	}{
		{"1 MiB of blanks", `head -c 1048576 /dev/zero | tr '\0' ' '`, ""},
		{"1 MiB + 1 of blanks", `head -c 1048577 /dev/zero | tr '\0' ' '`, over},
		{"valid reply of exactly 1 MiB", `cat ` + shq(filepath.Join(dir, "exact.json")), ""},
		{"valid reply of 1 MiB + 1", `cat ` + shq(filepath.Join(dir, "over.json")), over},
		{"3 MiB then exit 0", `head -c 3145728 /dev/zero | tr '\0' ' '`, over},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, run := oneRun(t, context.Background(), PostToolCall, h(tc.cmd), inputFor(PostToolCall))
			if run.Failure != tc.failure {
				t.Errorf("Failure = %q, want %q", run.Failure, tc.failure)
			}
			if tc.name == "valid reply of exactly 1 MiB" && (len(res.Contexts) != 1 || res.Contexts[0] != text) {
				t.Errorf("the 1 MiB reply's context was not kept")
			}
		})
	}
}

// TestRunStdoutFlood: a hook that would write forever is stopped at 1 MiB,
// killed at once, and mm does not buffer what it writes. Not parallel, so
// the allocation count is this test's alone.
func TestRunStdoutFlood(t *testing.T) {
	r, dir := newRunner(t, Set{PreToolCall: {h(`sh -c 'echo $$ > yes.pid; exec yes' & wait`, 20*time.Second)}})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res := r.Run(context.Background(), inputFor(PreToolCall), "bash")
	el := time.Since(start)
	runtime.ReadMemStats(&after)
	if len(res.Runs) != 1 || res.Runs[0].Failure != "stdout larger than 1048576 bytes" {
		t.Fatalf("runs %+v", res.Runs)
	}
	if el > 3*time.Second {
		t.Errorf("the flooding hook was stopped after %v, want promptly", el)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("mm allocated %d bytes while reading a flood; it should keep at most about 1 MiB", alloc)
	}
	assertGone(t, "yes", readPid(t, filepath.Join(dir, "yes.pid")))
}

// TestRunStdoutFloodThenLinger: the hook is killed as soon as stdout passes
// 1 MiB, not left to run until its timeout once the writer has died.
func TestRunStdoutFloodThenLinger(t *testing.T) {
	t.Parallel()
	r, dir := newRunner(t, Set{PreToolCall: {h(`echo $$ > sh.pid; head -c 2000000 /dev/zero | tr '\0' ' '; sleep 30`, 10*time.Second)}})
	start := time.Now()
	res := r.Run(context.Background(), inputFor(PreToolCall), "bash")
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("Run took %v: the hook was not killed when stdout passed 1 MiB", el)
	}
	if res.Runs[0].Failure != "stdout larger than 1048576 bytes" {
		t.Errorf("Failure = %q", res.Runs[0].Failure)
	}
	assertGone(t, "the hook's shell", readPid(t, filepath.Join(dir, "sh.pid")))
}

// ---- onError ----

func TestRunOnError(t *testing.T) {
	t.Parallel()
	const fail = "exit status 3: broken"
	for _, e := range Events {
		for _, oe := range []OnError{Fail, Warn, Ignore} {
			t.Run(string(e)+"/"+string(oe), func(t *testing.T) {
				t.Parallel()
				r, dir := newRunner(t, Set{e: {
					h(`echo broken >&2; exit 3`, oe),
					h(`touch after`),
				}})
				res := r.Run(context.Background(), inputFor(e), "bash")
				first := res.Runs[0]
				if first.Failure != fail || first.Decision != "failed" || first.OnError != oe {
					t.Errorf("first run %+v", first)
				}
				if first.Reported() != (oe != Ignore) {
					t.Errorf("Reported() = %v under %s", first.Reported(), oe)
				}
				stops := oe == Fail && (e == PreGeneration || e == PreToolCall || e == PreAsk)
				if ran := exists(filepath.Join(dir, "after")); ran == stops {
					t.Errorf("next hook ran = %v, want %v", ran, !stops)
				}
				if want := map[bool]int{true: 1, false: 2}[stops]; len(res.Runs) != want {
					t.Errorf("%d runs, want %d", len(res.Runs), want)
				}
				switch {
				case oe == Fail && e == PreGeneration:
					if !res.Stop || res.Deny || res.Reason != "hook failed: "+fail || res.Response != "⛔ This request was blocked by a hook: hook failed: "+fail {
						t.Errorf("Stop %v Deny %v Reason %q Response %q", res.Stop, res.Deny, res.Reason, res.Response)
					}
				case oe == Fail && (e == PreToolCall || e == PreAsk):
					if !res.Deny || res.Stop || res.Reason != "hook failed: "+fail || res.Response != "" {
						t.Errorf("Deny %v Stop %v Reason %q Response %q", res.Deny, res.Stop, res.Reason, res.Response)
					}
				default:
					if res.Stop || res.Deny || res.Reason != "" {
						t.Errorf("Stop %v Deny %v Reason %q, want the chain to continue", res.Stop, res.Deny, res.Reason)
					}
				}
			})
		}
	}
}

func TestRunFailedRunChangesNothing(t *testing.T) {
	t.Parallel()
	// A reply whose action is invalid is a failure: none of its fields apply.
	r, _ := newRunner(t, Set{PreGeneration: {
		h(reply(`{"action":"deny","prompt":"p","context":"c"}`)),
		h(reply(`{"prompt":"x"}`) + `; exit 1`),
	}})
	res := r.Run(context.Background(), inputFor(PreGeneration), "")
	if res.Prompt != nil || len(res.Contexts) != 0 {
		t.Errorf("a failed run changed the result: prompt %s contexts %q", deref(res.Prompt), res.Contexts)
	}
}

func TestRunReported(t *testing.T) {
	t.Parallel()
	tests := []struct {
		run  Run
		want bool
	}{
		{Run{Decision: "continue", OnError: Warn}, false},
		{Run{Decision: "continue", OnError: Fail}, false},
		{Run{Decision: "failed", Failure: "x", OnError: Warn}, true},
		{Run{Decision: "failed", Failure: "x", OnError: Fail}, true},
		{Run{Decision: "failed", Failure: "x", OnError: Ignore}, false},
		{Run{Decision: "deny", OnError: Fail}, false},
	}
	for _, tc := range tests {
		if got := tc.run.Reported(); got != tc.want {
			t.Errorf("%+v.Reported() = %v, want %v", tc.run, got, tc.want)
		}
	}
}

// ---- decisions ----

func TestRunDecision(t *testing.T) {
	t.Parallel()
	tests := []struct {
		event       Event
		reply, want string
	}{
		{PreGeneration, ``, "continue"},
		{PreGeneration, `{}`, "continue"},
		{PreGeneration, `{"action":"continue"}`, "continue"},
		{PreGeneration, `{"prompt":"p","context":"héllo"}`, "prompt replaced + context (5 chars)"},
		{PreGeneration, `{"context":"🪝🪝"}`, "context (2 chars)"},
		{PreGeneration, `{"prompt":""}`, "prompt replaced"},
		{PreGeneration, `{"context":"   "}`, "continue"},
		{PreGeneration, `{"action":"stop","reason":"r"}`, "stop"},
		{PreToolCall, `{"action":"deny"}`, "deny"},
		{PreToolCall, `{"input":{}}`, "input replaced"},
		{PreToolCall, `{"input":{},"context":"c","prompt":"p"}`, "input replaced"},
		{PostToolCall, `{"context":"abc","input":{}}`, "context (3 chars)"},
		{PostGeneration, `{"context":"abc"}`, "continue"},
		{PostGeneration, `{"prompt":"abc","answer":"x"}`, "continue"},
		{PreAsk, `{"context":"c","transcript":"t","prompt":"p"}`, "prompt replaced + transcript replaced + context (1 chars)"},
		{PreAsk, `{"action":"deny","reason":"r"}`, "deny"},
		{PostAsk, `{"context":"ctx","answer":"a"}`, "answer replaced + context (3 chars)"},
		{PostAsk, `{"action":"error"}`, "failed"},
	}
	for _, tc := range tests {
		t.Run(string(tc.event)+" "+tc.reply, func(t *testing.T) {
			t.Parallel()
			cmd := "true"
			if tc.reply != "" {
				cmd = reply(tc.reply)
			}
			_, run := oneRun(t, context.Background(), tc.event, h(cmd), inputFor(tc.event))
			if run.Decision != tc.want {
				t.Errorf("Decision = %q, want %q", run.Decision, tc.want)
			}
		})
	}
}

// ---- matcher, environment, input ----

func TestRunMatcher(t *testing.T) {
	t.Parallel()
	for _, e := range []Event{PreToolCall, PostToolCall, PreAsk, PostAsk} {
		set := Set{e: {
			h(`echo any >> order`),
			h(`echo bash >> order`, "bash"),
			h(`echo anchored >> order`, "^bash$"),
			h(`echo files >> order`, "^(read|write)_file$"),
		}}
		for target, want := range map[string]string{
			"bash":       "any bash anchored",
			"my_bash":    "any bash",
			"bash2":      "any bash",
			"read_file":  "any files",
			"edit_file":  "any",
			"":           "any",
			"write_file": "any files",
		} {
			r := &Runner{Hooks: set, Cwd: t.TempDir()}
			res := r.Run(context.Background(), inputFor(e), target)
			b, _ := os.ReadFile(filepath.Join(r.Cwd, "order"))
			if got := strings.Join(strings.Fields(string(b)), " "); got != want {
				t.Errorf("%s target %q ran %q, want %q", e, target, got, want)
			}
			for _, run := range res.Runs {
				if run.Target != target {
					t.Errorf("%s run target %q, want %q", e, run.Target, target)
				}
			}
		}
	}
}

func TestRunEnvironment(t *testing.T) {
	t.Parallel()
	for _, e := range Events {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			hk := h(`printf '%s\n%s\n%s\n%s\n' "$MM_HOOK_EVENT" "$MM_CONFIG_DIR" "$FOO" "$(pwd -P)" > env.txt`)
			hk.ConfigDir = "/some/config dir"
			r, dir := newRunner(t, Set{e: {hk}})
			r.Env = []string{"PATH=" + os.Getenv("PATH"), "MM_HOOK_EVENT=stale", "MM_CONFIG_DIR=/stale", "FOO=bar baz"}
			res := r.Run(context.Background(), inputFor(e), "bash")
			if len(res.Runs) != 1 || res.Runs[0].Failure != "" {
				t.Fatalf("runs %+v", res.Runs)
			}
			real, _ := filepath.EvalSymlinks(dir)
			want := fmt.Sprintf("%s\n/some/config dir\nbar baz\n%s\n", e, real)
			if b, _ := os.ReadFile(filepath.Join(dir, "env.txt")); string(b) != want {
				t.Errorf("env/cwd = %q, want %q", b, want)
			}
		})
	}
	t.Run("inherits mm's environment", func(t *testing.T) {
		t.Parallel()
		r, dir := newRunner(t, Set{PreToolCall: {h(`printf '%s' "$PATH" > path.txt`)}})
		r.Run(context.Background(), inputFor(PreToolCall), "bash")
		if b, _ := os.ReadFile(filepath.Join(dir, "path.txt")); string(b) != os.Getenv("PATH") {
			t.Errorf("PATH = %q, want mm's %q", b, os.Getenv("PATH"))
		}
	})
	t.Run("Env not modified", func(t *testing.T) {
		t.Parallel()
		env := make([]string, 1, 10) // spare capacity: appending in place would leak
		env[0] = "PATH=" + os.Getenv("PATH")
		r, _ := newRunner(t, Set{PreToolCall: {h(`true`), h(`true`)}})
		r.Env = env
		r.Run(context.Background(), inputFor(PreToolCall), "bash")
		if len(r.Env) != 1 || strings.Contains(strings.Join(env[:cap(env)][1:], ""), "MM_") {
			t.Errorf("Runner.Env changed: %q", env[:cap(env)])
		}
	})
}

func TestRunInputFields(t *testing.T) {
	t.Parallel()
	for _, depth := range []int{0, 1, 3} {
		for _, e := range Events {
			t.Run(fmt.Sprintf("%s/depth%d", e, depth), func(t *testing.T) {
				t.Parallel()
				r, dir := newRunner(t, Set{e: {h(`cat > in.json`)}})
				r.Depth = depth
				r.Model = "llmman/m:1"
				in := inputFor(e)
				in.Cwd, in.Model = "/caller/cwd", "caller/model" // the runner's win
				r.Run(context.Background(), in, "bash")
				got := readJSON(t, filepath.Join(dir, "in.json"))
				if got["event"] != string(e) || got["cwd"] != dir || got["model"] != "llmman/m:1" {
					t.Errorf("event/cwd/model = %v/%v/%v", got["event"], got["cwd"], got["model"])
				}
				asked, present := got["asked"]
				if depth == 0 && present {
					t.Errorf("asked = %v at depth 0, want absent", asked)
				}
				if depth > 0 && !reflect.DeepEqual(asked, map[string]any{"depth": float64(depth)}) {
					t.Errorf("asked = %v, want {depth: %d}", asked, depth)
				}
			})
		}
	}
}

// TestRunLargeInput: an input larger than a pipe reaches the hook whole,
// exactly as encode writes it.
func TestRunLargeInput(t *testing.T) {
	t.Parallel()
	r, dir := newRunner(t, Set{PostToolCall: {h(`cat > in.json`)}})
	in := inputFor(PostToolCall)
	in.Output = strings.Repeat("line & <tag> é\n", 30000) // ~500 KB
	res := r.Run(context.Background(), in, "bash")
	if res.Runs[0].Failure != "" {
		t.Fatalf("failure %q", res.Runs[0].Failure)
	}
	in.Cwd, in.Model = r.Cwd, r.Model
	want, err := in.encode()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "in.json"))
	if string(got) != string(want) {
		t.Errorf("hook read %d bytes, want the %d bytes encode writes", len(got), len(want))
	}
}

// ---- stdin ----

func TestRunStdin(t *testing.T) {
	t.Parallel()
	big := inputFor(PostToolCall)
	big.Output = strings.Repeat("x", 1<<20)
	tests := []struct {
		name    string
		cmd     string
		timeout time.Duration
		in      Input
		failure string
		context string
		max     time.Duration
	}{
		{"closes stdin without reading", `exec 0<&-; ` + reply(`{"context":"ok"}`), 5 * time.Second, inputFor(PostToolCall), "", "ok", 2 * time.Second},
		{"closes stdin without reading, 1 MiB input", `exec 0<&-; sleep 0.1; ` + reply(`{"context":"ok"}`), 5 * time.Second, big, "", "ok", 2 * time.Second},
		{"never reads, 1 MiB input", reply(`{"context":"ok"}`), 5 * time.Second, big, "", "ok", 2 * time.Second},
		{"never reads, keeps running, 1 MiB input", `sleep 30`, 300 * time.Millisecond, big, "timed out after 300ms", "", 2 * time.Second},
		{"reads line by line to EOF", `n=0; while read x; do n=$((n+1)); done; ` + `printf '{"context":"read %s lines"}\n' "$n"`, 5 * time.Second, inputFor(PostToolCall), "", "read 1 lines", 2 * time.Second},
		{"reads to EOF, 1 MiB input", `while read x; do :; done; ` + reply(`{"context":"eof"}`), 5 * time.Second, big, "", "eof", 3 * time.Second},
		{"reads to EOF then never finishes", `while read x; do :; done; exec sleep 100`, 300 * time.Millisecond, inputFor(PostToolCall), "timed out after 300ms", "", 2 * time.Second},
		{"reads stdin twice", `cat >/dev/null; cat >/dev/null; ` + reply(`{"context":"twice"}`), 5 * time.Second, inputFor(PostToolCall), "", "twice", 2 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			res, run := oneRun(t, context.Background(), PostToolCall, h(tc.cmd, tc.timeout), tc.in)
			if el := time.Since(start); el > tc.max {
				t.Errorf("Run took %v, want under %v", el, tc.max)
			}
			if run.Failure != tc.failure {
				t.Errorf("Failure = %q, want %q", run.Failure, tc.failure)
			}
			if tc.context != "" && (len(res.Contexts) != 1 || res.Contexts[0] != tc.context) {
				t.Errorf("Contexts = %q, want [%q]", res.Contexts, tc.context)
			}
		})
	}
}

// ---- processes ----

func TestRunKillsGroupOnTimeout(t *testing.T) {
	t.Parallel()
	r, dir := newRunner(t, Set{PreToolCall: {h(`sleep 30 & echo $! > bg.pid; echo $$ > sh.pid; sleep 31 & echo $! > fg.pid; wait`, 500*time.Millisecond)}})
	start := time.Now()
	res := r.Run(context.Background(), inputFor(PreToolCall), "bash")
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("Run took %v", el)
	}
	if res.Runs[0].Failure != "timed out after 500ms" {
		t.Errorf("Failure = %q", res.Runs[0].Failure)
	}
	assertGone(t, "background sleep 30", readPid(t, filepath.Join(dir, "bg.pid")))
	assertGone(t, "foreground sleep 31", readPid(t, filepath.Join(dir, "fg.pid")))
	assertGone(t, "the hook's shell", readPid(t, filepath.Join(dir, "sh.pid")))
}

func TestRunBackgroundChildHoldingStdout(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"holds stdout and stderr": `sleep 30 & echo $! > bg.pid; ` + reply(`{"context":"done"}`),
		"holds stdout only":       `sleep 30 2>/dev/null & echo $! > bg.pid; ` + reply(`{"context":"done"}`),
		"holds stderr only":       `sleep 30 >/dev/null & echo $! > bg.pid; ` + reply(`{"context":"done"}`),
		"holds stdin":             `exec 3<&0; sleep 30 <&3 >/dev/null 2>&1 3<&- & echo $! > bg.pid; ` + reply(`{"context":"done"}`),
		"holds no pipe":           `sleep 30 </dev/null >/dev/null 2>&1 & echo $! > bg.pid; ` + reply(`{"context":"done"}`),
		"grandchild":              `sh -c 'sleep 30 & echo $! > bg.pid; wait' & ` + `while [ ! -s bg.pid ]; do sleep 0.01; done; ` + reply(`{"context":"done"}`),
	}
	for name, cmd := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, dir := newRunner(t, Set{PostToolCall: {h(cmd, 10*time.Second)}})
			start := time.Now()
			res := r.Run(context.Background(), inputFor(PostToolCall), "bash")
			if el := time.Since(start); el > 800*time.Millisecond {
				t.Errorf("Run took %v: it waited for the background child", el)
			}
			if run := res.Runs[0]; run.Failure != "" || len(res.Contexts) != 1 || res.Contexts[0] != "done" {
				t.Errorf("run %+v contexts %q", run, res.Contexts)
			}
			assertGone(t, "background child", readPid(t, filepath.Join(dir, "bg.pid")))
		})
	}
}

// ---- runner ----

func TestRunNoHooks(t *testing.T) {
	t.Parallel()
	var nilRunner *Runner
	if res := nilRunner.Run(context.Background(), inputFor(PreToolCall), "bash"); !reflect.DeepEqual(res, Result{}) {
		t.Errorf("nil runner: %+v", res)
	}
	r := &Runner{Hooks: Set{PostToolCall: {h(`exit 1`)}}, Cwd: t.TempDir()}
	if res := r.Run(context.Background(), inputFor(PreToolCall), "bash"); !reflect.DeepEqual(res, Result{}) {
		t.Errorf("no preToolCall hook: %+v", res)
	}
	r = &Runner{Hooks: Set{PreToolCall: {h(`exit 1`, "^read")}}, Cwd: t.TempDir()}
	if res := r.Run(context.Background(), inputFor(PreToolCall), "bash"); len(res.Runs) != 0 || res.Deny {
		t.Errorf("no matching hook: %+v", res)
	}
}

func TestRunObserve(t *testing.T) {
	t.Parallel()
	var (
		mu   sync.Mutex
		seen []Run
	)
	r, _ := newRunner(t, Set{PreGeneration: {
		h(reply(`{"context":"abc"}`)),
		h(`exit 3`, Ignore),
		h(reply(`{"action":"stop","reason":"r"}`)),
		h(`true`),
	}})
	r.Observe = func(run Run) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, run)
	}
	before := time.Now()
	res := r.Run(context.Background(), inputFor(PreGeneration), "")
	if !reflect.DeepEqual(seen, res.Runs) {
		t.Errorf("Observe saw %+v\nResult.Runs %+v", seen, res.Runs)
	}
	if want := []string{"context (3 chars)", "failed", "stop"}; !reflect.DeepEqual(decisions(res), want) {
		t.Errorf("decisions %q, want %q", decisions(res), want)
	}
	if want := []string{"", "exit status 3", ""}; !reflect.DeepEqual(failures(res), want) {
		t.Errorf("failures %q, want %q", failures(res), want)
	}
	for i, run := range seen {
		if run.Event != PreGeneration || run.Command != r.Hooks[PreGeneration][i].Command || run.Start.Before(before) || run.Duration <= 0 || run.Target != "" {
			t.Errorf("run %d: %+v", i, run)
		}
	}
}

// TestRunConcurrent: two tool calls of one reply may run their chains at the
// same time; the runner is shared.
func TestRunConcurrent(t *testing.T) {
	t.Parallel()
	r, dir := newRunner(t, Set{PostToolCall: {
		h(`cat > "in.$$.json"; sleep 0.3; ` + reply(`{"context":"c"}`)),
		h(reply(`{"context":"d"}`)),
	}})
	var mu sync.Mutex
	n := 0
	r.Observe = func(Run) { mu.Lock(); n++; mu.Unlock() }
	const calls = 4
	var wg sync.WaitGroup
	results := make([]Result, calls)
	start := time.Now()
	for i := range calls {
		wg.Go(func() {
			in := inputFor(PostToolCall)
			in.Output = fmt.Sprintf("output %d", i)
			results[i] = r.Run(context.Background(), in, "bash")
		})
	}
	wg.Wait()
	if el := time.Since(start); el > 1100*time.Millisecond {
		t.Errorf("%d concurrent chains of a 0.3s hook took %v: they did not run in parallel", calls, el)
	}
	for i, res := range results {
		if !reflect.DeepEqual(res.Contexts, []string{"c", "d"}) {
			t.Errorf("call %d: contexts %q", i, res.Contexts)
		}
	}
	if n != 2*calls {
		t.Errorf("Observe called %d times, want %d", n, 2*calls)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "in.*.json"))
	outs := map[any]bool{}
	for _, f := range files {
		outs[readJSON(t, f)["output"]] = true
	}
	if len(outs) != calls {
		t.Errorf("hooks read outputs %v, want %d different ones", outs, calls)
	}
}
