package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mm-agent/mm/internal/calls"
	"github.com/mm-agent/mm/internal/termtext"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/frontend"
	"github.com/mm-agent/mm/orchestrator"
)

// display renders a turn the line-mode way (also -p): the answer streamed
// after "🤖 ", a line per tool call, failure lines as they happen, then the
// "⚙ <n> command(s)" footer with the displayCommands and displayHooks lists.
// What an asked agent shows comes labelled "[<agent>] ".
//
// Relays run at the same time (two ask_agent calls of one reply), so
// several agents may write at once. Each one's text stays readable: the
// agent whose line is on the screen, unfinished, keeps it until the line
// ends (or its relay does); what the others show meanwhile waits, in order,
// and is written after it, each line starting with its agent's label. A
// consent question waits for the line to end too, but not for long
// (lineGrace): it needs an answer; everything else waits while it is asked.
type display struct {
	out   io.Writer
	err   io.Writer // for notices that are not the product (nil: none)
	color bool
	cfg   *config.Config

	mu sync.Mutex
	// mid: the cursor is not at the start of a line; owner is then the
	// agent ("" for this one) whose line it is.
	mid   bool
	owner string
	// cut: the line of cutter was ended before it was done (by a consent
	// question, or at the end): the newline it then writes is already there.
	cut    bool
	cutter string
	// last is who wrote last; answering, whose answer is being streamed
	// (a line of it is on the screen, or ended just before).
	last      string
	answering map[string]bool
	// pending holds, per agent, what it showed while another owned the
	// line; waiting lists those agents in the order they began to wait.
	pending map[string][]piece
	waiting []string
	asking  bool          // a consent question waits for its answer
	free    chan struct{} // closed once the line is free, for a question waiting for it
	hinted  []string      // the consent hints given this turn
	// reasoning: the line on the screen is shown reasoning (showReasoning),
	// not an answer.
	reasoning bool
	// streams clean what each agent streams (piece).
	streams map[streamKey]*termtext.Stream
	// indicator: draw "thinking…" on stderr while the model reasons (both
	// stdout and stderr are a terminal); thinking: it is drawn now.
	indicator, thinking bool
}

// piece is something an agent showed: streamed text, a whole line, or the
// end of its relay.
type piece struct {
	text string
	line bool
	end  bool
	// reason: text is reasoning shown with showReasoning; toErr: the line
	// is a diagnostic (a retry, an answer cut off) for stderr.
	reason, toErr bool
}

// consentAsker is the mark of a consent question as the writer of a line.
const consentAsker = "\x00consent"

func newDisplay(io *IOStreams, cfg *config.Config) *display {
	return &display{out: io.Out, err: io.Err, color: io.Color, cfg: cfg, indicator: io.OutTTY && io.ErrTTY}
}

// thinkingLine is the indicator line mode draws on stderr while the model
// reasons, erased when it answers.
const thinkingLine = "thinking…"

// show is the orchestrator's show callback.
func (d *display) show(ev orchestrator.Event) {
	// What the model, a tool, a hook or a remote agent wrote is drawn
	// without its escape sequences and control characters (the contract,
	// "Nothing the model writes runs outside the sandbox"); the tool line
	// is cleaned by calls.ToolLine, the consent question written out
	// visibly by calls.ConsentQuestion.
	agent := termtext.Clean(ev.Agent.String()) // the label, and the key of what it has waiting
	if ev.Kind == orchestrator.Text || ev.Kind == orchestrator.Reasoning {
		ev.Text = d.piece(agent, ev.Kind, ev.Text)
	} else {
		ev.Text = termtext.Clean(ev.Text)
	}
	ev.Output, ev.Call.Tool = termtext.Clean(ev.Output), termtext.Clean(ev.Call.Tool)
	label := ""
	if agent != "" {
		label = "[" + agent + "] "
	}
	if ev.Kind == orchestrator.HookRun {
		return // listed after the answer (displayHooks)
	}
	if ev.Kind == orchestrator.Reasoning && !d.cfg.ShowReasoning {
		d.mu.Lock()
		d.think(label)
		d.mu.Unlock()
		return
	}
	var p piece
	switch ev.Kind {
	case orchestrator.Reasoning:
		if ev.Text == "" {
			return
		}
		p = piece{text: ev.Text, reason: true}
	case orchestrator.Warning:
		p = piece{line: true, toErr: true, text: label + ev.Text}
	case orchestrator.Text:
		if ev.Text == "" {
			return
		}
		p = piece{text: ev.Text}
	case orchestrator.ToolStart:
		p = piece{line: true, text: label + calls.ToolLine(ev.Call)}
	case orchestrator.ToolDenied:
		p = piece{line: true, text: label + hooks.DeniedLine(ev.Call.Tool, ev.Output)}
	case orchestrator.ToolEnd:
		if !ev.Status.Refused() {
			return // the tool line said it all
		}
		p = piece{line: true, text: label + "  " + ev.Output}
	case orchestrator.HookFailure:
		p = piece{line: true, text: d.dim(label + ev.Text)}
	case orchestrator.Notice:
		p = piece{line: true, text: label + ev.Text}
	case orchestrator.AskEnd:
		p = piece{end: true}
	default:
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clearThinking()
	if ev.Kind == orchestrator.ToolEnd && ev.Status == orchestrator.NoOneToAsk {
		d.consentHint(agent)
	}
	d.queue(agent, p)
	d.pump()
}

// piece is a streamed piece of agent's answer or reasoning, cleaned: an
// escape sequence cut between two pieces is held back and cleaned whole
// (termtext.Stream), one stream per agent and kind.
func (d *display) piece(agent string, kind orchestrator.EventKind, text string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	key := streamKey{agent, kind}
	if d.streams == nil {
		d.streams = map[streamKey]*termtext.Stream{}
	}
	s := d.streams[key]
	if s == nil {
		s = &termtext.Stream{}
		d.streams[key] = s
	}
	return s.Piece(text)
}

// streamKey names a stream of pieces: an agent's answer or reasoning.
type streamKey struct {
	agent string
	kind  orchestrator.EventKind
}

// queue adds what agent showed to what it has waiting.
func (d *display) queue(agent string, p piece) {
	if d.pending == nil {
		d.pending, d.answering = map[string][]piece{}, map[string]bool{}
	}
	if len(d.pending[agent]) == 0 && !slices.Contains(d.waiting, agent) {
		d.waiting = append(d.waiting, agent)
	}
	d.pending[agent] = append(d.pending[agent], p)
}

// pump writes what waits, as long as it can: the line's owner first, then
// the others in the order they began to wait. A free line is kept for a
// consent question that waits for one.
func (d *display) pump() {
	for !d.asking {
		switch {
		case d.mid:
			if !d.next(d.owner, false) {
				return // the owner's line goes on when it writes again
			}
		case d.free != nil || len(d.waiting) == 0:
			return
		default:
			d.next(d.waiting[0], false)
		}
	}
}

// next writes agent's next waiting piece and reports whether there was
// one; with whole, only a piece that leaves no line unfinished.
func (d *display) next(agent string, whole bool) bool {
	ps := d.pending[agent]
	if len(ps) == 0 || whole && !ps[0].line && !ps[0].end && !strings.HasSuffix(ps[0].text, "\n") {
		if len(ps) == 0 {
			d.waiting = slices.DeleteFunc(d.waiting, func(a string) bool { return a == agent })
		}
		return false
	}
	d.pending[agent] = ps[1:]
	if len(ps) == 1 {
		d.pending[agent] = nil
		d.waiting = slices.DeleteFunc(d.waiting, func(a string) bool { return a == agent })
	}
	d.write(agent, ps[0])
	if !d.mid && d.free != nil {
		close(d.free) // the consent question waiting for the line has it
		d.free = nil
	}
	return true
}

// write puts one piece of agent's on the screen; the line is free or
// agent's.
func (d *display) write(agent string, p piece) {
	switch {
	case p.end:
		if d.mid && d.owner == agent {
			d.endLine()
		}
		delete(d.answering, agent)
	case p.line && p.toErr:
		w := d.err
		if w == nil {
			w = d.out // a display already on stderr (mm --ask, structured -p)
		}
		d.endLine()
		io.WriteString(w, p.text+"\n")
	case p.line:
		d.endLine()
		io.WriteString(d.out, p.text+"\n")
		d.last = agent
		delete(d.answering, agent)
		if agent == "" {
			// The agent's own lines end every answer streamed before them.
			clear(d.answering)
		}
	default:
		if d.cut && d.cutter == agent {
			d.cut = false
			p.text = strings.TrimPrefix(p.text, "\n")
			if p.text == "" {
				return
			}
		}
		if d.mid && d.reasoning != p.reason {
			d.endLine() // the answer starts on a line of its own
		}
		label := ""
		if agent != "" {
			label = "[" + agent + "] "
		}
		switch {
		case p.reason:
			if !d.mid {
				io.WriteString(d.out, d.dim(label+"💭 "))
			}
			delete(d.answering, agent)
		case !d.mid && (!d.answering[agent] || d.last != agent):
			io.WriteString(d.out, label+"🤖 ")
			d.answering[agent] = true
		}
		d.reasoning = p.reason
		if p.reason {
			io.WriteString(d.out, d.dim(p.text))
		} else {
			io.WriteString(d.out, p.text)
		}
		d.mid = !strings.HasSuffix(p.text, "\n")
		d.owner, d.last = agent, agent
	}
}

// done writes everything that waits and ends the line: the turn, or the
// relay, is over.
func (d *display) done() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.flush()
}

func (d *display) flush() {
	d.clearThinking()
	d.asking = false
	d.pump()
	for len(d.waiting) > 0 {
		d.endLine()
		d.pump()
	}
	d.endLine()
}

// think shows that the model reasons: the one-line indicator on stderr,
// when the line on stdout is free (it shares the terminal).
func (d *display) think(label string) {
	if !d.indicator || d.thinking || d.err == nil || d.mid {
		return
	}
	io.WriteString(d.err, label+thinkingLine)
	d.thinking = true
}

// clearThinking erases the indicator.
func (d *display) clearThinking() {
	if d.thinking {
		io.WriteString(d.err, "\r\x1b[K")
		d.thinking = false
	}
}

func (d *display) endLine() {
	if d.mid {
		io.WriteString(d.out, "\n")
		d.mid, d.cut, d.cutter = false, true, d.owner
	}
}

// lineGrace is how long a consent question waits for the line being
// written to end before it ends it.
const lineGrace = 2 * time.Second

// ask writes a consent question on a line of its own: once the line being
// written ends (or after lineGrace: then whoever wrote it takes up again
// on a new line), after what waits in whole lines. Everything else then
// waits until answered, which is called once the answer is in.
func (d *display) ask(question string) (answered func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clearThinking()
	if d.mid {
		free := make(chan struct{})
		d.free = free
		d.mu.Unlock()
		select {
		case <-free:
		case <-time.After(lineGrace):
		}
		d.mu.Lock()
		d.free = nil
	}
	d.endLine()
	for _, agent := range slices.Clone(d.waiting) {
		for d.next(agent, true) {
		}
	}
	io.WriteString(d.out, question)
	d.asking, d.last = true, consentAsker
	return func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.asking = false
		d.pump()
	}
}

// consentHint tells the user, once per turn and on stderr, how to let
// tools run when there is no one to ask: the model's refusal text is the
// contract's ("set yolo: true to allow") and names the config only. An
// asked agent's calls follow its own config; --yolo does not reach it.
func (d *display) consentHint(agent string) {
	if d.err == nil || slices.Contains(d.hinted, agent) {
		return
	}
	d.hinted = append(d.hinted, agent)
	if agent == "" {
		fmt.Fprintln(d.err, "mm: a tool call was refused: there is no terminal to ask for consent on; run mm with --yolo, or set yolo: true in the config, to let tools run without asking")
		return
	}
	fmt.Fprintf(d.err, "mm: a tool call of %s was refused: there is no terminal to ask for consent on; set yolo: true in its config to let its tools run without asking (--yolo is this agent's only)\n", agent)
}

func (d *display) dim(s string) string {
	if d.color {
		return "\x1b[2m" + s + "\x1b[0m"
	}
	return s
}

// footer ends a turn: what waits, a cancelled turn's notice, the ⚙ line,
// then the commands and the hook runs when the config asks for them, in
// the same dim colour.
func (d *display) footer(res orchestrator.TurnResult) {
	d.done()
	if res.Cancelled() {
		io.WriteString(d.out, CancelledNotice+"\n")
	}
	if d.err != nil && res.Empty {
		fmt.Fprintln(d.err, "mm: "+orchestrator.EmptyReply)
	}
	if d.err != nil && res.ReasoningOnly {
		fmt.Fprintln(d.err, "mm: "+orchestrator.ReasoningOnlyReply)
	}
	if d.err != nil && res.SaveErr != nil {
		fmt.Fprintln(d.err, "mm: session file: "+res.SaveErr.Error())
	}
	for _, l := range frontend.Footer(d.cfg, res) {
		io.WriteString(d.out, d.dim(termtext.Clean(l))+"\n")
	}
}

// CancelledNotice ends the display of a cancelled turn (Ctrl-C), on a
// line of its own after what was shown.
const CancelledNotice = "⏹ turn cancelled"
