package agent

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/mm-agent/mm/config"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestProtectedPaths(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	j := func(p string) string { return filepath.Join(dir, p) }
	write(t, j("agent.yaml"), `model: llmman/test
sandbox: workspace
structuredOutput: {file: schema.json}
mmConfigs:
  expert: agents/expert.yaml
  broken: agents/broken.yaml
  remote: {url: "http://127.0.0.1:1"}
hooks:
  preToolCall:
    - command: node "$MM_CONFIG_DIR/hooks/guard.js"
    - command: sh tools/check.sh
mcpServers:
  files:
    command: node
    args: [servers/files.js, --root, .]
`)
	write(t, j("schema.json"), `{"type":"object"}`)
	write(t, j("hooks/guard.js"), "")
	write(t, j("tools/check.sh"), "")
	write(t, j("servers/files.js"), "")
	write(t, j("AGENTS.md"), "be brief")
	write(t, j("agents/expert.yaml"), `model: llmman/test
mmConfigs:
  back: ../agent.yaml
hooks:
  postGeneration:
    - command: python3 "${MM_CONFIG_DIR}/audit.py"
`)
	write(t, j("agents/audit.py"), "")
	write(t, j("agents/broken.yaml"), "model: [")
	cfg, err := config.Load(j("agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := protectedPaths(cfg, dir)
	sort.Strings(got)
	want := []string{j("agent.yaml"), j("agents/audit.py"), j("agents/broken.yaml"), j("agents/expert.yaml"),
		j("hooks"), j("hooks/guard.js"), j("schema.json"), j("servers/files.js"), j("tools/check.sh")}
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("protected\n%q\nwant\n%q", got, want)
	}

	// The built-in defaults: no file, nothing of the working directory.
	write(t, j("other/hooks/x.sh"), "")
	if got, _ := protectedPaths(config.Default(j("other")), j("other")); len(got) != 0 {
		t.Errorf("defaults protect %q", got)
	}
}

// A hook `mm hooks import` wrote: the script it names through
// $CLAUDE_PROJECT_DIR inside sh -c, and Claude Code's settings and hooks
// directory in the session directory (not Gemini's: the hook adapts for
// claude-code).
func TestProtectedPathsAdapted(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	j := func(p string) string { return filepath.Join(dir, p) }
	write(t, j("agent.yaml"), `model: llmman/test
hooks:
  preToolCall:
    - command: "\"$MM_BIN\" hooks adapt claude-code -- sh -c 'python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.py'"
`)
	write(t, j(".claude/hooks/guard.py"), "")
	write(t, j(".claude/settings.json"), "{}")
	write(t, j(".gemini/settings.json"), "{}")
	cfg, err := config.Load(j("agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := protectedPaths(cfg, dir)
	sort.Strings(got)
	want := []string{j(".claude/hooks"), j(".claude/hooks/guard.py"), j(".claude/settings.json"), j("agent.yaml")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("protected\n%q\nwant\n%q", got, want)
	}
}
