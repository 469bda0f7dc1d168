package config

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mm-agent/mm/hooks"
)

// FuzzLoad writes arbitrary bytes as an agent's YAML file and loads it. Load
// must never panic or hang; whatever it accepts must be a config the rest of
// mm can run without checking it again: a model with a provider, hooks with
// a command and a timeout, absolute paths. The seeds in
// testdata/fuzz/FuzzLoad cover every top-level key and every hook key, with
// the mistakes users make (bad regexps, durations, unknown keys, wrong types).
func FuzzLoad(f *testing.F) {
	f.Add([]byte("model: llmman/test\n"))
	f.Add([]byte("hooks:\n  preToolCall:\n    - matcher: ^bash$\n      command: ./guard.sh\n      timeout: 5s\n      onError: fail\n"))
	f.Add([]byte("yolo: false\nhooks:\n  preToolCall:\n    - command: a\n      command: b\n---\nyolo: true\n"))
	f.Add([]byte("hooks:\n\tpreToolCall:\n    - command: a\n   onError: fail\nmaxSteps: 1.5\n"))
	f.Add([]byte("mmConfigs:\n  rev: {url: \"http://gpu-box:7420\", tokenEnv: REV_TOKEN, idleTimeout: 5m}\nname: main\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		// An agent the seeds' mmConfigs can name.
		if err := os.WriteFile(filepath.Join(dir, "agent.expert.yaml"), []byte("model: llmman/expert\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "agent.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}

		type result struct {
			c   *Config
			err error
		}
		done := make(chan result, 1)
		go func() {
			c, err := Load(path)
			done <- result{c, err}
		}()
		var r result
		select {
		case r = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Load did not return within 10s for %q", data)
		}

		if r.err != nil {
			var ce *Error
			if !errors.As(r.err, &ce) {
				t.Fatalf("Load(%q): error %T %q is not a *config.Error", data, r.err, r.err)
			}
			msg := r.err.Error()
			if !strings.HasPrefix(msg, "[config error: "+path+": ") || !strings.HasSuffix(msg, "]") {
				t.Fatalf("Load(%q): error %q is not [config error: <path>: …]", data, msg)
			}
			return
		}
		checkSane(t, data, dir, r.c)
	})
}

// checkSane fails when an accepted config holds something mm would trip on.
func checkSane(t *testing.T, data []byte, dir string, c *Config) {
	t.Helper()
	if c == nil {
		t.Fatalf("Load(%q): nil config and no error", data)
	}
	if c.Dir != dir || !filepath.IsAbs(c.File) {
		t.Fatalf("Load(%q): Dir %q File %q", data, c.Dir, c.File)
	}
	ep, err := c.Resolve(c.Model)
	if err != nil {
		t.Fatalf("Load(%q): accepted model %q that does not resolve: %v", data, c.Model, err)
	}
	if ep.Provider == "" || ep.Model == "" {
		t.Fatalf("Load(%q): model %q resolves to provider %q model %q", data, c.Model, ep.Provider, ep.Model)
	}
	if u, err := url.Parse(ep.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		t.Fatalf("Load(%q): model %q resolves to base URL %q", data, c.Model, ep.BaseURL)
	}
	if c.MaxSteps < 1 || c.MaxAskDepth < 1 || c.MaxParallelAsks < 1 {
		t.Fatalf("Load(%q): maxSteps %d maxAskDepth %d maxParallelAsks %d", data, c.MaxSteps, c.MaxAskDepth, c.MaxParallelAsks)
	}
	for name, p := range c.Providers {
		if u, err := url.Parse(p.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Fatalf("Load(%q): provider %q has base URL %q", data, name, p.BaseURL)
		}
	}
	for name, p := range c.MMConfigs {
		if r, remote := c.RemoteAgents[name]; remote {
			if u, err := url.Parse(p); err != nil || p != r.URL || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				t.Fatalf("Load(%q): remote agent %q: %q", data, name, p)
			}
			continue
		}
		if name == "" || !filepath.IsAbs(p) {
			t.Fatalf("Load(%q): mmConfigs %q: %q", data, name, p)
		}
	}
	if c.HooksLog != "" && !filepath.IsAbs(c.HooksLog) {
		t.Fatalf("Load(%q): hooksLog %q is not absolute", data, c.HooksLog)
	}
	for event, list := range c.Hooks {
		if !hooks.Known(string(event)) {
			t.Fatalf("Load(%q): unknown event %q accepted", data, event)
		}
		for i, h := range list {
			switch {
			case strings.TrimSpace(h.Command) == "":
				t.Fatalf("Load(%q): hooks.%s[%d]: empty command accepted", data, event, i)
			case h.Timeout <= 0:
				t.Fatalf("Load(%q): hooks.%s[%d]: timeout %v", data, event, i, h.Timeout)
			case h.OnError != hooks.Fail && h.OnError != hooks.Warn && h.OnError != hooks.Ignore:
				t.Fatalf("Load(%q): hooks.%s[%d]: onError %q", data, event, i, h.OnError)
			case h.Matcher != nil && !event.TakesMatcher():
				t.Fatalf("Load(%q): hooks.%s[%d]: matcher on %s", data, event, i, event)
			case h.ConfigDir != dir:
				t.Fatalf("Load(%q): hooks.%s[%d]: ConfigDir %q, want %q", data, event, i, h.ConfigDir, dir)
			}
		}
	}
}
