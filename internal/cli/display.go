package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/orchestrator"
)

// display renders a turn the line-mode way (also -p): the answer streamed
// after "🤖 ", a line per tool call, failure lines as they happen, then the
// "⚙ <n> command(s)" footer with the displayCommands and displayHooks lists.
// What an asked agent shows comes labelled "[<agent>] ".
type display struct {
	out   io.Writer
	err   io.Writer // for notices that are not the product (nil: none)
	color bool
	cfg   *config.Config
	// mid: the cursor is not at the start of a line; answering: the
	// current line is an answer being streamed, by the agent answerer.
	mid, answering bool
	answerer       string
	// indicator: draw "thinking…" on stderr while the model reasons (both
	// stdout and stderr are a terminal); thinking: it is drawn now.
	indicator, thinking bool
	// reasoning: the current line is shown reasoning (showReasoning), by
	// the agent reasoner.
	reasoning bool
	reasoner  string
}

func newDisplay(io *IOStreams, cfg *config.Config) *display {
	return &display{out: io.Out, err: io.Err, color: io.Color, cfg: cfg, indicator: io.OutTTY && io.ErrTTY}
}

// thinkingLine is the indicator line mode draws on stderr while the model
// reasons, erased when it answers.
const thinkingLine = "thinking…"

// think shows that the model reasons: the indicator, or with showReasoning
// the reasoning itself, dim, before the answer.
func (d *display) think(ev orchestrator.Event, label string) {
	if d.cfg.ShowReasoning {
		d.clearThinking()
		if !d.reasoning || d.reasoner != ev.Agent {
			d.endLine()
			d.answering = false
			io.WriteString(d.out, d.dim(label+"💭 "))
			d.reasoning, d.reasoner = true, ev.Agent
		}
		io.WriteString(d.out, d.dim(ev.Text))
		d.mid = !strings.HasSuffix(ev.Text, "\n")
		return
	}
	if !d.indicator || d.thinking || d.err == nil {
		return
	}
	if d.mid {
		d.endLine()
		d.answering = false
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

// show is the orchestrator's show callback; it is called one event at a time.
func (d *display) show(ev orchestrator.Event) {
	label := ""
	if ev.Agent != "" {
		label = "[" + ev.Agent + "] "
	}
	switch ev.Kind {
	case orchestrator.Reasoning:
		d.think(ev, label)
		return
	case orchestrator.HookRun:
		return // listed after the answer (displayHooks)
	}
	d.clearThinking()
	if ev.Kind != orchestrator.Reasoning && d.reasoning {
		d.reasoning = false
		d.endLine()
	}
	switch ev.Kind {
	case orchestrator.Text:
		if !d.answering || d.answerer != ev.Agent {
			d.endLine()
			io.WriteString(d.out, label+"🤖 ")
			d.answering, d.answerer = true, ev.Agent
		}
		io.WriteString(d.out, ev.Text)
		d.mid = !strings.HasSuffix(ev.Text, "\n")
	case orchestrator.ToolStart:
		d.line(label + toolLine(ev.Call))
	case orchestrator.ToolDenied:
		d.line(label + "🪝 " + ev.Call.Tool + " " + ev.Output)
	case orchestrator.ToolEnd:
		if ev.Output == orchestrator.NoConsent || ev.Output == orchestrator.UserRefused {
			d.line(label + "  " + ev.Output)
		}
	case orchestrator.HookFailure:
		d.line(d.dim(label + ev.Text))
	case orchestrator.Notice:
		d.line(label + ev.Text)
	case orchestrator.Warning:
		w := d.err
		if w == nil {
			w = d.out // a display already on stderr (mm --ask, structured -p)
		}
		d.endLine()
		d.answering = false
		fmt.Fprintln(w, label+ev.Text)
	}
}

// line writes one whole line, ending a streamed answer first.
func (d *display) line(s string) {
	d.endLine()
	d.answering = false
	io.WriteString(d.out, s+"\n")
}

func (d *display) endLine() {
	if d.mid {
		io.WriteString(d.out, "\n")
		d.mid = false
	}
}

func (d *display) dim(s string) string {
	if d.color {
		return "\x1b[2m" + s + "\x1b[0m"
	}
	return s
}

// footer ends a turn: the ⚙ line, then the commands and the hook runs
// when the config asks for them, in the same dim colour.
func (d *display) footer(res orchestrator.TurnResult) {
	d.clearThinking()
	d.endLine()
	d.answering, d.reasoning = false, false
	if d.err != nil && res.Empty {
		fmt.Fprintln(d.err, "mm: "+orchestrator.EmptyReply)
	}
	if d.err != nil && res.ReasoningOnly {
		fmt.Fprintln(d.err, "mm: "+orchestrator.ReasoningOnlyReply)
	}
	if d.err != nil && res.SaveErr != nil {
		fmt.Fprintln(d.err, "mm: session file: "+res.SaveErr.Error())
	}
	if res.Err != nil && !res.Cancelled() && res.Answer == "" && len(res.Ran) == 0 && len(res.HookRuns) == 0 {
		return // nothing happened: the error line says it all
	}
	lines := []string{fmt.Sprintf("⚙ %d command(s)", len(res.Ran))}
	if d.cfg.DisplayCommands {
		for _, c := range res.Ran {
			lines = append(lines, "  "+toolLine(c))
		}
	}
	if d.cfg.DisplayHooks {
		for i, r := range res.HookRuns {
			lines = append(lines, "  "+r.Line(i+1))
		}
	}
	for _, l := range lines {
		io.WriteString(d.out, d.dim(l)+"\n")
	}
}

// toolLine is the usual line of a tool call: "🔧 bash: ls -la".
func toolLine(c orchestrator.Call) string {
	if c.Summary == "" {
		return "🔧 " + c.Tool
	}
	return "🔧 " + c.Tool + ": " + c.Summary
}
