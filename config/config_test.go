package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// load writes data as agent.yaml in a new directory and loads it.
func load(t *testing.T, data string) (*Config, error) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.yaml")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(path)
}

// message is the error's message without "[config error: <path>: " and "]".
func message(t *testing.T, err error) string {
	t.Helper()
	ce, ok := err.(*Error)
	if !ok {
		t.Fatalf("error %T %v, want *Error", err, err)
	}
	return ce.Msg
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		// Keys written twice, at every depth.
		{"top-level hooks twice", "hooks:\n  preToolCall:\n    - command: a\n      onError: fail\nhooks:\n  postGeneration:\n    - command: b\n",
			`line 5: key "hooks" written twice (first on line 1): merge them into one`},
		{"yolo twice", "yolo: false\nyolo: true\n", `line 2: key "yolo" written twice (first on line 1): keep one`},
		{"same value twice", "model: llmman/a\nmodel: llmman/a\n", `line 2: key "model" written twice (first on line 1): keep one`},
		{"quoted and plain", "yolo: false\n'yolo': true\n", `line 2: key "yolo" written twice`},
		{"matcher twice", "hooks:\n  preToolCall:\n    - matcher: a\n      command: x\n      matcher: b\n",
			`hooks.preToolCall[0]: line 5: key "matcher" written twice (first on line 3): keep one`},
		{"in the second hook", "hooks:\n  preToolCall:\n    - command: a\n    - command: b\n      command: c\n",
			`hooks.preToolCall[1]: line 5: key "command" written twice (first on line 4)`},
		{"event twice", "hooks:\n  preToolCall: []\n  preToolCall:\n    - command: a\n", `hooks: line 3: key "preToolCall" written twice (first on line 2): merge them into one`},
		{"provider twice", "providers:\n  lab: {baseURL: http://a/v1}\n  lab: {baseURL: http://b/v1}\n", `providers: line 3: key "lab" written twice`},
		{"provider key twice", "providers:\n  lab: {baseURL: http://a/v1, baseURL: http://b/v1}\n", `providers.lab: line 2: key "baseURL" written twice`},
		{"mcp env twice", "mcpServers:\n  s:\n    command: x\n    env: {A: 1, A: 2}\n", `mcpServers.s.env: line 4: key "A" written twice`},
		{"schema key twice", "structuredOutput:\n  type: object\n  type: string\n", `structuredOutput: line 3: key "type" written twice`},
		{"deep in a schema", "structuredOutput:\n  type: object\n  properties:\n    a: {type: string, type: integer}\n", `structuredOutput.properties.a: line 4: key "type" written twice`},
		{"skills twice", "skills:\n  a: ./a.md\n  a: ./b.md\n", `skills: line 3: key "a" written twice`},
		{"in a sequence of mappings", "tools: [bash]\nhooks:\n  postToolCall:\n    - {command: a, timeout: 1s, timeout: 2s}\n", `hooks.postToolCall[0]: line 4: key "timeout" written twice`},

		// More than one document.
		{"second document", "model: llmman/a\n---\nyolo: true\n", `line 2: a second YAML document (after "---"): a config is one document; merge the two or remove one`},
		{"third document after an empty one", "model: llmman/a\n---\n---\nyolo: true\n", `line 3: a second YAML document`},
		{"broken second document", "model: llmman/a\n---\nyolo: [\n", `line 3: did not find expected node content`},

		// Fractions where whole numbers are wanted.
		{"maxSteps fraction", "maxSteps: 1.5\n", "maxSteps: line 1: want a whole number"},
		{"maxAskDepth fraction", "maxAskDepth: 2.5\n", "maxAskDepth: line 1: want a whole number"},
		{"maxParallelAsks fraction", "maxParallelAsks: 2.5\n", "maxParallelAsks: line 1: want a whole number"},
		{"maxParallelAsks zero", "model: llmman/a\nmaxParallelAsks: 0\n", "maxParallelAsks: line 2: must be >= 1"},
		{"maxParallelAsks negative", "maxParallelAsks: -3\n", "maxParallelAsks: line 1: must be >= 1"},
		{"maxParallelAsks a word", "maxParallelAsks: many\n", "maxParallelAsks: line 1: want a whole number"},
		{"maxParallelAsks typo", "maxParalelAsks: 4\n", `unknown field "maxParalelAsks"; did you mean "maxParallelAsks"?`},
		{"contextBudget fraction", "contextBudget: 10.5\n", "contextBudget: line 1: want a whole number"},
		{"maxSteps exponent", "maxSteps: 1e2\n", "maxSteps: line 1: want a whole number"},
		{"maxSteps integral float", "maxSteps: 2.0\n", "maxSteps: line 1: want a whole number"},
		{"maxSteps too large", "maxSteps: 99999999999999999999\n", "maxSteps: line 1: want a whole number"},
		{"maxSteps quoted", "maxSteps: '3'\n", "maxSteps: line 1: want a whole number"},

		// Suggestions.
		{"top-level typo", "displayhooks: true\n", `unknown field "displayhooks"; did you mean "displayHooks"?`},
		{"swapped letters", "modle: llmman/a\n", `unknown field "modle"; did you mean "model"?`},
		{"missing letter", "tool: [bash]\n", `unknown field "tool"; did you mean "tools"?`},
		{"two edits", "mxSteps: 3\n", `unknown field "mxSteps"; did you mean "maxSteps"?`},
		{"agentsFile typo", "agentFile: false\n", `unknown field "agentFile"; did you mean "agentsFile"?`},
		{"agentsFile case", "agentsfile: false\n", `unknown field "agentsfile"; did you mean "agentsFile"?`},
		{"agentsFile twice", "agentsFile: false\nagentsFile: true\n", `line 2: key "agentsFile" written twice (first on line 1): keep one`},
		{"agentsFile not a bool", "agentsFile: AGENTS.md\n", "agentsFile: line 1: want true or false"},
		{"nothing close", "colour: red\n", `unknown field "colour"`},
		{"short and far", "ab: 1\n", `unknown field "ab"`},
		{"hook key", "hooks:\n  preToolCall:\n    - comand: x\n", `hooks.preToolCall[0]: unknown field "comand"; did you mean "command"?`},
		{"hook key case", "hooks:\n  preToolCall:\n    - command: x\n      onerror: fail\n", `hooks.preToolCall[0]: unknown field "onerror"; did you mean "onError"?`},
		{"provider key", "providers:\n  lab: {baseurl: http://a/v1}\n", `providers.lab: unknown field "baseurl"; did you mean "baseURL"?`},
		{"provider key typo", "providers:\n  lab: {baseURL: http://a/v1, apiKeyEnvv: K}\n", `providers.lab: unknown field "apiKeyEnvv"; did you mean "apiKeyEnv"?`},
		{"mcp key", "mcpServers:\n  s: {command: x, arg: [a]}\n", `mcpServers.s: unknown field "arg"; did you mean "args"?`},
		{"event case", "hooks:\n  pretoolcall: []\n", `hooks: unknown event "pretoolcall" (want one of preGeneration, preToolCall, postToolCall, postGeneration, preAsk, postAsk); did you mean "preToolCall"?`},
		{"event typo", "hooks:\n  postGen:\n    - command: x\n", `hooks: unknown event "postGen" (want one of preGeneration, preToolCall, postToolCall, postGeneration, preAsk, postAsk)`},
		{"event close", "hooks:\n  preAks: []\n", `; did you mean "preAsk"?`},

		// Syntax errors at the line of the mistake.
		{"indentation on line 8", "model: llmman/a\nyolo: true\nhooks:\n  preToolCall:\n    - matcher: ^bash$\n      command: ./guard.sh\n      onError: fail\n   displayHooks: true\n",
			"line 8: indented by 3 spaces, which lines up with no key above it (those are indented by 0, 2, 4 or 6 spaces)"},
		{"indentation after comments", "hooks:\n  preToolCall:\n    - command: a\n\n    # a comment\n     timeout: 5s\n",
			"line 6: indented by 5 spaces, which lines up with no key above it (those are indented by 0, 2, 4 or 6 spaces)"},
		{"under a scalar", "model: llmman/a\n  system: x\n", "line 2: indented by 2 spaces, which lines up with no key above it (those are indented by 0 spaces)"},
		{"a key where a list item belongs", "a:\n  - x\n  y: 2\n", "line 3: did not find expected '-' indicator"},
		{"a colon in a plain value", "hooks:\n  postToolCall:\n    - command: jq -c '{a: .b}'\n", `line 3: the value of command holds ": ", which YAML reads as the start of another key: put the value in quotes: - command: "jq -c '{a: .b}'"`},
		{"a colon in a plain scalar", "model: llmman/a\nsystem: Note: be brief\n", `line 2: the value of system holds ": ", which YAML reads as the start of another key: put the value in quotes: system: 'Note: be brief'`},
		{"tab", "model: llmman/a\nhooks:\n\tpreToolCall: []\n", "line 3: a tab indents this line; YAML indents with spaces"},
		{"tab on line 1", "\tmodel: llmman/a\n", "line 1: a tab indents this line; YAML indents with spaces"},
		{"tab after spaces", "hooks:\n  preToolCall:\n    - command: a\n    \ttimeout: 5s\n", "line 4: a tab indents this line; YAML indents with spaces"},
		{"tab in a block scalar", "system: |\n\tBe brief.\n", "line 2: a tab indents this line; YAML indents with spaces"},
		{"unclosed flow", "model: llmman/a\ntools: [bash,\n  read_file\nyolo: true\n", "line 2: did not find expected ',' or ']'"},
		{"unclosed quote", "model: llmman/a\nsystem: \"be brief\nyolo: true\n", "line 2: found unexpected end of stream"},
		{"mapping on line 1", "a: b: c\n", `line 1: the value of a holds ": ", which YAML reads as the start of another key: put the value in quotes: a: 'b: c'`},
		{"unknown alias", "model: *nothing\n", "line 1: unknown anchor 'nothing' referenced"},
		// An agent /ask-<name> could not reach (it reads as
		// /ask-with-context-<x>), local or remote.
		{"with-context- name", "model: llmman/a\nmmConfigs:\n  expert: {url: \"http://a:1\"}\n  with-context-x: ./x.yaml\n",
			`mmConfigs.with-context-x: line 4: an agent name must not start with "with-context-": /ask-with-context-x would ask "x" with the conversation; rename it`},
		{"with-context- remote", "model: llmman/a\nmmConfigs:\n  with-context-rev:\n    url: http://gpu-box:7420\n",
			`mmConfigs.with-context-rev: line 3: an agent name must not start with "with-context-"`},
		{"CRLF line ends", "model: llmman/a\r\nhooks:\r\n  preToolCall:\r\n    - command: a\r\n   timeout: 5s\r\n", "line 5: indented by 3 spaces"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.data)
			if err == nil {
				t.Fatalf("loaded, want %q", tt.want)
			}
			if got := message(t, err); !strings.HasPrefix(got, tt.want) && !strings.Contains(got, tt.want) {
				t.Fatalf("error %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLoadAccepts(t *testing.T) {
	tests := []struct {
		name, data string
		check      func(*Config) bool
	}{
		{"an empty document after ---", "model: llmman/a\n---\n", func(c *Config) bool { return c.Model == "llmman/a" }},
		{"a document end", "model: llmman/a\n...\n", func(c *Config) bool { return c.Model == "llmman/a" }},
		{"a leading ---", "---\nmodel: llmman/a\n", func(c *Config) bool { return c.Model == "llmman/a" }},
		{"comments only", "# nothing\n", func(c *Config) bool { return c.Model == DefaultModel }},
		{"hex whole number", "maxSteps: 0x10\n", func(c *Config) bool { return c.MaxSteps == 16 }},
		{"the same name in two mappings", "providers:\n  a: {baseURL: http://a/v1}\n  b: {baseURL: http://b/v1}\n", func(c *Config) bool { return len(c.Providers) == 2 }},
		{"an anchor used twice", "system: &s be brief\nproviders:\n  lab: {baseURL: http://a/v1, apiKeyEnv: *s}\n", func(c *Config) bool { return c.Providers["lab"].APIKeyEnv == "be brief" }},
		{"a tab inside a value", "system: \"a\tb\"\n", func(c *Config) bool { return c.System == "a\tb" }},
		{"a tab in a block scalar's text", "system: |\n  a\tb\n", func(c *Config) bool { return c.System == "a\tb\n" }},
		{"maxParallelAsks 8 by default", "model: llmman/a\n", func(c *Config) bool { return c.MaxParallelAsks == 8 }},
		{"maxParallelAsks", "maxParallelAsks: 16\n", func(c *Config) bool { return c.MaxParallelAsks == 16 }},
		{"maxParallelAsks null keeps the default", "maxParallelAsks: ~\n", func(c *Config) bool { return c.MaxParallelAsks == 8 }},
		{"agentsFile on by default", "model: llmman/a\n", func(c *Config) bool { return c.AgentsFile }},
		{"agentsFile off", "agentsFile: false\n", func(c *Config) bool { return !c.AgentsFile }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(t, tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(c) {
				t.Fatalf("config %+v", c)
			}
		})
	}
}

func TestLoadRefusesFilesThatAreNotFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "agent.yaml")
	if err := mkfifo(fifo); err != nil {
		t.Skip("no named pipes here:", err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("model: llmman/a\n#"+strings.Repeat("x", MaxFileSize)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	max := filepath.Join(dir, "max.yaml")
	if err := os.WriteFile(max, []byte("model: llmman/a\n#"+strings.Repeat("x", MaxFileSize-18)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ref := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct{ path, want string }{
		{fifo, "not a regular file (a named pipe)"},
		{"/dev/zero", "not a regular file (a device)"},
		{dir, "is a directory"},
		{big, "larger than 1 MiB (1048594 bytes)"},
		{ref("agent-zero.yaml", "mmConfigs: {expert: /dev/zero}\n"), "mmConfigs.expert: /dev/zero: not a regular file (a device)"},
		{ref("agent-fifo.yaml", "mmConfigs: {expert: ./agent.yaml}\n"), "mmConfigs.expert: " + fifo + ": not a regular file (a named pipe)"},
		{ref("agent-big.yaml", "mmConfigs: {expert: ./big.yaml}\n"), "mmConfigs.expert: " + big + ": larger than 1 MiB"},
		{ref("schema-fifo.yaml", "structuredOutput: {file: agent.yaml}\n"), "structuredOutput.file: " + fifo + ": not a regular file (a named pipe)"},
		{ref("schema-zero.yaml", "structuredOutput: {file: /dev/zero}\n"), "structuredOutput.file: /dev/zero: not a regular file (a device)"},
	}
	for _, tt := range tests {
		done := make(chan error, 1)
		go func() { _, err := Load(tt.path); done <- err }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: loaded", tt.path)
			} else if got := message(t, err); got != tt.want && !strings.HasPrefix(got, tt.want) {
				t.Errorf("%s: %q, want %q", tt.path, got, tt.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: Load did not return", tt.path)
		}
	}
	if c, err := Load(max); err != nil || c.Model != "llmman/a" {
		t.Errorf("a file of 1 MiB exactly: %v", err)
	}
	if _, ok := ModelOf("/dev/zero"); ok {
		t.Errorf("ModelOf(/dev/zero) ok")
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"model", "modle", 1}, {"matcher", "matchr", 1},
		{"tools", "tool", 1}, {"abc", "xyz", 3}, {"maxsteps", "mxsteps", 1}, {"héllo", "hello", 1},
	} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// The line search parses prefixes of the file: on a long config with the
// mistake in the middle it still finds the line (its cost, bounded by
// maxSearchLines, is measured in docs/reliability.md, not timed here).
func TestSyntaxErrorSearchLongFile(t *testing.T) {
	var b strings.Builder
	b.WriteString("mcpServers:\n")
	for i := 0; i < 150; i++ {
		b.WriteString("  s" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + ":\n    command: x\n")
	}
	b.WriteString("   bad: indentation\n")
	for strings.Count(b.String(), "\n") < maxSearchLines {
		b.WriteString("# filler\n")
	}
	_, err := load(t, b.String())
	if err == nil || !strings.Contains(err.Error(), "line 302: indented by 3 spaces") {
		t.Fatalf("error %v", err)
	}
}

func TestJSONDuplicates(t *testing.T) {
	for _, tt := range []struct{ data, want string }{
		{`{"type": "object", "required": ["a", "a"]}`, ""},
		{`{"a": {"b": 1}, "c": {"b": 2}}`, ""},
		{"{\n  \"type\": \"object\",\n  \"type\": \"string\"\n}", `line 3: key "type" written twice (first on line 2): keep one`},
		{"{\"properties\": {\n\t\"count\": {\"type\": \"integer\"},\n\t\"count\": {}}}", `properties: line 3: key "count" written twice (first on line 2)`},
		{`{"anyOf": [{"type": "string"}, {"type": "integer", "type": "number"}]}`, `anyOf[1]: line 1: key "type" written twice`},
		{`{"a": [[{"x": 1, "x": 2}]]}`, `a[0][0]: line 1: key "x" written twice`},
		{`not json {"a": 1, "a": 2}`, ""},
	} {
		err := jsonDuplicates([]byte(tt.data))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.data, err)
		case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("%s: %v, want %q", tt.data, err, tt.want)
		}
	}
}

// ModelOf follows the file: an edit between two reads shows, an
// unreadable file is not ok.
func TestModelOfFollowsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "expert.yaml")
	write := func(model string, mod time.Time) {
		if err := os.WriteFile(path, []byte("model: "+model+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().Add(-time.Hour)
	write("llmman/a", t0)
	if m, ok := ModelOf(path); !ok || m != "llmman/a" {
		t.Fatalf("ModelOf = %q, %v", m, ok)
	}
	write("llmman/b", t0.Add(time.Second)) // same size, another time
	if m, ok := ModelOf(path); !ok || m != "llmman/b" {
		t.Errorf("after an edit, ModelOf = %q, %v", m, ok)
	}
	os.Remove(path)
	if _, ok := ModelOf(path); ok {
		t.Error("ModelOf of a removed file is ok")
	}
}

func BenchmarkModelOf(b *testing.B) {
	path := filepath.Join(b.TempDir(), "expert.yaml")
	cfg := "model: llmman/a\nsystem: You are an expert.\nhooks:\n  preToolCall:\n"
	for i := range 10 {
		cfg += fmt.Sprintf("    - matcher: ^bash$\n      command: ./hooks/guard%d.sh\n", i)
	}
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			if _, err := Load(path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			if _, ok := ModelOf(path); !ok {
				b.Fatal("not ok")
			}
		}
	})
}

func TestExpandVars(t *testing.T) {
	t.Setenv("MM_TEST_TOKEN", "s3cret")
	t.Setenv("MM_TEST_EMPTY", "")
	for in, want := range map[string]string{
		"Bearer ${MM_TEST_TOKEN}":           "Bearer s3cret",
		"${MM_TEST_TOKEN}-${MM_TEST_TOKEN}": "s3cret-s3cret",
		"a${MM_TEST_EMPTY}b":                "ab",
		"$MM_TEST_TOKEN and $ alone":        "$MM_TEST_TOKEN and $ alone",
		"no variables":                      "no variables",
	} {
		if got, err := expandVars(in); err != nil || got != want {
			t.Errorf("expandVars(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"Bearer ${MM_TEST_UNSET_VARIABLE}": "${MM_TEST_UNSET_VARIABLE} is not set in mm's environment",
		"${1BAD}":                          "${1BAD} is not an environment variable name",
		"${OPEN":                           `unclosed ${ in "${OPEN"`,
	} {
		if _, err := expandVars(in); err == nil || err.Error() != want {
			t.Errorf("expandVars(%q): error %v, want %q", in, err, want)
		}
	}
}
