package hooks

import "testing"

// TestDeniedLine: the line of a denied call, as the reference's display
// table words it.
func TestDeniedLine(t *testing.T) {
	if got, want := DeniedLine("bash", DeniedOutput("no")), "🪝 bash [denied by a hook: no]"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
