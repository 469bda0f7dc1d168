package agentproc

import (
	"strings"
	"testing"

	"github.com/mm-agent/mm/agentproc/agentpb"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// Every status of the domain crosses the child protocol and comes back
// itself, and every value of the wire's enums comes from one: a status
// added on one side and not the other fails here.
func TestStatusesMapBothWays(t *testing.T) {
	for s := relay.Status(0); !strings.HasPrefix(s.String(), "status("); s++ {
		if got := fromOutcome(toOutcome(relay.AskResponse{Status: s})).Status; got != s {
			t.Errorf("relay status %v crosses as %v", s, got)
		}
	}
	for v := range agentpb.Outcome_Status_name {
		w := agentpb.Outcome_Status(v)
		if got := toOutcome(fromOutcome(&agentpb.Outcome{Status: w})).Status; got != w {
			t.Errorf("wire outcome %v comes back as %v", w, got)
		}
	}
	// orchestrator.Status names an unknown status "failed".
	for s := orchestrator.Status(0); s == orchestrator.Failed || s.String() != "failed"; s++ {
		if got := fromToolStatus(toToolStatus(s)); got != s {
			t.Errorf("tool status %v crosses as %v", s, got)
		}
	}
	for v := range agentpb.ToolStatus_name {
		w := agentpb.ToolStatus(v)
		if got := toToolStatus(fromToolStatus(w)); got != w {
			t.Errorf("wire tool status %v comes back as %v", w, got)
		}
	}
}
