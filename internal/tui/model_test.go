package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/internal/frontend"
	llm "github.com/mm-agent/mm/internal/model"
	"github.com/mm-agent/mm/orchestrator"
)

// fakeModel answers each request with the next reply; a reply of "wait"
// writes "…" and then blocks until the turn is cancelled.
type fakeModel struct{ replies []llm.Reply }

func (f *fakeModel) Chat(ctx context.Context, _ llm.Request, onText func(string)) (llm.Reply, error) {
	r := f.replies[0]
	f.replies = f.replies[1:]
	if r.Content == "wait" {
		onText("…")
		<-ctx.Done()
		return llm.Reply{}, ctx.Err()
	}
	for _, w := range strings.SplitAfter(r.Content, " ") {
		onText(w)
	}
	return r, nil
}

// fakeTool records that it ran.
type fakeTool struct{ ran chan string }

func (t *fakeTool) Def() llm.ToolDef { return llm.ToolDef{Name: "touch"} }
func (t *fakeTool) Run(_ context.Context, input json.RawMessage) orchestrator.Result {
	t.ran <- string(input)
	return orchestrator.Result{Output: "done"}
}

// harness runs the window's model without a terminal: what its jobs send
// arrives on msgs and is fed to Update by pump.
type harness struct {
	t    *testing.T
	m    *model
	msgs chan tea.Msg
}

func newHarness(t *testing.T, replies ...llm.Reply) (*harness, *fakeTool) {
	tool := &fakeTool{ran: make(chan string, 1)}
	app := &frontend.App{
		Config: config.Default(t.TempDir()),
		Agent:  &orchestrator.Agent{Model: &fakeModel{replies}, Tools: []orchestrator.Tool{tool}, MaxSteps: 5, Parallel: 1},
		Banner: "mm test | yolo: off",
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	h := &harness{t: t, m: newModel(ctx, app, orchestrator.NewSession(app.Agent)), msgs: make(chan tea.Msg, 100)}
	h.m.send = func(msg tea.Msg) { h.msgs <- msg }
	h.m.consent = &consent{send: h.m.send, done: make(chan struct{})}
	h.m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	t.Cleanup(h.m.jobs.Wait)
	return h, tool
}

// pump feeds what the jobs send to the model until until(msg) holds.
func (h *harness) pump(until func(tea.Msg) bool) {
	h.t.Helper()
	for {
		select {
		case msg := <-h.msgs:
			h.m.Update(msg)
			if until(msg) {
				return
			}
		case <-time.After(5 * time.Second):
			h.t.Fatalf("nothing came; the screen:\n%s", h.screen())
		}
	}
}

func (h *harness) typeLine(s string) tea.Cmd {
	h.m.input.SetValue(s)
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	return cmd
}

func (h *harness) key(k tea.KeyPressMsg) tea.Cmd {
	_, cmd := h.m.Update(k)
	return cmd
}

func (h *harness) screen() string { return ansi.Strip(h.m.View().Content) }

func (h *harness) wantScreen(parts ...string) {
	h.t.Helper()
	s := h.screen()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			h.t.Errorf("the screen lacks %q:\n%s", p, s)
		}
	}
}

func isDone(msg tea.Msg) bool {
	_, ok := msg.(turnDoneMsg)
	return ok
}

func TestTurn(t *testing.T) {
	h, _ := newHarness(t, llm.Reply{Content: "Hello there."})
	h.typeLine("hi")
	h.pump(isDone)
	h.wantScreen("mm test | yolo: off", "› hi", "Hello there.", "⚙ 0 command(s)", "Enter sends")
	if !h.m.View().AltScreen {
		t.Error("the window is not on the alternate screen")
	}
}

func TestConsentDialog(t *testing.T) {
	call := llm.ToolCall{ID: "c1", Function: llm.FunctionCall{Name: "touch", Arguments: `{"path":"f"}`}}
	for _, tt := range []struct {
		key  tea.KeyPressMsg
		ran  bool
		want string
	}{
		{tea.KeyPressMsg{Code: 'y', Text: "y"}, true, "🔧 touch: f"},
		{tea.KeyPressMsg{Code: 'n', Text: "n"}, false, "[denied by the user]"},
		{tea.KeyPressMsg{Code: tea.KeyEscape}, false, "[denied by the user]"},
	} {
		t.Run(tt.key.String(), func(t *testing.T) {
			h, tool := newHarness(t, llm.Reply{ToolCalls: []llm.ToolCall{call}}, llm.Reply{Content: "ok"})
			h.typeLine("touch f")
			h.pump(func(msg tea.Msg) bool { _, ok := msg.(consentAskMsg); return ok })
			h.wantScreen("Allow touch: f?", "y allows · n or Esc refuses")
			// Keys go to the dialog, not the input; in its first half
			// second, they are not answers (they were typed before the
			// question could be read).
			h.key(tea.KeyPressMsg{Code: 'x', Text: "x"})
			h.key(tea.KeyPressMsg{Code: 'y', Text: "y"})
			if len(h.m.asks) != 1 {
				t.Fatal("a key pressed as the dialog appeared answered it")
			}
			h.m.dialogSince = time.Now().Add(-dialogGrace)
			h.key(tt.key)
			h.pump(isDone)
			if got := len(tool.ran) == 1; got != tt.ran {
				t.Errorf("ran = %v, want %v", got, tt.ran)
			}
			h.wantScreen(tt.want)
			if s := h.screen(); strings.Contains(s, "Allow touch") || strings.Contains(s, "› x") {
				t.Errorf("after the answer:\n%s", s)
			}
		})
	}
}

// The input stays usable during a turn: what is sent then waits for it;
// Esc cancels the turn and drops what waits.
func TestQueueAndCancel(t *testing.T) {
	h, _ := newHarness(t, llm.Reply{Content: "first"}, llm.Reply{Content: "wait"}, llm.Reply{Content: "third"})
	h.typeLine("one")
	h.typeLine("two")
	h.typeLine("three")
	h.wantScreen("· 2 waiting")
	h.pump(isDone) // one
	h.pump(func(msg tea.Msg) bool { m, ok := msg.(eventMsg); return ok && m.ev.Text == "…" })
	h.wantScreen("› two", "working · Esc cancels · 1 waiting")
	h.key(tea.KeyPressMsg{Code: tea.KeyEscape})
	h.wantScreen("1 waiting prompt(s) dropped", "cancelling…")
	h.pump(isDone)
	h.wantScreen("turn cancelled", "Enter sends")
	if s := h.screen(); strings.Contains(s, "three") {
		t.Errorf("a dropped prompt ran:\n%s", s)
	}
}

func TestKeys(t *testing.T) {
	h, _ := newHarness(t)
	h.m.input.SetValue("draft")
	if cmd := h.key(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}); cmd != nil || h.m.input.Value() != "" {
		t.Errorf("Ctrl-C with text: cmd %v, input %q; want the input cleared", cmd, h.m.input.Value())
	}
	h.typeLine("/nope")
	h.wantScreen("unknown command /nope; /help lists them")
	h.typeLine("/abort")
	h.wantScreen("no turn is running")
	h.typeLine("/help")
	h.wantScreen("/abort     cancel the running turn")
	h.key(tea.KeyPressMsg{Code: tea.KeyUp})
	if got := h.m.input.Value(); got != "/help" {
		t.Errorf("Up brings back %q, want /help", got)
	}
	h.m.input.Reset()
	cmd := h.key(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	if cmd == nil || !h.m.interrupted {
		t.Fatal("Ctrl-C at an empty input does not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("Ctrl-C at an empty input does not quit")
	}
	if cmd := h.typeLine("/exit"); cmd == nil {
		t.Error("/exit does not quit")
	}
}

func TestCompact(t *testing.T) {
	h, _ := newHarness(t, llm.Reply{Content: "one"}, llm.Reply{Content: "two"}, llm.Reply{Content: "the summary"})
	isCompacted := func(msg tea.Msg) bool { _, ok := msg.(compactDoneMsg); return ok }
	h.typeLine("/compact")
	h.pump(isCompacted)
	h.wantScreen("nothing to compress")
	h.typeLine("first")
	h.pump(isDone)
	h.typeLine("second")
	h.pump(isDone)
	h.typeLine("/compact")
	h.pump(isCompacted)
	h.wantScreen("⚙ context compressed: 2 earlier message(s) replaced by a summary")
	if got := h.m.session.History[0].Content; got != orchestrator.SummaryMarker+"\nthe summary" {
		t.Errorf("the history starts with %q", got)
	}
}
