package frontend

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

func TestParse(t *testing.T) {
	tests := map[string]Command{
		"hello":                 Prompt,
		"  /help ":              Help,
		"/exit":                 Exit,
		"/quit":                 Exit,
		"/compact":              Compact,
		"/abort":                Abort,
		"/ask expert what":      Ask,
		"/ask":                  Ask, // its usage error is Ask's to say
		"/ask-expert what":      Ask,
		"/ask-with-context-e w": Ask,
		"/askexpert what":       Unknown,
		"/helpme":               Unknown,
		"/":                     Unknown,
		"what does /help mean?": Prompt,
		"/compact the history":  Unknown,
	}
	for line, want := range tests {
		if got := Parse(line); got != want {
			t.Errorf("Parse(%q) = %v, want %v", line, got, want)
		}
	}
	if got := UnknownCommand(" /frobnicate now"); got != "unknown command /frobnicate; /help lists them" {
		t.Errorf("UnknownCommand: %q", got)
	}
}

func TestFooter(t *testing.T) {
	ran := []orchestrator.Call{{Tool: "bash", Summary: "ls"}}
	runs := []hooks.Run{{Event: hooks.PreToolCall, Target: "bash", Command: "g.sh", Decision: "continue"}}
	tests := []struct {
		name string
		cfg  config.Config
		res  orchestrator.TurnResult
		want []string
	}{
		{"answered", config.Config{}, orchestrator.TurnResult{Answer: "A", Ran: ran}, []string{"⚙ 1 command(s)"}},
		{"with the lists", config.Config{DisplayCommands: true, DisplayHooks: true}, orchestrator.TurnResult{Ran: ran, HookRuns: runs},
			[]string{"⚙ 1 command(s)", "  🔧 bash: ls", "  🪝 1. preToolCall [bash] · g.sh → continue"}},
		{"failed before anything", config.Config{}, orchestrator.TurnResult{Err: errors.New("unreachable")}, nil},
		{"cancelled", config.Config{}, orchestrator.TurnResult{Err: context.Canceled}, []string{"⚙ 0 command(s)"}},
	}
	for _, tt := range tests {
		if got := Footer(&tt.cfg, tt.res); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestAskFailure(t *testing.T) {
	tests := []struct {
		res  relay.Result
		err  error
		want string
	}{
		{relay.Result{Status: relay.Answered}, nil, ""},
		{relay.Result{}, ErrNoAgents, "this agent has no mmConfigs to ask"},
		{relay.Result{Denied: true, Reason: "no"}, nil, "ask denied by a hook: no"},
		{relay.Result{Status: relay.Cancelled, Err: context.Canceled}, nil, "ask cancelled"},
		{relay.Result{Status: relay.Failed, Err: errors.New("boom")}, nil, "ask expert: boom"},
	}
	for _, tt := range tests {
		if got := AskFailure("/ask expert why", tt.res, tt.err); got != tt.want {
			t.Errorf("AskFailure(%+v, %v) = %q, want %q", tt.res, tt.err, got, tt.want)
		}
	}
}
