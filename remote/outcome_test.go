package remote

import (
	"strings"
	"testing"

	"github.com/mm-agent/mm/relay"
)

// Every relay status crosses A2A as an outcome and comes back itself, and
// every outcome name comes from one status.
func TestOutcomesMapBothWays(t *testing.T) {
	for s := relay.Status(0); !strings.HasPrefix(s.String(), "status("); s++ {
		_, o := toOutcome(relay.AskResponse{Status: s})
		if got := fromOutcome(o); got != s {
			t.Errorf("relay status %v crosses as %v (%q)", s, got, o.Status)
		}
		if o.Status != s.String() {
			t.Errorf("relay status %v is named %q on the wire", s, o.Status)
		}
	}
	for _, p := range outcomes {
		_, o := toOutcome(relay.AskResponse{Status: fromOutcome(outcome{Status: p.name})})
		if o.Status != p.name {
			t.Errorf("outcome %q comes back as %q", p.name, o.Status)
		}
	}
	if got := fromOutcome(outcome{Status: "somethingNew"}); got != relay.Failed {
		t.Errorf("an unknown outcome is %v, want failed", got)
	}
}
