package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestRemoteAgents(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "agent.expert.yaml"), []byte("model: llmman/e\n"), 0o644)
	path := filepath.Join(dir, "agent.yaml")
	os.WriteFile(path, []byte(`model: llmman/x
name: main-agent
mmConfigs:
  expert: ./agent.expert.yaml
  rev: {url: "http://gpu-box:7420", tokenEnv: REV_TOKEN, idleTimeout: 90s}
  plain:
    url: https://agents.example.com/reviewer
`), 0o644)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "main-agent" {
		t.Errorf("Name = %q", c.Name)
	}
	want := map[string]RemoteAgent{
		"rev":   {URL: "http://gpu-box:7420", TokenEnv: "REV_TOKEN", IdleTimeout: 90 * time.Second},
		"plain": {URL: "https://agents.example.com/reviewer"},
	}
	if len(c.RemoteAgents) != len(want) {
		t.Fatalf("RemoteAgents = %+v", c.RemoteAgents)
	}
	for n, w := range want {
		if c.RemoteAgents[n] != w {
			t.Errorf("%s = %+v, want %+v", n, c.RemoteAgents[n], w)
		}
		if c.MMConfigs[n] != w.URL {
			t.Errorf("MMConfigs[%s] = %q, want the URL as written", n, c.MMConfigs[n])
		}
	}
	if c.MMConfigs["expert"] != filepath.Join(dir, "agent.expert.yaml") {
		t.Errorf("expert = %q", c.MMConfigs["expert"])
	}
	if got := c.AgentNames(); len(got) != 3 {
		t.Errorf("AgentNames = %v", got)
	}
}
