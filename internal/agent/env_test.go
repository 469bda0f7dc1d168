package agent

import (
	"slices"
	"strings"
	"testing"
)

func TestReadEnv(t *testing.T) {
	tests := []struct {
		environ []string
		depth   int
		err     string
	}{
		{[]string{"HOME=/h"}, 0, ""},
		{[]string{"MM_ASK_DEPTH=2"}, 2, ""},
		{[]string{"MM_ASK_DEPTH="}, 0, ""},
		{[]string{"MM_ASK_DEPTH=abc"}, 0, `MM_ASK_DEPTH="abc" is not a relay depth`},
		{[]string{"MM_ASK_DEPTH=-1"}, 0, `MM_ASK_DEPTH="-1" is not a relay depth`},
		{[]string{"MM_ASK_DEPTH=1.5"}, 0, `MM_ASK_DEPTH="1.5" is not a relay depth`},
	}
	for _, tt := range tests {
		e, err := ReadEnv(tt.environ, "/bin/mm")
		switch {
		case tt.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.err)):
			t.Errorf("%v: err %v, want %q", tt.environ, err, tt.err)
		case tt.err == "" && (err != nil || e.Depth != tt.depth):
			t.Errorf("%v: %+v, %v", tt.environ, e, err)
		}
	}
}

// What a process started by the agent inherits: mm's environment without
// what mm sets itself (nor the child protocol's variables), then mm's own.
func TestEnvFor(t *testing.T) {
	e, err := ReadEnv([]string{"HOME=/h", "MM_BIN=/old", "MM_CONFIG=/parent.yaml", "MM_ASK_DEPTH=1", "MM_AGENT_LIFELINE_FD=3", "MM_AGENT_PLUGIN=cookie", "MM_LOG=/tmp/d.log"}, "/bin/mm")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.For("/a/agent.yaml", 2), []string{"HOME=/h", "MM_LOG=/tmp/d.log", "MM_BIN=/bin/mm", "MM_CONFIG=/a/agent.yaml", "MM_ASK_DEPTH=2"}; !slices.Equal(got, want) {
		t.Errorf("For = %q, want %q", got, want)
	}
	if got, want := e.For("", 0), []string{"HOME=/h", "MM_LOG=/tmp/d.log", "MM_BIN=/bin/mm", "MM_ASK_DEPTH=0"}; !slices.Equal(got, want) {
		t.Errorf("without a config file: %q, want %q", got, want)
	}
}

func TestTokenAndSecretsLeftOut(t *testing.T) {
	e, err := ReadEnv([]string{"PATH=/bin", "MM_A2A_TOKEN=t0ken", "LAB_KEY=k3y"}, "/bin/mm")
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range e.For("", 0) {
		if strings.HasPrefix(kv, TokenVar+"=") {
			t.Errorf("For carries %s", kv)
		}
	}
	got := Without(e.For("", 0), "LAB_KEY")
	if slices.Contains(got, "LAB_KEY=k3y") || !slices.Contains(got, "PATH=/bin") {
		t.Errorf("Without(LAB_KEY) = %q", got)
	}
}
