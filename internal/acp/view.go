package acp

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/mm-agent/mm/internal/calls"

	"github.com/coder/acp-go-sdk"

	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/sessionfile"
	"github.com/mm-agent/mm/internal/termtext"
	"github.com/mm-agent/mm/orchestrator"
)

// view shows one turn in the editor: the editor's counterpart of line
// mode's display (internal/cli/display.go). The answer streams as message
// chunks; each tool call is an ACP tool call, started when the tool starts
// and updated when it ends; a call a hook denied is a failed tool call;
// with displayHooks, each hook run is a tool call of its own; hook failure
// lines go to stderr.
//
// It is called from several goroutines (tool calls run in parallel, asked
// agents show through askTool); mu keeps each call's updates in order.
type view struct {
	s *session
	// prefix makes the model's call ids, which restart every turn
	// ("call_1_1"), unique in the session.
	prefix string
	ask    bool // the agent asks for consent: its calls start pending
	hooks  bool // displayHooks

	mu    sync.Mutex
	calls map[string]*callState
	runs  int // hook runs shown
}

// callState is what the editor shows of a tool call so far.
type callState struct {
	ended bool
	// shown is its title, status and content as the editor has them now,
	// for the session file (session/load shows them again).
	shown sessionfile.Shown
	// blocks are the asked agent's answer and notices, for ask_agent.
	blocks []block
	// writing is, per speaker (its path's String), the block its text goes
	// on growing until it shows something else, or an agent above it
	// writes: two agents further down that write at once (an asked agent's
	// twin relays, expert/librarian#1 and #2) each fill a block of their
	// own.
	writing map[string]int
}

// block is one piece of an ask_agent call's content: a run of text by one
// speaker (an asked agent's path), or a notice.
type block struct {
	speaker orchestrator.Path
	notice  bool
	text    string
}

func newView(s *session, turn int) *view {
	return &view{
		s: s, prefix: "t" + strconv.Itoa(turn) + "/",
		ask: !s.mm.Agent.Yolo, hooks: s.srv.app.Config.DisplayHooks,
		calls: map[string]*callState{},
	}
}

// callID is the ACP id of a tool call: the session's own call id, or, for
// an asked agent's call, the asking ask_agent call's ACP id (parent) and
// the path of agents it came through ("…/expert/librarian/call_1").
func (v *view) callID(parent string, agents orchestrator.Path, id string) string {
	if len(agents) == 0 {
		return v.prefix + id
	}
	if parent == "" {
		parent = strings.TrimSuffix(v.prefix, "/")
	}
	return parent + "/" + agents.String() + "/" + id
}

// show is the orchestrator's show callback.
func (v *view) show(ev orchestrator.Event) {
	if len(ev.Agent) > 0 {
		v.asked("", ev)
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	id := v.callID("", nil, ev.Call.ID)
	switch ev.Kind {
	case orchestrator.Text:
		v.send(acp.UpdateAgentMessageText(ev.Text))
	case orchestrator.ToolStart:
		v.start(id, ev.Call, v.ask, true)
	case orchestrator.ToolDenied:
		v.denied(id, ev.Call, ev, true)
	case orchestrator.ToolEnd:
		v.end(id, ev)
	case orchestrator.HookRun:
		v.hookRun(ev.Run)
	case orchestrator.HookFailure:
		v.s.srv.log.line(ev.Text)
	case orchestrator.Notice:
		v.send(acp.UpdateAgentMessageText("\n" + ev.Text + "\n"))
	}
}

// asked shows an event of an asked agent: its answer streams into the
// content of the ask_agent call that asked it (parent); its tool calls are
// tool calls of their own, titled "<agent> › <tool>" as its consent
// questions are. Its hook runs are its own business (they do not cross
// the process boundary); its hook failure lines go to stderr, labelled.
// parent is "" for an asked agent's event that reached the turn without
// going through askTool (none does today): its text joins the answer.
func (v *view) asked(parent string, ev orchestrator.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	id := v.callID(parent, ev.Agent, ev.Call.ID)
	call := ev.Call // titled after the agents it comes from
	call.Agent = ev.Agent
	label := "[" + ev.Agent.String() + "] "
	switch ev.Kind {
	case orchestrator.Text:
		if parent == "" {
			v.send(acp.UpdateAgentMessageText(ev.Text))
			return
		}
		v.content(parent, ev.Agent, false, ev.Text)
	case orchestrator.ToolStart:
		v.start(id, call, false, false)
	case orchestrator.ToolDenied:
		v.denied(id, call, ev, false)
	case orchestrator.ToolEnd:
		v.end(id, ev)
	case orchestrator.HookFailure:
		v.s.srv.log.line(label + ev.Text)
	case orchestrator.Notice:
		if parent == "" {
			v.send(acp.UpdateAgentMessageText("\n" + label + ev.Text + "\n"))
			return
		}
		v.content(parent, ev.Agent, true, label+ev.Text)
	}
	if ev.Kind != orchestrator.Text && parent != "" {
		// Whatever else it shows ends the block its text was growing.
		delete(v.call(parent).writing, ev.Agent.String())
	}
}

// relayed is how a relay's events reach the editor when the relay is the
// ask_agent call parent (the model's tool call or an /ask command): an
// asked agent's events and the relay's postAsk notice go to the call's
// content; the asking agent's own (preAsk and postAsk runs, their
// failures, a denial) go to own.
func (v *view) relayed(parent string, own func(orchestrator.Event)) func(orchestrator.Event) {
	return func(ev orchestrator.Event) {
		switch {
		case len(ev.Agent) > 0:
			v.asked(parent, ev)
		case ev.Kind == orchestrator.Notice:
			v.notice(parent, ev.Text)
		default:
			own(ev)
		}
	}
}

// notice adds a notice of the relay itself (postAsk's replacement
// notice) to the content of the ask_agent call parent.
func (v *view) notice(parent, text string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.content(parent, nil, true, text)
}

// content appends to an ask_agent call's content and sends all of it:
// ACP's tool_call_update replaces a call's content.
func (v *view) content(parent string, speaker orchestrator.Path, notice bool, text string) {
	c := v.call(parent)
	if c.writing == nil {
		c.writing = map[string]int{}
	}
	if !notice {
		for k, i := range c.writing {
			if below := c.blocks[i].speaker; len(below) > len(speaker) && below.Within(speaker) {
				delete(c.writing, k)
			}
		}
	}
	key := speaker.String()
	i, writing := c.writing[key]
	switch {
	case notice:
		// A notice comes after what its speaker wrote; what it writes next
		// is a block of its own.
		c.blocks = append(c.blocks, block{speaker: speaker, notice: true, text: text})
		delete(c.writing, key)
	case writing:
		c.blocks[i].text += text
	case len(speaker) > 1:
		// Further down the chain: say who is speaking.
		c.writing[key] = len(c.blocks)
		c.blocks = append(c.blocks, block{speaker: speaker, text: "[" + key + "] " + text})
	default:
		c.writing[key] = len(c.blocks)
		c.blocks = append(c.blocks, block{speaker: speaker, text: text})
	}
	v.send(acp.UpdateToolCall(acp.ToolCallId(parent), acp.WithUpdateContent(c.contents())))
}

// contents is the content of an ask_agent call: its blocks.
func (c *callState) contents() []acp.ToolCallContent {
	texts := make([]string, len(c.blocks))
	for i, b := range c.blocks {
		texts[i] = b.text
	}
	return c.setContent(texts...)
}

// setContent makes texts the call's content, and returns it as ACP's.
func (c *callState) setContent(texts ...string) []acp.ToolCallContent {
	c.shown.Content = texts
	out := make([]acp.ToolCallContent, len(texts))
	for i, t := range texts {
		out[i] = textContent(t)
	}
	return out
}

// shownOf is what the editor showed of the session agent's call id of
// this turn, nil when it showed none.
func (v *view) shownOf(id string) *sessionfile.Shown {
	v.mu.Lock()
	defer v.mu.Unlock()
	c := v.calls[v.callID("", nil, id)]
	if c == nil || !c.ended {
		return nil
	}
	shown := c.shown
	return &shown
}

func (v *view) call(id string) *callState {
	c := v.calls[id]
	if c == nil {
		c = &callState{}
		v.calls[id] = c
	}
	return c
}

// start shows a tool call that starts: pending while consent is asked,
// else running. own: a call of the session's agent, whose paths are in
// the session's directory.
func (v *view) start(id string, call orchestrator.Call, pending, own bool) {
	v.call(id).shown.Title = calls.Title(call)
	status := acp.ToolCallStatusInProgress
	if pending {
		status = acp.ToolCallStatusPending
	}
	opts := []acp.ToolCallStartOpt{
		acp.WithStartKind(kindOf(call.Tool)),
		acp.WithStartStatus(status),
		acp.WithStartRawInput(rawInput(call.Input)),
	}
	if own {
		if l := locations(call, v.s.cwd); l != nil {
			opts = append(opts, func(tc *acp.SessionUpdateToolCall) { tc.Locations = l })
		}
	}
	v.send(acp.StartToolCall(acp.ToolCallId(id), calls.Title(call), opts...))
}

// running shows that consent allowed a call.
func (v *view) running(id string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.send(acp.UpdateToolCall(acp.ToolCallId(id), acp.WithUpdateStatus(acp.ToolCallStatusInProgress)))
}

// denied shows a call a hook denied as a failed call titled as the
// reference's preToolCall table says; ask_agent, denied by preAsk, has
// started already and is updated.
func (v *view) denied(id string, call orchestrator.Call, ev orchestrator.Event, own bool) {
	t := calls.DeniedTitle(call)
	c, started := v.calls[id]
	if !started {
		c = v.call(id)
	}
	c.ended, c.shown.Title, c.shown.Failed = true, t, true
	content := c.setContent(ev.Output)
	if started {
		v.send(acp.UpdateToolCall(acp.ToolCallId(id), acp.WithUpdateTitle(t),
			acp.WithUpdateStatus(acp.ToolCallStatusFailed), acp.WithUpdateContent(content)))
		return
	}
	opts := []acp.ToolCallStartOpt{
		acp.WithStartKind(kindOf(ev.Call.Tool)),
		acp.WithStartStatus(acp.ToolCallStatusFailed),
		acp.WithStartRawInput(rawInput(ev.Call.Input)),
		acp.WithStartContent(content),
	}
	if own {
		if l := locations(ev.Call, v.s.cwd); l != nil {
			opts = append(opts, func(tc *acp.SessionUpdateToolCall) { tc.Locations = l })
		}
	}
	v.send(acp.StartToolCall(acp.ToolCallId(id), t, opts...))
}

// end shows a call that ended (ev, a ToolEnd): completed, or failed when
// it did not do its work (a failure, a refusal, a cancel). An ask_agent
// call keeps the answer as it was shown while written (postAsk changes
// what the asking agent reads, never what was shown); a failure is added
// after it.
func (v *view) end(id string, ev orchestrator.Event) {
	output, summary := ev.Output, ev.Summary
	c := v.call(id)
	if c.ended {
		return // a hook denied it, and said so
	}
	c.ended = true
	status := acp.ToolCallStatusCompleted
	if ev.Status != orchestrator.OK {
		status = acp.ToolCallStatusFailed
	}
	c.shown.Failed = status == acp.ToolCallStatusFailed
	opts := []acp.ToolCallUpdateOpt{acp.WithUpdateStatus(status)}
	if summary != "" { // ask_agent: "expert answered; a hook replaced the answer (n characters)"
		summary = termtext.Clean(summary)
		c.shown.Title = summary
		opts = append(opts, acp.WithUpdateTitle(summary))
	}
	switch {
	case len(c.blocks) == 0:
		opts = append(opts, acp.WithUpdateContent(c.setContent(output)))
	case status == acp.ToolCallStatusFailed:
		c.blocks = append(c.blocks, block{notice: true, text: output})
		opts = append(opts, acp.WithUpdateContent(c.contents()))
	}
	v.send(acp.UpdateToolCall(acp.ToolCallId(id), opts...))
}

// hookRun shows a hook run, with displayHooks, as the reference's
// "Affichage" table says of the editor: a tool call of kind other, sent
// when the hook ended and completed at once, failed when the run failed.
// These calls are not in the history, so session/load does not replay them.
func (v *view) hookRun(run hooks.Run) {
	if !v.hooks {
		return
	}
	v.runs++
	status := acp.ToolCallStatusCompleted
	if run.Failure != "" {
		status = acp.ToolCallStatusFailed
	}
	v.send(acp.StartToolCall(acp.ToolCallId(v.prefix+"hook-"+strconv.Itoa(v.runs)), hookTitle(run),
		acp.WithStartKind(acp.ToolKindOther), acp.WithStartStatus(status)))
}

// send sends an update of the session. It is not bound to the prompt's
// context: what a cancelled turn still shows (postGeneration's run) is
// sent too. An editor gone away is not an error here; the connection ends.
func (v *view) send(u acp.SessionUpdate) {
	v.s.srv.client().SessionUpdate(context.Background(), acp.SessionNotification{SessionId: acp.SessionId(v.s.id), Update: u})
}
