package cli

import (
	"strings"
	"testing"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/orchestrator"
)

// Two relays that write at once, piece by piece: the line on the screen
// stays its agent's until it ends; the other's text follows in whole
// lines, labelled; the agent's own newlines are kept.
func TestDisplayInterleaved(t *testing.T) {
	var out strings.Builder
	d := &display{out: &out, cfg: &config.Config{}}
	text := func(agent, s string) {
		d.show(orchestrator.Event{Kind: orchestrator.Text, Agent: path(agent), Text: s})
	}
	text("", "Let me ask.")
	d.show(orchestrator.Event{Kind: orchestrator.ToolStart, Call: orchestrator.Call{Tool: "ask_agent", Summary: "expert"}})
	d.show(orchestrator.Event{Kind: orchestrator.ToolStart, Call: orchestrator.Call{Tool: "ask_agent", Summary: "expert"}})
	text("expert#1", "An in")
	text("expert#2", "A soc")
	text("expert#1", "ode.\nIt ")
	text("expert#2", "ket.\n")
	text("expert#1", "holds.")
	text("expert#2", "It has")
	d.show(orchestrator.Event{Kind: orchestrator.AskEnd, Agent: orchestrator.Path{"expert#1"}})
	text("expert#2", " a port.")
	d.show(orchestrator.Event{Kind: orchestrator.AskEnd, Agent: orchestrator.Path{"expert#2"}})
	text("", "Both\n")
	text("", "\nanswered.")
	d.done()
	want := `🤖 Let me ask.
🔧 ask_agent: expert
🔧 ask_agent: expert
[expert#1] 🤖 An inode.
It holds.
[expert#2] 🤖 A socket.
It has a port.
🤖 Both

answered.
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// A consent question waits for the line being written, comes after what
// waits, and holds the rest until it is answered.
func TestDisplayConsentQuestion(t *testing.T) {
	var out strings.Builder
	d := &display{out: &out, cfg: &config.Config{}}
	text := func(agent, s string) {
		d.show(orchestrator.Event{Kind: orchestrator.Text, Agent: path(agent), Text: s})
	}
	text("expert#1", "Working")
	d.show(orchestrator.Event{Kind: orchestrator.ToolStart, Agent: orchestrator.Path{"expert#2"}, Call: orchestrator.Call{Tool: "bash", Summary: "ls"}})
	asked := make(chan func())
	go func() { asked <- d.ask("  allow expert › bash: ls? [y/N] ") }()
	text("expert#1", " on it.\n")
	answered := <-asked
	out.WriteString("y\n") // the answer, echoed
	text("expert#1", "Done.")
	if strings.Contains(out.String(), "Done.") {
		t.Fatalf("written while the question waits for its answer:\n%s", out.String())
	}
	answered()
	d.done()
	want := `[expert#1] 🤖 Working on it.
[expert#2] 🔧 bash: ls
  allow expert › bash: ls? [y/N] y
[expert#1] 🤖 Done.
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// path is agent as an event's path: none for "".
func path(agent string) orchestrator.Path {
	if agent == "" {
		return nil
	}
	return orchestrator.Path{agent}
}
