package tui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/mm-agent/mm/internal/frontend"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// job is the turn or /ask… running now. One runs at a time: a session runs
// one turn at a time, and an /ask-with-context reads the conversation.
type job struct {
	line      string
	cancel    context.CancelFunc
	cancelled bool
	// thinking: the model is reasoning and has not started its answer.
	thinking bool
}

// What a job's goroutine sends the window: each event as it happens, then
// how the job ended. Program.Send delivers them in the order they are sent.
type (
	eventMsg    struct{ ev orchestrator.Event }
	turnDoneMsg struct{ res orchestrator.TurnResult }
	askDoneMsg  struct {
		line string
		res  relay.Result
		err  error
	}
)

// start runs line (a prompt or an /ask… command) on its own goroutine.
func (m *model) start(line string) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	m.running = &job{line: line, cancel: cancel}
	m.tr.add(&entry{kind: kindPrompt, text: line})
	send := m.send
	show := func(ev orchestrator.Event) { send(eventMsg{ev}) }
	m.jobs.Add(1)
	switch {
	case frontend.Parse(line) == frontend.Compact:
		go func() {
			defer m.jobs.Done()
			defer cancel()
			n, err := m.session.Compact(ctx)
			send(compactDoneMsg{n: n, err: err})
		}()
	case frontend.Parse(line) == frontend.Ask:
		go func() {
			defer m.jobs.Done()
			defer cancel()
			res, err := m.app.Ask(ctx, m.session, line, show, m.consent)
			send(askDoneMsg{line: line, res: res, err: err})
		}()
	default:
		go func() {
			defer m.jobs.Done()
			defer cancel()
			send(turnDoneMsg{m.session.Generate(ctx, line, show, m.consent)})
		}()
	}
	return m.spin.Tick
}

// compactDoneMsg ends a /compact job: how many messages the summary
// replaced, or why nothing was compressed.
type compactDoneMsg struct {
	n   int
	err error
}

// next starts the first line sent during the job that just ended.
func (m *model) next() tea.Cmd {
	m.running = nil
	if len(m.queue) == 0 {
		return nil
	}
	line := m.queue[0]
	m.queue = m.queue[1:]
	return m.start(line)
}

// abort cancels the running job (postGeneration and postAsk still run:
// that is the orchestrator's and the relay's business) and drops the lines
// waiting for it: a user who stops a turn means the ones after it too.
func (m *model) abort() {
	if m.running == nil || m.running.cancelled {
		return
	}
	m.running.cancelled = true
	m.running.cancel()
	if n := len(m.queue); n > 0 {
		m.queue = nil
		m.tr.line(kindDim, fmt.Sprintf("%d waiting prompt(s) dropped", n))
	}
}

// turnDone ends a turn as line mode does: the ⚙ line, then the commands
// (displayCommands) and one notice per hook run (displayHooks), dim; then
// what went wrong, if anything.
func (m *model) turnDone(res orchestrator.TurnResult) {
	m.tr.endTurn()
	for _, l := range frontend.Footer(m.app.Config, res) {
		m.tr.line(kindDim, l)
	}
	if res.ReasoningOnly {
		m.tr.line(kindDim, orchestrator.ReasoningOnlyReply)
	}
	if res.Empty {
		m.tr.line(kindDim, orchestrator.EmptyReply)
	}
	if res.SaveErr != nil {
		m.tr.line(kindError, "session file: "+res.SaveErr.Error())
	}
	switch {
	case res.Err == nil:
	case res.Cancelled():
		m.tr.line(kindError, "turn cancelled")
	default:
		m.tr.line(kindError, res.Err.Error())
		for _, n := range frontend.DefaultsNotes(m.app.Config, m.modelFlag, res.Err) {
			m.tr.line(kindNotice, n)
		}
	}
}

// askDone says what went wrong with an /ask… command. Its hook runs are
// not listed: they ran outside a turn (the reference's "Affichage").
func (m *model) askDone(d askDoneMsg) {
	m.tr.endTurn()
	if msg := frontend.AskFailure(d.line, d.res, d.err); msg != "" {
		m.tr.line(kindError, msg)
	}
}
