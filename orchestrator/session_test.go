package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/model"
)

// The turn loop against a fake model (scripted replies, what it was sent
// recorded) and fake tools; hooks are real hook commands (sh -c), as the
// orchestrator runs them.

// fakeModel answers each request with the next reply; a reply whose
// content is "wait" streams "Half an answer" and blocks until the turn is
// cancelled.
type fakeModel struct {
	mu      sync.Mutex
	replies []model.Reply
	sent    [][]model.Message
}

func (f *fakeModel) Chat(ctx context.Context, req model.Request, onText func(string)) (model.Reply, error) {
	f.mu.Lock()
	f.sent = append(f.sent, slices.Clone(req.Messages))
	if len(f.replies) == 0 {
		f.mu.Unlock()
		return model.Reply{}, errors.New("fakeModel: no reply left")
	}
	r := f.replies[0]
	if len(f.replies) > 1 || len(r.ToolCalls) == 0 {
		f.replies = f.replies[1:]
	}
	f.mu.Unlock()
	if r.Content == "wait" {
		onText("Half an answer")
		<-ctx.Done()
		return model.Reply{Content: "Half an answer"}, ctx.Err()
	}
	for _, w := range strings.SplitAfter(r.Content, " ") {
		if w != "" {
			onText(w)
		}
	}
	return r, nil
}

// last is the last message the model was sent.
func (f *fakeModel) last() model.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.sent[len(f.sent)-1]
	return m[len(m)-1]
}

func call(id, tool, args string) model.ToolCall {
	return model.ToolCall{ID: id, Function: model.FunctionCall{Name: tool, Arguments: args}}
}

// fakeTool records the inputs it ran with; with barrier set, each call
// waits until barrier calls are running at once.
type fakeTool struct {
	name    string
	result  Result
	mu      sync.Mutex
	inputs  []string
	running int
	most    int
	barrier int
	all     chan struct{}
}

func (t *fakeTool) Def() model.ToolDef { return model.ToolDef{Name: t.name} }

func (t *fakeTool) Run(ctx context.Context, input json.RawMessage) Result {
	t.mu.Lock()
	t.inputs = append(t.inputs, string(input))
	t.running++
	t.most = max(t.most, t.running)
	if t.barrier > 0 && t.running == t.barrier {
		close(t.all)
	}
	t.mu.Unlock()
	if t.barrier > 0 {
		select {
		case <-t.all:
		case <-time.After(5 * time.Second):
		}
	}
	t.mu.Lock()
	t.running--
	t.mu.Unlock()
	if t.result == (Result{}) {
		return Result{Output: "ran " + string(input)}
	}
	return t.result
}

// hook is one hook of event running command.
func hook(event hooks.Event, command string) hooks.Set {
	return hooks.Set{event: {{Command: command, Timeout: 5 * time.Second, OnError: hooks.Warn}}}
}

func runner(t *testing.T, sets ...hooks.Set) *hooks.Runner {
	r := &hooks.Runner{Hooks: hooks.Set{}, Cwd: t.TempDir()}
	for _, s := range sets {
		for e, hs := range s {
			r.Hooks[e] = append(r.Hooks[e], hs...)
		}
	}
	return r
}

// collect records what a turn shows.
func collect() (func(Event), func() []Event) {
	var mu sync.Mutex
	var evs []Event
	return func(ev Event) {
			mu.Lock()
			evs = append(evs, ev)
			mu.Unlock()
		}, func() []Event {
			mu.Lock()
			defer mu.Unlock()
			return slices.Clone(evs)
		}
}

func TestTextStreams(t *testing.T) {
	m := &fakeModel{replies: []model.Reply{{Content: "Hello there, friend."}}}
	s := NewSession(&Agent{Model: m, System: "Be brief.", MaxSteps: 5})
	show, shown := collect()
	res := s.Generate(context.Background(), "hi", show, nil)
	if res.Err != nil || res.Answer != "Hello there, friend." {
		t.Fatalf("res %+v", res)
	}
	var text string
	for _, ev := range shown() {
		if ev.Kind == Text {
			text += ev.Text
		}
	}
	if text != "Hello there, friend." || len(shown()) != 3 {
		t.Errorf("streamed %q in %d events", text, len(shown()))
	}
	if got := m.sent[0]; got[0].Role != "system" || got[0].Content != "Be brief." || got[1].Content != "hi" {
		t.Errorf("sent %+v", got)
	}
	want := []model.Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "Hello there, friend."}}
	if !slices.EqualFunc(s.History, want, func(a, b model.Message) bool { return a.Role == b.Role && a.Content == b.Content }) {
		t.Errorf("history %+v", s.History)
	}
}

// A tool call runs, the model reads its output, the turn goes on; the
// events say how each call went.
func TestToolCalls(t *testing.T) {
	tool := &fakeTool{name: "bash"}
	failing := &fakeTool{name: "read_file", result: Failure("read: x: no such file or directory")}
	m := &fakeModel{replies: []model.Reply{
		{Content: "Let me look.", ToolCalls: []model.ToolCall{call("c1", "bash", `{"command":"ls"}`)}},
		{ToolCalls: []model.ToolCall{call("c2", "read_file", `{"path":"x"}`), call("c3", "nope", `{}`)}},
		{Content: "Done."},
	}}
	s := NewSession(&Agent{Model: m, Tools: []Tool{tool, failing}, Yolo: true, MaxSteps: 5, Parallel: 4})
	show, shown := collect()
	res := s.Generate(context.Background(), "look", show, nil)
	if res.Err != nil || res.Answer != "Done." || len(res.Ran) != 2 {
		t.Fatalf("res %+v", res)
	}
	if got := tool.inputs; len(got) != 1 || got[0] != `{"command":"ls"}` {
		t.Errorf("bash ran with %v", got)
	}
	var ends []string
	for _, ev := range shown() {
		if ev.Kind == ToolEnd {
			ends = append(ends, ev.Call.Tool+":"+ev.Status.String())
		}
	}
	if strings.Join(ends, " ") != "bash:ok read_file:failed" {
		t.Errorf("ended %v", ends)
	}
	var outputs []string
	for _, msg := range s.History {
		if msg.Role == "tool" {
			outputs = append(outputs, msg.ToolCallID+"="+msg.Content)
		}
	}
	want := []string{`c1=ran {"command":"ls"}`, "c2=error: read: x: no such file or directory", `c3=error: unknown tool "nope"`}
	if !slices.Equal(outputs, want) {
		t.Errorf("outputs %q, want %q", outputs, want)
	}
}

// The calls of one reply run at the same time, their outputs in the
// calls' order; two calls alike are told apart by their rank.
func TestParallelCalls(t *testing.T) {
	tool := &fakeTool{name: "ask_agent", barrier: 3, all: make(chan struct{})}
	m := &fakeModel{replies: []model.Reply{
		{ToolCalls: []model.ToolCall{
			call("c1", "ask_agent", `{"agent":"expert","question":"a"}`),
			call("c2", "ask_agent", `{"agent":"expert","question":"b"}`),
			call("c3", "ask_agent", `{"agent":"other","question":"c"}`),
		}},
		{Content: "All three."},
	}}
	s := NewSession(&Agent{Model: m, Tools: []Tool{tool}, Yolo: true, MaxSteps: 5, Parallel: 8})
	start := time.Now()
	res := s.Generate(context.Background(), "ask", nil, nil)
	if res.Err != nil || tool.most != 3 {
		t.Fatalf("res %+v, at most %d at once", res, tool.most)
	}
	if time.Since(start) > 4*time.Second {
		t.Error("the calls did not run at once")
	}
	var ids []string
	for _, msg := range s.History {
		if msg.Role == "tool" {
			ids = append(ids, msg.ToolCallID)
		}
	}
	if !slices.Equal(ids, []string{"c1", "c2", "c3"}) {
		t.Errorf("outputs in order %v", ids)
	}
	ranks := twinRanks(m.sentCalls())
	if !slices.Equal(ranks, []int{1, 2, 0}) {
		t.Errorf("twin ranks %v", ranks)
	}
}

func (f *fakeModel) sentCalls() []model.ToolCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, msgs := range f.sent {
		for _, m := range msgs {
			if len(m.ToolCalls) > 0 {
				return m.ToolCalls
			}
		}
	}
	return nil
}

// A model still calling tools after maxSteps model calls: the turn stops
// with ErrMaxSteps, its history closed so that the next request is valid.
func TestMaxSteps(t *testing.T) {
	tool := &fakeTool{name: "bash"}
	m := &fakeModel{replies: []model.Reply{{ToolCalls: []model.ToolCall{call("", "bash", `{"command":"again"}`)}}}}
	s := NewSession(&Agent{Model: m, Tools: []Tool{tool}, Yolo: true, MaxSteps: 3})
	res := s.Generate(context.Background(), "loop", nil, nil)
	if !errors.Is(res.Err, ErrMaxSteps) || len(tool.inputs) != 3 || len(m.sent) != 3 {
		t.Fatalf("res %+v after %d runs, %d model calls", res.Err, len(tool.inputs), len(m.sent))
	}
	last := s.History[len(s.History)-1]
	if last.Role != "assistant" || !strings.HasPrefix(last.Content, "[turn failed: maxSteps reached (3)") {
		t.Errorf("the history ends with %+v", last)
	}
}

// Ctrl-C while the model writes: the turn ends cancelled, what was shown
// stays marked as cut, and postGeneration still runs, reading "cancelled".
func TestCancel(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "post.json")
	m := &fakeModel{replies: []model.Reply{{Content: "wait"}}}
	s := NewSession(&Agent{Model: m, MaxSteps: 5, Hooks: runner(t, hook(hooks.PostGeneration, "cat > "+out))})
	ctx, cancel := context.WithCancel(context.Background())
	res := s.Generate(ctx, "go on", func(ev Event) {
		if ev.Kind == Text {
			cancel()
		}
	}, nil)
	if !res.Cancelled() {
		t.Fatalf("res %+v", res)
	}
	last := s.History[len(s.History)-1]
	if last.Content != "Half an answer\n\n[answer cut off: cancelled]" {
		t.Errorf("the history keeps %q", last.Content)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("postGeneration did not run: %v", err)
	}
	var in struct{ Error, Answer string }
	json.Unmarshal(b, &in)
	if in.Error != "cancelled" || in.Answer != "Half an answer" {
		t.Errorf("postGeneration read %s", b)
	}
}

// The hooks' decisions, applied where the reference says.
func TestHookDecisions(t *testing.T) {
	tests := []struct {
		name  string
		hooks hooks.Set
		check func(t *testing.T, s *Session, res TurnResult, tool *fakeTool, m *fakeModel, evs []Event)
	}{
		{"preGeneration stops the turn", hook(hooks.PreGeneration, `echo '{"action":"stop","reason":"off topic","response":"Not today."}'`),
			func(t *testing.T, s *Session, res TurnResult, tool *fakeTool, m *fakeModel, evs []Event) {
				if !res.Stopped || res.Answer != "Not today." || len(m.sent) != 0 {
					t.Errorf("res %+v, %d model calls", res, len(m.sent))
				}
				if s.History[0].Content != "[prompt blocked by a hook: off topic]" {
					t.Errorf("history %+v", s.History)
				}
			}},
		{"preGeneration rewrites the prompt and adds context", hook(hooks.PreGeneration, `echo '{"prompt":"rewritten","context":"it is Monday"}'`),
			func(t *testing.T, s *Session, res TurnResult, tool *fakeTool, m *fakeModel, evs []Event) {
				if got := m.sent[0][0].Content; got != "rewritten\n\n"+hooks.ContextMarker+"\nit is Monday" {
					t.Errorf("the model read %q", got)
				}
				if s.History[0].Content != "rewritten" {
					t.Errorf("the history keeps %q", s.History[0].Content)
				}
			}},
		{"preToolCall denies: the tool does not run, postToolCall neither", hooks.Set{
			hooks.PreToolCall:  hook(hooks.PreToolCall, `echo '{"action":"deny","reason":"not here"}'`)[hooks.PreToolCall],
			hooks.PostToolCall: hook(hooks.PostToolCall, `echo '{"context":"never"}'`)[hooks.PostToolCall],
		},
			func(t *testing.T, s *Session, res TurnResult, tool *fakeTool, m *fakeModel, evs []Event) {
				if len(tool.inputs) != 0 || len(res.Ran) != 0 {
					t.Errorf("the tool ran: %v", tool.inputs)
				}
				if got := s.History[2].Content; got != "[denied by a hook: not here]" {
					t.Errorf("the model read %q", got)
				}
				denied := slices.IndexFunc(evs, func(ev Event) bool { return ev.Kind == ToolDenied })
				if denied < 0 || evs[denied].Status != Denied || evs[denied].Reason != "not here" {
					t.Errorf("events %+v", evs)
				}
				for _, r := range res.HookRuns {
					if r.Event == hooks.PostToolCall {
						t.Error("postToolCall ran after a denied call")
					}
				}
			}},
		{"preToolCall replaces the input; postToolCall adds context", hooks.Set{
			hooks.PreToolCall:  hook(hooks.PreToolCall, `echo '{"input":{"command":"ls -a"}}'`)[hooks.PreToolCall],
			hooks.PostToolCall: hook(hooks.PostToolCall, `echo '{"context":"checked"}'`)[hooks.PostToolCall],
		},
			func(t *testing.T, s *Session, res TurnResult, tool *fakeTool, m *fakeModel, evs []Event) {
				if len(tool.inputs) != 1 || tool.inputs[0] != `{"command":"ls -a"}` {
					t.Errorf("the tool ran with %v", tool.inputs)
				}
				if got := s.History[2].Content; got != `ran {"command":"ls -a"}`+"\n\n"+hooks.ContextMarker+"\nchecked" {
					t.Errorf("the model read %q", got)
				}
				// The history keeps the call as the model wrote it.
				if got := s.History[1].ToolCalls[0].Function.Arguments; got != `{"command":"ls"}` {
					t.Errorf("the history's call: %s", got)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &fakeTool{name: "bash"}
			m := &fakeModel{replies: []model.Reply{
				{ToolCalls: []model.ToolCall{call("c1", "bash", `{"command":"ls"}`)}},
				{Content: "Fine."},
			}}
			s := NewSession(&Agent{Model: m, Tools: []Tool{tool}, Yolo: true, MaxSteps: 5, Hooks: runner(t, tt.hooks)})
			show, shown := collect()
			res := s.Generate(context.Background(), "list", show, nil)
			tt.check(t, s, res, tool, m, shown())
		})
	}
}

type consentFunc func(context.Context, Call) (bool, error)

func (f consentFunc) Allow(ctx context.Context, c Call) (bool, error) { return f(ctx, c) }

// Consent: asked after preToolCall, before the tool; a refusal is typed.
func TestConsent(t *testing.T) {
	tests := []struct {
		name    string
		consent Consent
		yolo    bool
		ran     bool
		status  Status
		output  string
	}{
		{"yolo runs without asking", consentFunc(func(context.Context, Call) (bool, error) { panic("asked") }), true, true, OK, `ran {"command":"ls"}`},
		{"allowed", consentFunc(func(context.Context, Call) (bool, error) { return true, nil }), false, true, OK, `ran {"command":"ls"}`},
		{"refused by the user", consentFunc(func(context.Context, Call) (bool, error) { return false, nil }), false, false, Denied, UserRefused},
		{"no one to ask", consentFunc(func(context.Context, Call) (bool, error) { return false, ErrNoOneToAsk }), false, false, NoOneToAsk, NoConsent},
		{"no consent at all", nil, false, false, NoOneToAsk, NoConsent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &fakeTool{name: "bash"}
			m := &fakeModel{replies: []model.Reply{{ToolCalls: []model.ToolCall{call("c1", "bash", `{"command":"ls"}`)}}, {Content: "ok"}}}
			s := NewSession(&Agent{Model: m, Tools: []Tool{tool}, Yolo: tt.yolo, MaxSteps: 5})
			show, shown := collect()
			s.Generate(context.Background(), "list", show, tt.consent)
			if ran := len(tool.inputs) > 0; ran != tt.ran {
				t.Errorf("ran = %v", ran)
			}
			i := slices.IndexFunc(shown(), func(ev Event) bool { return ev.Kind == ToolEnd })
			if i < 0 || shown()[i].Status != tt.status || shown()[i].Output != tt.output {
				t.Errorf("the call ended %+v, want %v %q", shown(), tt.status, tt.output)
			}
			if got := s.History[2].Content; got != tt.output {
				t.Errorf("the model read %q", got)
			}
		})
	}
}

// deniedTool is a TurnTool whose own hook refuses it (ask_agent under
// preAsk).
type deniedTool struct{}

func (deniedTool) Def() model.ToolDef                          { return model.ToolDef{Name: "ask_agent"} }
func (deniedTool) Run(context.Context, json.RawMessage) Result { panic("RunInTurn") }
func (deniedTool) RunInTurn(context.Context, json.RawMessage, Turn) Result {
	return Result{Output: "[ask denied by a hook: nope]", Status: Denied, Reason: "nope"}
}

// A call its tool's own hook denied did not run: not counted, no
// postToolCall, shown denied with the reason.
func TestTurnToolDenied(t *testing.T) {
	m := &fakeModel{replies: []model.Reply{{ToolCalls: []model.ToolCall{call("c1", "ask_agent", `{"agent":"x"}`)}}, {Content: "ok"}}}
	s := NewSession(&Agent{Model: m, Tools: []Tool{deniedTool{}}, Yolo: true, MaxSteps: 5,
		Hooks: runner(t, hook(hooks.PostToolCall, "true"))})
	show, shown := collect()
	res := s.Generate(context.Background(), "ask", show, nil)
	if len(res.Ran) != 0 || len(res.HookRuns) != 0 {
		t.Errorf("ran %v, hook runs %v", res.Ran, res.HookRuns)
	}
	i := slices.IndexFunc(shown(), func(ev Event) bool { return ev.Kind == ToolDenied })
	if i < 0 || shown()[i].Reason != "nope" || shown()[i].Status != Denied {
		t.Errorf("events %+v", shown())
	}
	if slices.ContainsFunc(shown(), func(ev Event) bool { return ev.Kind == ToolEnd }) {
		t.Error("a denied call also ended")
	}
}

func TestPath(t *testing.T) {
	p := Path{"expert"}.Of("main")
	if p.String() != "main/expert" || !p.Within(Path{"main"}) || p.Within(Path{"expert"}) || !p.Within(nil) {
		t.Errorf("%v", p)
	}
	if (Path{"expert#1"}).Within(Path{"expert"}) {
		t.Error("a twin is not below its name")
	}
}

// consentTool is a TurnTool that reports the consent its turn gave it.
type consentTool struct{ got chan Consent }

func (consentTool) Def() model.ToolDef                          { return model.ToolDef{Name: "ask_agent"} }
func (consentTool) Run(context.Context, json.RawMessage) Result { panic("RunInTurn") }
func (c consentTool) RunInTurn(_ context.Context, _ json.RawMessage, t Turn) Result {
	c.got <- t.Consent
	return Result{Output: "ok"}
}

// namedConsent is a Consent told apart by its name.
type namedConsent string

func (namedConsent) Allow(context.Context, Call) (bool, error) { return true, nil }

// Consent is the caller's: two turns on one Agent, each given its own;
// each tool of a turn (an ask_agent, which hands it to the asked agent)
// gets that turn's, and the Agent holds none.
func TestConsentIsTheCallers(t *testing.T) {
	tool := consentTool{got: make(chan Consent, 1)}
	agent := &Agent{Tools: []Tool{tool}, MaxSteps: 5} // not yolo: consent is asked
	for _, c := range []namedConsent{"line mode", "the editor"} {
		agent.Model = &fakeModel{replies: []model.Reply{{ToolCalls: []model.ToolCall{call("c1", "ask_agent", `{"agent":"x"}`)}}, {Content: "ok"}}}
		res := NewSession(agent).Generate(context.Background(), "ask", nil, c)
		if got := <-tool.got; got != c || len(res.Ran) != 1 {
			t.Errorf("the turn given %q: the tool got %v (ran %v)", c, got, res.Ran)
		}
	}
}
