package relay

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/orchestrator"
)

// A relay against a fake asker: what the asked agent's turn answers is
// scripted, what the relay sent it recorded. Hooks are real hook commands.

type fakeAsker struct {
	resp AskResponse
	// events are shown before the response.
	events []orchestrator.Event
	// consent, when set, is asked through the request's Consent.
	consent *orchestrator.Call

	mu   sync.Mutex
	reqs []AskRequest
	// allowed is what the consent question got.
	allowed error
}

func (f *fakeAsker) Ask(ctx context.Context, req AskRequest) AskResponse {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	for _, ev := range f.events {
		req.Show(ev)
	}
	if f.consent != nil && req.Consent != nil {
		_, f.allowed = req.Consent.Allow(ctx, *f.consent)
	}
	return f.resp
}

func (f *fakeAsker) asked() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

// newRelay is a relay to agent expert whose postAsk hook writes its input
// to the file it returns.
func newRelay(t *testing.T, asker Asker, extra hooks.Set) (*Relay, string) {
	t.Helper()
	dir := t.TempDir()
	post := filepath.Join(dir, "postask.json")
	set := hooks.Set{hooks.PostAsk: {{Command: "cat > " + post, Timeout: 5 * time.Second, OnError: hooks.Warn}}}
	for e, hs := range extra {
		set[e] = append(set[e], hs...)
	}
	return &Relay{
		Agents: map[string]string{"expert": filepath.Join(dir, "agent.expert.yaml")},
		Hooks:  &hooks.Runner{Hooks: set, Cwd: dir},
		Asker:  asker, MaxDepth: 4,
	}, post
}

// postAsk is what the postAsk hook read.
func postAsk(t *testing.T, file string) (in struct {
	Ask    struct{ Via string }
	Answer string
	Error  string
}) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("postAsk did not run: %v", err)
	}
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// Every outcome of the asked agent's turn, by every way of asking: what
// the asking side gets is typed (Status, Err that errors.Is sees through),
// and postAsk reads the outcome's error.
func TestOutcomesByVia(t *testing.T) {
	const maxStepsMsg = "maxSteps reached (3): the model was still calling tools; the turn stopped"
	outcomes := []struct {
		name     string
		resp     AskResponse
		status   Status
		answer   string // Result.Answer
		is       error  // errors.Is(Result.Err, is); nil: Err is nil
		postErr  string
		toolOut  string
		toolStat orchestrator.Status
		summary  string
	}{
		{"answered", AskResponse{Status: Answered, Answer: "An inode."},
			Answered, "An inode.", nil, "", "An inode.", orchestrator.OK, "expert answered"},
		{"failed", AskResponse{Status: Failed, Answer: "Half", Error: "expert stopped before it answered (its process ended)"},
			Failed, "Half", errFailed, "expert stopped before it answered (its process ended)",
			"error: expert stopped before it answered (its process ended)", orchestrator.Failed, "expert failed"},
		{"cancelled", AskResponse{Status: Cancelled, Answer: "Half", Error: "cancelled"},
			Cancelled, "Half", context.Canceled, "cancelled", "error: cancelled", orchestrator.Cancelled, "expert failed"},
		{"maxSteps", AskResponse{Status: MaxSteps, Error: maxStepsMsg},
			MaxSteps, "", orchestrator.ErrMaxSteps, maxStepsMsg, "error: " + maxStepsMsg, orchestrator.Failed, "expert failed"},
		{"cut off", AskResponse{Status: CutOff, Answer: "Once upon", Error: "answer cut off: output token limit", CutOff: orchestrator.OutputLimit},
			CutOff, "Once upon\n\n[answer cut off: output token limit]", orchestrator.ErrCutOff, "answer cut off: output token limit",
			"Once upon\n\n[answer cut off: output token limit]", orchestrator.OK, "expert's answer was cut off"},
	}
	for _, o := range outcomes {
		for _, via := range []Via{ViaTool, ViaCommand, ViaCLI} {
			t.Run(o.name+"/"+string(via), func(t *testing.T) {
				asker := &fakeAsker{resp: o.resp}
				r, post := newRelay(t, asker, nil)
				if via == ViaTool {
					res := (&Tool{Relay: r}).RunInTurn(context.Background(), json.RawMessage(`{"agent":"expert","question":"what is an inode?"}`),
						orchestrator.Turn{Show: func(orchestrator.Event) {}})
					if res.Output != o.toolOut || res.Status != o.toolStat || res.Summary != o.summary {
						t.Errorf("ask_agent's result %+v, want %q %v %q", res, o.toolOut, o.toolStat, o.summary)
					}
				} else {
					res := r.Ask(context.Background(), Request{Agent: "expert", Question: "what is an inode?", Via: via})
					if res.Denied || res.Status != o.status || res.Answer != o.answer || res.Sent != "what is an inode?" {
						t.Errorf("result %+v", res)
					}
					switch {
					case o.is == nil && res.Err != nil:
						t.Errorf("Err %v for an answer", res.Err)
					case o.is == errFailed:
						var re *Error
						if !errors.As(res.Err, &re) || re.Status != Failed || res.Err.Error() != o.postErr {
							t.Errorf("Err %#v", res.Err)
						}
					case o.is != nil && !errors.Is(res.Err, o.is):
						t.Errorf("errors.Is(%v, %v) is false", res.Err, o.is)
					}
				}
				in := postAsk(t, post)
				if in.Ask.Via != string(via) || in.Error != o.postErr || in.Answer != o.resp.Answer {
					t.Errorf("postAsk read %+v", in)
				}
				if n := asker.asked(); n != 1 {
					t.Errorf("asked %d times", n)
				}
			})
		}
	}
}

// errFailed marks a plain failure in the table: an *Error of status Failed.
var errFailed = errors.New("failed")

// A preAsk hook that denies: the asked agent is neither started nor
// asked, whatever the way; ask_agent's call counts as not run.
func TestDeniedByVia(t *testing.T) {
	deny := hooks.Set{hooks.PreAsk: {{Command: `echo '{"action":"deny","reason":"not now"}'`, Timeout: 5 * time.Second, OnError: hooks.Warn}}}
	for _, via := range []Via{ViaTool, ViaCommand, ViaCLI} {
		t.Run(string(via), func(t *testing.T) {
			asker := &fakeAsker{resp: AskResponse{Status: Answered, Answer: "x"}}
			r, post := newRelay(t, asker, deny)
			if via == ViaTool {
				res := (&Tool{Relay: r}).RunInTurn(context.Background(), json.RawMessage(`{"agent":"expert","question":"q"}`), orchestrator.Turn{Show: func(orchestrator.Event) {}})
				want := orchestrator.Result{Output: "[ask denied by a hook: not now]", Status: orchestrator.Denied, Reason: "not now"}
				if res != want {
					t.Errorf("got %+v, want %+v", res, want)
				}
			} else {
				res := r.Ask(context.Background(), Request{Agent: "expert", Question: "q", Via: via})
				if !res.Denied || res.Reason != "not now" || DeniedError(res.Reason) != "ask denied by a hook: not now" {
					t.Errorf("result %+v", res)
				}
			}
			if asker.asked() != 0 {
				t.Error("the asked agent was asked")
			}
			if _, err := os.Stat(post); err == nil {
				t.Error("postAsk ran after a denied relay")
			}
		})
	}
}

// What fails before anything starts: an unknown agent, the depth limit.
func TestRefusedBeforeAsking(t *testing.T) {
	asker := &fakeAsker{resp: AskResponse{Status: Answered}}
	r, _ := newRelay(t, asker, nil)
	if res := r.Ask(context.Background(), Request{Agent: "nobody", Question: "q", Via: ViaCommand}); res.Status != Failed || res.Err.Error() != `unknown agent "nobody" (want one of expert)` {
		t.Errorf("unknown agent: %+v", res)
	}
	r.Depth = 4
	res := r.Ask(context.Background(), Request{Agent: "expert", Question: "q", Via: ViaTool})
	if !errors.Is(res.Err, ErrDepth) || res.Err.Error() != "ask depth limit reached (4)" {
		t.Errorf("depth: %+v", res)
	}
	if asker.asked() != 0 {
		t.Error("the asked agent was asked")
	}
}

// What the asked agent shows is labelled with its path (its twin's rank
// with it), its consent questions with its name; the relay's start is
// AskStart and its end AskEnd, both saying how it was started, the end how
// it went; the asked agent is asked one depth down.
func TestLabelsAndConsent(t *testing.T) {
	question := orchestrator.Call{ID: "c1", Tool: "bash", Agent: orchestrator.Path{"librarian"}}
	asker := &fakeAsker{
		resp: AskResponse{Status: Answered, Answer: "ok"},
		events: []orchestrator.Event{
			{Kind: orchestrator.Text, Text: "ok"},
			{Kind: orchestrator.ToolStart, Agent: orchestrator.Path{"librarian"}, Call: orchestrator.Call{Tool: "bash"}},
		},
		consent: &question,
	}
	r, _ := newRelay(t, asker, nil)
	r.Depth = 1
	var mu sync.Mutex
	var paths []string
	var asked orchestrator.Call
	var start, end *orchestrator.AskInfo
	res := r.Ask(context.Background(), Request{
		Agent: "expert", Question: "q", Via: ViaTool, Twin: 2, WithContext: true,
		Show: func(ev orchestrator.Event) {
			mu.Lock()
			defer mu.Unlock()
			switch ev.Kind {
			case orchestrator.AskStart:
				start = ev.Ask
			case orchestrator.AskEnd:
				end = ev.Ask
			}
			if ev.Kind != orchestrator.HookRun {
				paths = append(paths, ev.Agent.String())
			}
		},
		Consent: consentFunc(func(_ context.Context, c orchestrator.Call) (bool, error) { asked = c; return true, nil }),
	})
	if res.Status != Answered {
		t.Fatalf("res %+v", res)
	}
	if want := []string{"expert#2", "expert#2", "expert#2/librarian", "expert#2"}; !slices.Equal(paths, want) {
		t.Errorf("paths %v, want %v", paths, want)
	}
	if start == nil || start.Via != "tool" || !start.WithContext || end == nil || end.Via != "tool" || end.Err != nil {
		t.Errorf("AskStart %+v, AskEnd %+v", start, end)
	}
	if asked.Agent.String() != "expert/librarian" || asked.Tool != "bash" {
		t.Errorf("the consent question: %+v", asked)
	}
	if req := asker.reqs[0]; req.Depth != 2 || req.Agent != "expert" {
		t.Errorf("asked %+v", req)
	}
}

type consentFunc func(context.Context, orchestrator.Call) (bool, error)

func (f consentFunc) Allow(ctx context.Context, c orchestrator.Call) (bool, error) { return f(ctx, c) }

// A postAsk hook that gives an answer rescues a failed relay (the asking
// agent reads it, and is told); it does not rescue a cancelled one.
func TestPostAskRescue(t *testing.T) {
	rescue := hooks.Set{hooks.PostAsk: {{Command: `echo '{"answer":"From the cache."}'`, Timeout: 5 * time.Second, OnError: hooks.Warn}}}
	for _, tt := range []struct {
		resp   AskResponse
		status Status
		answer string
	}{
		{AskResponse{Status: Failed, Error: "boom"}, Answered, "From the cache."},
		{AskResponse{Status: MaxSteps, Error: "maxSteps reached (2)"}, Answered, "From the cache."},
		{AskResponse{Status: Cancelled, Error: "cancelled"}, Cancelled, ""},
	} {
		r, _ := newRelay(t, &fakeAsker{resp: tt.resp}, rescue)
		var notices []string
		res := r.Ask(context.Background(), Request{Agent: "expert", Question: "q", Via: ViaCommand, Show: func(ev orchestrator.Event) {
			if ev.Kind == orchestrator.Notice {
				notices = append(notices, ev.Text)
			}
		}})
		if res.Status != tt.status || res.Answer != tt.answer || (tt.status == Answered) != res.Replaced || (res.Err == nil) != (tt.status == Answered) {
			t.Errorf("%v: %+v", tt.resp.Status, res)
		}
		if res.Replaced && (len(notices) != 1 || notices[0] != ReplacedNotice("expert")) {
			t.Errorf("notices %q", notices)
		}
	}
}

// A turn the asker says answered, though the relay's context ended, is
// cancelled: an answer is never reported complete after Ctrl-C.
func TestCancelledContextWins(t *testing.T) {
	r, post := newRelay(t, &fakeAsker{resp: AskResponse{Status: Answered, Answer: "Half"}}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := r.Ask(ctx, Request{Agent: "expert", Question: "q", Via: ViaCLI})
	if res.Status != Cancelled || !errors.Is(res.Err, context.Canceled) {
		t.Errorf("res %+v", res)
	}
	if in := postAsk(t, post); in.Error != "cancelled" {
		t.Errorf("postAsk read %+v", in)
	}
}

// FromTurn types a turn's end for the asking side.
func TestFromTurn(t *testing.T) {
	tests := []struct {
		res  orchestrator.TurnResult
		want AskResponse
	}{
		{orchestrator.TurnResult{Answer: "A."}, AskResponse{Status: Answered, Answer: "A."}},
		{orchestrator.TurnResult{Answer: "Par", CutOff: orchestrator.OutputLimit}, AskResponse{Status: CutOff, Answer: "Par", Error: "answer cut off: output token limit", CutOff: orchestrator.OutputLimit}},
		{orchestrator.TurnResult{Answer: "Ha", Err: context.Canceled}, AskResponse{Status: Cancelled, Answer: "Ha", Error: "cancelled"}},
		{orchestrator.TurnResult{Err: errors.Join(orchestrator.ErrMaxSteps)}, AskResponse{Status: MaxSteps, Error: "maxSteps reached"}},
		{orchestrator.TurnResult{Err: errors.New("model gone")}, AskResponse{Status: Failed, Error: "model gone"}},
	}
	for _, tt := range tests {
		if got := FromTurn(tt.res); got != tt.want {
			t.Errorf("FromTurn(%+v) = %+v, want %+v", tt.res, got, tt.want)
		}
	}
}
