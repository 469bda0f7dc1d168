package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// readmeCommand returns the shell command of the fenced block that follows
// marker (<!-- demo -->, <!-- test -->) in README.md.
func readmeCommand(t *testing.T, marker string) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)" + regexp.QuoteMeta(marker) + "\\s*```sh\\n(.*?)\\n```")
	m := re.FindStringSubmatch(string(data))
	if m == nil {
		t.Fatalf("README.md has no ```sh block after %s", marker)
	}
	return strings.TrimSpace(m[1])
}

// TestReadmeDemo runs the README's offline demo command as a newcomer
// would, from the repository root, and checks what it promises.
func TestReadmeDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mm and mockmodel with go run")
	}
	command := readmeCommand(t, "<!-- demo -->")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
	for _, want := range []string{"🤖 Let me look.", "🔧 bash: ls demos/quickstart", "agent.yaml", "⚙ 1 command(s)"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the demo's output lacks %q:\n%s", want, out)
		}
	}
}

// TestReadmeTestCommand keeps the README's test command and CI's the same.
func TestReadmeTestCommand(t *testing.T) {
	command := readmeCommand(t, "<!-- test -->")
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "\n"+command+"\n") {
		t.Errorf(".ci/run does not run the README's test command %q", command)
	}
}
