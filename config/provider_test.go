package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestProviderIdleTimeout(t *testing.T) {
	cases := []struct {
		yaml    string
		ref     string
		want    time.Duration
		wantURL string
		wantErr string
	}{
		{"model: llmman/m\n", "llmman/m", DefaultIdleTimeout, "http://127.0.0.1:17434/v1", ""},
		{"model: ollama/m\nproviders:\n  ollama: {idleTimeout: 10m}\n", "ollama/m", 10 * time.Minute, "http://127.0.0.1:11434/v1", ""},
		{"model: lab/m\nproviders:\n  lab: {baseURL: http://h:1/v1, idleTimeout: 90s}\n", "lab/m", 90 * time.Second, "http://h:1/v1", ""},
		{"model: llmman/m\nproviders:\n  llmman: {idleTimeout: 0}\n", "llmman/m", 0, "http://127.0.0.1:17434/v1", ""},
		{"model: llmman/m\nproviders:\n  llmman: {idleTimeout: soon}\n", "", 0, "", `providers.llmman.idleTimeout: line 3: "soon" is not a duration`},
		{"model: llmman/m\nproviders:\n  llmman: {idleTimeout: -1s}\n", "", 0, "", `"-1s" must not be negative`},
		{"model: lab/m\nproviders:\n  lab: {idleTimeout: 1m}\n", "", 0, "", "providers.lab: baseURL is required"},
	}
	t.Setenv("LLMMAN_HOST", "")
	t.Setenv("OLLAMA_HOST", "")
	for _, tc := range cases {
		path := filepath.Join(t.TempDir(), "agent.yaml")
		os.WriteFile(path, []byte(tc.yaml), 0o644)
		c, err := Load(path)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want %q", tc.yaml, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		e, err := c.Resolve(tc.ref)
		if err != nil || e.IdleTimeout != tc.want || e.BaseURL != tc.wantURL {
			t.Errorf("%q: endpoint %+v, %v; want idle %v at %s", tc.yaml, e, err, tc.want, tc.wantURL)
		}
	}
}

func TestAPIKeyMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.yaml")
	os.WriteFile(path, []byte("model: lab/m\nproviders:\n  lab: {baseURL: http://h:1/v1, apiKeyEnv: MM_TEST_KEY}\n"), 0o644)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MM_TEST_KEY", "")
	if e, _ := c.Resolve("lab/m"); !e.APIKeyMissing || e.APIKeyEnv != "MM_TEST_KEY" {
		t.Errorf("empty key: %+v", e)
	}
	t.Setenv("MM_TEST_KEY", "k")
	if e, _ := c.Resolve("lab/m"); e.APIKeyMissing || e.APIKey != "k" {
		t.Errorf("set key: %+v", e)
	}
}
