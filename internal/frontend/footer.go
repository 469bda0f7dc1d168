package frontend

import (
	"fmt"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/internal/calls"
	"github.com/mm-agent/mm/orchestrator"
)

// Footer is the lines that end a turn in line mode and the window: "⚙ <n>
// command(s)", then (displayCommands) a line per command run and
// (displayHooks) the hook lines of the reference, numbered; none when
// nothing happened (the turn failed before anything ran: its error says
// it all).
func Footer(cfg *config.Config, res orchestrator.TurnResult) []string {
	if res.Err != nil && !res.Cancelled() && res.Answer == "" && len(res.Ran) == 0 && len(res.HookRuns) == 0 {
		return nil
	}
	lines := []string{fmt.Sprintf("⚙ %d command(s)", len(res.Ran))}
	if cfg.DisplayCommands {
		for _, c := range res.Ran {
			lines = append(lines, "  "+calls.ToolLine(c))
		}
	}
	if cfg.DisplayHooks {
		for i, r := range res.HookRuns {
			lines = append(lines, "  "+r.Line(i+1))
		}
	}
	return lines
}
