package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/mm-agent/mm/orchestrator"
)

// screen lays tr out for width and returns its lines without styles.
func screen(tr *transcript, width int) []string {
	lines := tr.lines(width)
	for i, l := range lines {
		lines[i] = ansi.Strip(l)
	}
	return lines
}

func TestTranscriptLines(t *testing.T) {
	bash := orchestrator.Call{ID: "c1", Tool: "bash", Summary: "rm -rf data"}
	tests := []struct {
		name   string
		events []orchestrator.Event
		want   []string
	}{
		{
			name: "tool line",
			events: []orchestrator.Event{
				{Kind: orchestrator.ToolStart, Call: orchestrator.Call{ID: "c1", Tool: "bash", Summary: "ls -la"}},
				{Kind: orchestrator.ToolEnd, Call: orchestrator.Call{ID: "c1", Tool: "bash"}, Output: "x"},
			},
			want: []string{"🔧 bash: ls -la"},
		},
		{
			name: "denied by preToolCall",
			events: []orchestrator.Event{
				{Kind: orchestrator.ToolDenied, Call: bash, Reason: "no", Output: "[denied by a hook: no]"},
				{Kind: orchestrator.ToolDenied, Call: orchestrator.Call{ID: "c2", Tool: "read_file"}, Output: "[denied by a hook]"},
			},
			want: []string{
				"✗ bash: rm -rf data — denied by a hook", "  [denied by a hook: no]",
				"✗ read_file — denied by a hook", "  [denied by a hook]",
			},
		},
		{
			name: "ask_agent denied by preAsk after it started",
			events: []orchestrator.Event{
				{Kind: orchestrator.ToolStart, Call: orchestrator.Call{ID: "c1", Tool: "ask_agent", Summary: "expert"}},
				{Kind: orchestrator.ToolDenied, Call: orchestrator.Call{ID: "c1", Tool: "ask_agent", Summary: "expert"}, Output: "[ask denied by a hook]"},
				{Kind: orchestrator.ToolEnd, Call: orchestrator.Call{ID: "c1", Tool: "ask_agent"}, Output: "[ask denied by a hook]"},
			},
			want: []string{"✗ ask_agent: expert — denied by a hook", "  [ask denied by a hook]"},
		},
		{
			name: "refused by the user",
			events: []orchestrator.Event{
				{Kind: orchestrator.ToolStart, Call: bash},
				{Kind: orchestrator.ToolEnd, Call: bash, Output: orchestrator.UserRefused, Status: orchestrator.Denied},
			},
			want: []string{"✗ bash: rm -rf data", "  [denied by the user]"},
		},
		{
			name: "answers around a tool call, hook failure, notice",
			events: []orchestrator.Event{
				{Kind: orchestrator.Text, Text: "Let me "},
				{Kind: orchestrator.Text, Text: "look."},
				{Kind: orchestrator.ToolStart, Call: orchestrator.Call{ID: "c1", Tool: "bash", Summary: "ls"}},
				{Kind: orchestrator.HookRun},
				{Kind: orchestrator.HookFailure, Text: "🪝 postToolCall hook `x`: exit status 1"},
				{Kind: orchestrator.Text, Text: "Done."},
			},
			want: []string{"Let me look.", "🔧 bash: ls", "🪝 postToolCall hook `x`: exit status 1", "Done."},
		},
		{
			name: "an asked agent's block",
			events: []orchestrator.Event{
				{Kind: orchestrator.ToolStart, Call: orchestrator.Call{ID: "c1", Tool: "ask_agent", Summary: "expert"}},
				{Kind: orchestrator.ToolStart, Agent: orchestrator.Path{"expert"}, Call: orchestrator.Call{ID: "c1", Tool: "bash", Summary: "touch f"}},
				{Kind: orchestrator.Text, Agent: orchestrator.Path{"expert"}, Text: "Made it."},
				{Kind: orchestrator.Notice, Text: "🪝 postAsk: expert's answer was replaced by a hook — the asking agent reads the new one"},
				{Kind: orchestrator.ToolEnd, Call: orchestrator.Call{ID: "c1", Tool: "ask_agent"}, Output: "ok", Summary: "expert answered"},
				{Kind: orchestrator.Text, Text: "Fine."},
			},
			want: []string{
				"🔧 ask_agent: expert · expert answered",
				"┌ expert", "│ 🔧 bash: touch f", "│ Made it.",
				"🪝 postAsk: expert's answer was replaced by a hook — the asking agent reads the new one",
				"Fine.",
			},
		},
		{
			// Two relays at once: the first one's end (the asking agent's
			// ToolEnd) does not cut the second one's answer in two.
			name: "parallel relays keep their answers whole",
			events: []orchestrator.Event{
				{Kind: orchestrator.ToolStart, Call: orchestrator.Call{ID: "c1", Tool: "ask_agent", Summary: "expert"}},
				{Kind: orchestrator.ToolStart, Call: orchestrator.Call{ID: "c2", Tool: "ask_agent", Summary: "expert"}},
				{Kind: orchestrator.Text, Agent: orchestrator.Path{"expert#1"}, Text: "One "},
				{Kind: orchestrator.Text, Agent: orchestrator.Path{"expert#2"}, Text: "Two "},
				{Kind: orchestrator.Text, Agent: orchestrator.Path{"expert#1"}, Text: "done."},
				{Kind: orchestrator.AskEnd, Agent: orchestrator.Path{"expert#1"}},
				{Kind: orchestrator.ToolEnd, Call: orchestrator.Call{ID: "c1", Tool: "ask_agent"}, Output: "ok"},
				{Kind: orchestrator.Text, Agent: orchestrator.Path{"expert#2"}, Text: "done."},
				{Kind: orchestrator.AskEnd, Agent: orchestrator.Path{"expert#2"}},
				{Kind: orchestrator.ToolEnd, Call: orchestrator.Call{ID: "c2", Tool: "ask_agent"}, Output: "ok"},
			},
			want: []string{
				"🔧 ask_agent: expert", "🔧 ask_agent: expert",
				"┌ expert#1", "│ One done.",
				"┌ expert#2", "│ Two done.",
			},
		},
		{
			name: "escape sequences and control characters are not drawn",
			events: []orchestrator.Event{
				{Kind: orchestrator.Text, Text: "a\x1b[2Jb\x07c\td\r"},
			},
			want: []string{"abc    d"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTranscript(newStyles())
			for _, ev := range tt.events {
				tr.show(ev)
			}
			tr.endTurn()
			got := screen(tr, 100)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// An answer streams as plain text and is drawn as Markdown once complete.
func TestTranscriptMarkdownOnceComplete(t *testing.T) {
	tr := newTranscript(newStyles())
	tr.show(orchestrator.Event{Kind: orchestrator.Text, Text: "It is **bold**"})
	if got := screen(tr, 80); got[0] != "It is **bold**" {
		t.Errorf("while streaming: %q", got)
	}
	tr.endTurn()
	if got := screen(tr, 80); got[0] != "It is bold" {
		t.Errorf("complete: %q", got)
	}
}

// The same entries are laid out for any width: no line is wider than the
// window, and the words are all there, in order.
func TestTranscriptRelayout(t *testing.T) {
	tr := newTranscript(newStyles())
	tr.add(&entry{kind: kindPrompt, text: "tell me"})
	words := strings.Fields(strings.Repeat("alpha beta gamma delta epsilon ", 12))
	tr.show(orchestrator.Event{Kind: orchestrator.Text, Text: strings.Join(words, " ")})
	tr.show(orchestrator.Event{Kind: orchestrator.Text, Agent: orchestrator.Path{"expert"}, Text: strings.Join(words, " ")})
	for _, done := range []bool{false, true} {
		if done {
			tr.endTurn()
		}
		for _, width := range []int{100, 37, 60, 12} {
			lines := screen(tr, width)
			for _, l := range lines {
				if w := ansi.StringWidth(l); w > width {
					t.Errorf("done=%v width %d: line %q is %d wide", done, width, l, w)
				}
			}
			joined := strings.Join(lines, " ")
			joined = strings.NewReplacer("│", " ", "┌ expert", " ").Replace(joined)
			if got, want := strings.Join(strings.Fields(joined), " "), "› tell me "+strings.Join(words, " ")+" "+strings.Join(words, " "); got != want {
				t.Errorf("done=%v width %d:\n got %s\nwant %s", done, width, got, want)
			}
		}
	}
}

func TestDialog(t *testing.T) {
	reqs := []*consentReq{
		{call: orchestrator.Call{Tool: "expert › bash", Summary: "touch f"}},
		{call: orchestrator.Call{Tool: "bash"}},
	}
	lines := dialog(newStyles(), reqs, 60)
	text := ansi.Strip(strings.Join(lines, "\n"))
	for _, want := range []string{"Allow expert › bash: touch f?", "y allows · n or Esc refuses · 1 more waiting"} {
		if !strings.Contains(text, want) {
			t.Errorf("dialog lacks %q:\n%s", want, text)
		}
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w != 60 {
			t.Errorf("line %q is %d wide, want 60", ansi.Strip(l), w)
		}
	}
	if dialog(newStyles(), nil, 60) != nil {
		t.Error("a dialog with no question")
	}
}

// The window's consent dialog shows what the model hid behind escapes,
// written out, and its tool lines draw none of them.
func TestDialogShowsEscapes(t *testing.T) {
	trick := orchestrator.Call{Tool: "bash", Summary: "rm precious.txt #\x1b[2K\x1b[Gallow bash: ls"}
	lines := dialog(newStyles(), []*consentReq{{call: trick}}, 100)
	text := ansi.Strip(strings.Join(lines, "\n"))
	if !strings.Contains(text, `Allow bash: rm precious.txt #\x1b[2K\x1b[Gallow bash: ls?`) {
		t.Errorf("dialog hides the escapes:\n%s", text)
	}
	if strings.Contains(strings.Join(lines, ""), "\x1b[2K") {
		t.Error("the dialog draws the model's escape sequence")
	}
}
