package tui

import (
	"slices"
	"strings"

	"github.com/mm-agent/mm/internal/calls"

	"github.com/mm-agent/mm/orchestrator"
)

// entryKind says how an entry of the conversation is drawn.
type entryKind int

const (
	kindPrompt entryKind = iota // what the user sent: "› …"
	kindAnswer                  // an answer: plain while it streams, Markdown once complete
	kindTool                    // one tool call: "🔧 bash: ls"
	kindDim                     // hook failure lines, the ⚙ line and its notices
	kindNotice                  // a line shown as it is (a relay's postAsk notice, /help)
	kindError                   // what went wrong with a turn or a command
)

type toolState int

const (
	toolRunning toolState = iota
	toolDone
	toolFailed
)

// entry is one piece of the conversation. Entries keep their text, not
// their lines: the lines are made for a width, again after a resize, so a
// resized window is laid out afresh instead of garbled.
type entry struct {
	kind  entryKind
	agent orchestrator.Path // the asked agents that showed it (empty for this agent)
	text  string
	done  bool // an answer that is complete

	// A tool call: its id (to find it again when it ends), how it is going,
	// why it failed, and the summary an ended call may carry.
	id     string
	state  toolState
	detail string
	note   string

	width int // the width lines were made for; 0: not made
	lines []string
}

// touch drops the entry's lines after a change.
func (e *entry) touch() { e.width = 0 }

// transcript is the conversation as the window shows it.
type transcript struct {
	entries []*entry
	// open holds the answer each agent is streaming; any other event of
	// that agent closes it, and so does the end of its relay (AskEnd) —
	// not an event of the agent that asked: relays run at the same time,
	// and one's end must not cut another's answer in two.
	open map[string]*entry // by the agent's path (String)
	md   *markdown
	st   styles
}

func newTranscript(st styles) *transcript {
	return &transcript{open: map[string]*entry{}, md: newMarkdown(), st: st}
}

func (t *transcript) add(e *entry) { t.entries = append(t.entries, e) }

// line adds one line of the given kind.
func (t *transcript) line(kind entryKind, text string) {
	t.add(&entry{kind: kind, text: text})
}

// show adds what a turn or a relay shows, mirroring line mode's display:
// answers stream, a line per tool call, failure lines as they happen.
func (t *transcript) show(ev orchestrator.Event) {
	switch ev.Kind {
	case orchestrator.Text:
		e := t.open[ev.Agent.String()]
		if e == nil {
			e = &entry{kind: kindAnswer, agent: ev.Agent}
			t.add(e)
			t.open[ev.Agent.String()] = e
		}
		e.text += ev.Text
		e.touch()
		return
	case orchestrator.HookRun, orchestrator.Reasoning:
		return // hook runs are listed under the ⚙ line when the turn is over; reasoning is the status line's "thinking…"
	case orchestrator.AskEnd:
		t.closeAnswers(ev.Agent)
		return
	case orchestrator.Warning:
		t.close(ev.Agent)
		t.add(&entry{kind: kindDim, agent: ev.Agent, text: ev.Text})
		return
	}
	t.close(ev.Agent)
	switch ev.Kind {
	case orchestrator.ToolStart:
		t.add(&entry{kind: kindTool, agent: ev.Agent, id: ev.Call.ID, text: calls.Title(ev.Call)})
	case orchestrator.ToolDenied:
		e := t.tool(ev.Agent, ev.Call.ID)
		if e == nil {
			e = &entry{kind: kindTool, agent: ev.Agent, id: ev.Call.ID}
			t.add(e)
		}
		e.state, e.text, e.detail = toolFailed, calls.DeniedTitle(ev.Call), ev.Output
		e.touch()
	case orchestrator.ToolEnd:
		e := t.tool(ev.Agent, ev.Call.ID)
		if e == nil {
			return
		}
		if e.state == toolRunning {
			e.state = toolDone
			switch {
			case ev.Status.Refused():
				e.state, e.detail = toolFailed, ev.Output
			case ev.Status == orchestrator.Cancelled:
				e.state, e.detail = toolFailed, orchestrator.CancelledOutput
			}
		}
		if ev.Summary != "" {
			e.note = ev.Summary
		}
		e.touch()
	case orchestrator.HookFailure:
		t.add(&entry{kind: kindDim, agent: ev.Agent, text: ev.Text})
	case orchestrator.Notice:
		t.add(&entry{kind: kindNotice, agent: ev.Agent, text: ev.Text})
	}
}

// close completes the answer agent is streaming: it shows something else.
func (t *transcript) close(agent orchestrator.Path) {
	if e := t.open[agent.String()]; e != nil {
		e.done = true
		e.touch()
		delete(t.open, agent.String())
	}
}

// closeAnswers completes the answers of agent, whose relay is over, and of
// the agents it asked.
func (t *transcript) closeAnswers(agent orchestrator.Path) {
	for name, e := range t.open {
		if e.agent.Within(agent) {
			e.done = true
			e.touch()
			delete(t.open, name)
		}
	}
}

// endTurn completes every answer still open.
func (t *transcript) endTurn() {
	for name, e := range t.open {
		e.done = true
		e.touch()
		delete(t.open, name)
	}
}

// tool finds the latest call of agent with this id.
func (t *transcript) tool(agent orchestrator.Path, id string) *entry {
	for i := len(t.entries) - 1; i >= 0; i-- {
		if e := t.entries[i]; e.kind == kindTool && slices.Equal(e.agent, agent) && e.id == id {
			return e
		}
	}
	return nil
}

// lines lays the whole conversation out for width cells. An asked agent's
// entries are drawn in a block: its name, then its lines behind a bar.
func (t *transcript) lines(width int) []string {
	var out []string
	prev := ""
	for i, e := range t.entries {
		if e.kind == kindPrompt && i > 0 {
			out = append(out, "")
		}
		if len(e.agent) == 0 {
			out = append(out, t.render(e, width)...)
			prev = ""
			continue
		}
		if e.agent.String() != prev {
			out = append(out, t.st.agent.Render("┌ "+e.agent.String()))
		}
		bar := t.st.agent.Render("│") + " "
		for _, l := range t.render(e, width-2) {
			out = append(out, bar+l)
		}
		prev = e.agent.String()
	}
	return out
}

// render makes (or reuses) e's lines for width cells.
func (t *transcript) render(e *entry, width int) []string {
	width = max(width, 8)
	if e.width == width {
		return e.lines
	}
	st := t.st
	var lines []string
	switch e.kind {
	case kindPrompt:
		lines = paint(st.prompt, "› "+clean(e.text), width)
	case kindAnswer:
		text := strings.TrimRight(clean(e.text), "\n")
		if text == "" {
			break
		}
		if e.done {
			lines = t.md.render(text, width)
		} else {
			lines = wrap(text, width)
		}
	case kindTool:
		if e.state == toolFailed {
			lines = paint(st.failed, "✗ "+clean(e.text), width)
		} else {
			title := "🔧 " + clean(e.text)
			if e.note != "" {
				title += " · " + clean(e.note)
			}
			lines = wrap(title, width)
		}
		if e.detail != "" {
			lines = append(lines, paint(st.dim, "  "+clean(e.detail), width)...)
		}
	case kindDim:
		lines = paint(st.dim, clean(e.text), width)
	case kindNotice:
		lines = wrap(clean(e.text), width)
	case kindError:
		lines = paint(st.err, clean(e.text), width)
	}
	e.width, e.lines = width, lines
	return lines
}
