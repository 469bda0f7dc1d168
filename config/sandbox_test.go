package config

import (
	"testing"

	"github.com/mm-agent/mm/internal/sandbox"
)

func TestSandbox(t *testing.T) {
	for _, tc := range []struct {
		data string
		want sandbox.Policy
	}{
		{"model: llmman/a\n", sandbox.Policy{Mode: sandbox.Off}},
		{"sandbox: off\n", sandbox.Policy{Mode: sandbox.Off}},
		{"sandbox:\n", sandbox.Policy{Mode: sandbox.Off}},
		{"sandbox: workspace\n", sandbox.Policy{Mode: sandbox.Workspace}},
		{"sandbox: readonly\nsandboxNetwork: true\n", sandbox.Policy{Mode: sandbox.ReadOnly, Network: true}},
		{"sandbox: 'workspace'\nsandboxNetwork: false\n", sandbox.Policy{Mode: sandbox.Workspace}},
	} {
		c, err := load(t, tc.data)
		if err != nil {
			t.Errorf("%q: %v", tc.data, err)
			continue
		}
		if c.Sandbox != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.data, c.Sandbox, tc.want)
		}
	}
	if c := Default("."); c.Sandbox.Mode != sandbox.Off {
		t.Errorf("default: %+v", c.Sandbox)
	}

	for _, tc := range []struct{ data, want string }{
		{"sandbox: everywhere\n", `sandbox: line 1: want off, workspace or readonly, not "everywhere"`},
		{"model: llmman/a\nsandbox: Readonly\n", `sandbox: line 2: want off, workspace or readonly, not "Readonly"; did you mean "readonly"?`},
		{"sandbox: false\n", `sandbox: line 1: want off, workspace or readonly, not "false"`},
		{"sandbox: [workspace]\n", `sandbox: line 1: want a string`},
		{"sandboxNetwork: maybe\n", `sandboxNetwork: line 1: want true or false`},
		{"sandboxNetwrok: true\n", `unknown field "sandboxNetwrok"; did you mean "sandboxNetwork"?`},
	} {
		_, err := load(t, tc.data)
		if err == nil {
			t.Errorf("%q: accepted", tc.data)
			continue
		}
		if got := message(t, err); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.data, got, tc.want)
		}
	}
}
