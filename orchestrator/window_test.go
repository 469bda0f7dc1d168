package orchestrator

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mm-agent/mm/internal/model"
)

// stepModel answers each request with the next of its steps: a reply, or
// an error.
type stepModel struct {
	mu    sync.Mutex
	steps []step
	sent  [][]model.Message
}

type step struct {
	reply model.Reply
	err   error
}

func (m *stepModel) Chat(ctx context.Context, req model.Request, onText func(string)) (model.Reply, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, slices.Clone(req.Messages))
	if len(m.steps) == 0 {
		return model.Reply{}, errors.New("stepModel: no step left")
	}
	s := m.steps[0]
	m.steps = m.steps[1:]
	return s.reply, s.err
}

// memStore is a session file in memory: what a resumed session reads.
type memStore struct{ history []model.Message }

func (s *memStore) AppendTurn(msgs []model.Message) error {
	s.history = append(s.history, msgs...)
	return nil
}

func (s *memStore) AppendCompaction(summary string, kept int) error {
	s.history = Compacted(summary, s.history, kept)
	return nil
}

func overflowError(window int) error {
	return &model.Error{Msg: "the conversation is longer than the model's context", Kind: model.ErrContextLength,
		Status: 400, Cause: "request (900 tokens) exceeds the available context size (800 tokens)", Window: window}
}

func answer(s string) step { return step{reply: model.Reply{Content: s}} }

// TestOverflowRetry: a request refused as too long compresses the turns
// before this one and is sent once more; the session file holds what the
// session holds; the window the server said becomes the budget.
func TestOverflowRetry(t *testing.T) {
	m := &stepModel{steps: []step{answer("First."), {err: overflowError(800)}, answer("A summary."), answer("Second.")}}
	store := &memStore{}
	s := &Session{Agent: &Agent{Model: m, Name: "m", MaxSteps: 5}, Store: store}
	if res := s.Generate(context.Background(), "first", nil, nil); res.Err != nil {
		t.Fatal(res.Err)
	}
	show, events := collect()
	res := s.Generate(context.Background(), "second", show, nil)
	if res.Err != nil || res.Answer != "Second." {
		t.Fatalf("%q %v", res.Answer, res.Err)
	}
	want := []model.Message{{Role: "user", Content: SummaryMarker + "\nA summary."}, {Role: "assistant", Content: SummaryAck},
		{Role: "user", Content: "second"}, {Role: "assistant", Content: "Second."}}
	if !slices.EqualFunc(s.History, want, msgEqual) {
		t.Errorf("history %+v", s.History)
	}
	if !slices.EqualFunc(store.history, want, msgEqual) {
		t.Errorf("stored %+v", store.history)
	}
	if got := m.sent[3]; len(got) != 3 || got[2].Content != "second" {
		t.Errorf("the retry sent %+v", got)
	}
	var texts []string
	for _, ev := range events() {
		if ev.Kind == Warning || ev.Kind == Notice {
			texts = append(texts, ev.Text)
		}
	}
	if len(texts) != 2 || !strings.HasPrefix(texts[0], "mm: the conversation is longer than the model's context (request (900 tokens)") ||
		texts[1] != "⚙ context compressed: 2 earlier message(s) replaced by a summary" {
		t.Errorf("notices %q", texts)
	}
	if s.budget() != 600 {
		t.Errorf("budget %d, want 600", s.budget())
	}
}

// TestOverflowOnce: the retry is made once; a request still refused, or
// one with nothing before it to compress, is the error.
func TestOverflowOnce(t *testing.T) {
	m := &stepModel{steps: []step{answer("First."), {err: overflowError(0)}, answer("A summary."), {err: overflowError(0)}}}
	s := &Session{Agent: &Agent{Model: m, Name: "m", MaxSteps: 5, ContextBudget: 100000}}
	s.Generate(context.Background(), "first", nil, nil)
	res := s.Generate(context.Background(), "second", nil, nil)
	var me *model.Error
	if !errors.As(res.Err, &me) || me.Kind != model.ErrContextLength || len(m.sent) != 4 {
		t.Fatalf("%v after %d requests", res.Err, len(m.sent))
	}
	if s.budget() != 100000 {
		t.Errorf("budget %d: the config's stays", s.budget())
	}

	m = &stepModel{steps: []step{{err: overflowError(0)}}}
	s = &Session{Agent: &Agent{Model: m, Name: "m", MaxSteps: 5}}
	show, events := collect()
	res = s.Generate(context.Background(), "alone", show, nil)
	if !errors.As(res.Err, &me) || len(m.sent) != 1 {
		t.Fatalf("%v after %d requests", res.Err, len(m.sent))
	}
	for _, ev := range events() {
		if ev.Kind == Warning {
			t.Errorf("warning %q with nothing to compress", ev.Text)
		}
	}
}

// TestCutPrompt: a server count under half of the estimate, for a prompt
// of at least 1,000 estimated tokens, is said once per session and sets
// the budget; a count near the estimate, or a small prompt, is not.
func TestCutPrompt(t *testing.T) {
	long := strings.Repeat("w", 4400)
	cut := model.Reply{Content: "ok", Usage: &model.Usage{PromptTokens: 400}}
	// The turns: the long prompt, cut; a summary and a short turn; a
	// summary and the long prompt, cut again.
	m := &stepModel{steps: []step{{reply: cut}, answer("S"), {reply: model.Reply{Content: "ok", Usage: &model.Usage{PromptTokens: 20}}},
		answer("S2"), {reply: cut}}}
	s := &Session{Agent: &Agent{Model: m, Name: "m", MaxSteps: 5}}
	var warnings []string
	show := func(ev Event) {
		if ev.Kind == Warning {
			warnings = append(warnings, ev.Text)
		}
	}
	s.Generate(context.Background(), long, show, nil)
	if len(warnings) != 2 || warnings[0] != CutPromptNotice(400) || warnings[1] != AdoptedNotice(300) || s.budget() != 300 {
		t.Fatalf("warnings %q, budget %d", warnings, s.budget())
	}
	if s.counted != 0 {
		t.Errorf("a cut prompt's count kept: %d", s.counted)
	}
	s.Generate(context.Background(), "short", show, nil) // compressed before it: the cut turn goes into the summary
	if len(s.History) != 4 || !strings.HasPrefix(s.History[0].Content, SummaryMarker) {
		t.Errorf("history %+v", s.History)
	}
	if res := s.Generate(context.Background(), long, show, nil); res.Err != nil || len(m.steps) != 0 {
		t.Fatalf("%v, %d steps left", res.Err, len(m.steps))
	}
	if len(warnings) != 2 {
		t.Errorf("said again: %q", warnings[2:])
	}
}

func msgEqual(a, b model.Message) bool {
	return a.Role == b.Role && a.Content == b.Content && len(a.ToolCalls) == len(b.ToolCalls)
}
