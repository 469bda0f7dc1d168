package relay

import (
	"context"
	"testing"
)

type fixedAsker struct {
	name  string
	model string // "" : not a ModelReader answer
}

func (f fixedAsker) Ask(context.Context, AskRequest) AskResponse {
	return AskResponse{Status: Answered, Answer: f.name}
}

type modelAsker struct{ fixedAsker }

func (m modelAsker) AgentModel(context.Context, string, string) (string, bool) {
	return m.model, m.model != ""
}

// The Router sends each ask to its agent's Asker and asks it for the
// agent's model when it can tell; the Relay never knows which it talks to.
func TestRouter(t *testing.T) {
	r := &Router{
		ByAgent: map[string]Asker{"remote": modelAsker{fixedAsker{name: "remote", model: "llmman/big"}}},
		Default: fixedAsker{name: "local"},
	}
	for agent, want := range map[string]string{"remote": "remote", "expert": "local"} {
		if got := r.Ask(context.Background(), AskRequest{Agent: agent}).Answer; got != want {
			t.Errorf("%s went to %s, want %s", agent, got, want)
		}
	}
	if m, ok := r.AgentModel(context.Background(), "remote", "http://x"); !ok || m != "llmman/big" {
		t.Errorf("remote model = %q %v", m, ok)
	}
	if _, ok := r.AgentModel(context.Background(), "expert", "/no/such/agent.yaml"); ok {
		t.Error("a local agent's model comes from its config file, which is missing")
	}
	if resp := (&Router{}).Ask(context.Background(), AskRequest{Agent: "x"}); resp.Status != Failed {
		t.Errorf("no asker: %+v", resp)
	}
}
