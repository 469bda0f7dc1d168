package hookadapt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/mcptools"
)

// settings is the hooks part of a Claude Code settings file (and of a
// plugin's hooks/hooks.json, a Codex hooks.json, a Gemini CLI
// settings.json: all three copied the shape).
type settings struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Timeout *float64 `json:"timeout"`
			Async   bool     `json:"async"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// Import turns the hooks of agent a's settings file into mm's hooks block:
// each command wrapped in the adapter (with `sh -c`, so that the variables
// the agent sets, $CLAUDE_PROJECT_DIR, expand where the agent expanded
// them), each guard (preGeneration, preToolCall) with onError: fail, since
// a guard that cannot run must not let the step through. Hooks that have no
// counterpart in mm are left out, each with a note saying why.
func Import(a Agent, data []byte) (yamlText []byte, notes []string, err error) {
	var s settings
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&s); err != nil {
		return nil, nil, fmt.Errorf("not a %s settings file: %s", a, strings.TrimPrefix(err.Error(), "json: "))
	}
	if len(s.Hooks) == 0 {
		return nil, nil, fmt.Errorf("no hooks in this %s settings file (no \"hooks\" object)", a)
	}
	byEvent := map[hooks.Event][]*yaml.Node{}
	names := make([]string, 0, len(s.Hooks))
	for n := range s.Hooks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		event, ok := a.mmEvent(name)
		groups := s.Hooks[name]
		if !ok {
			for _, g := range groups {
				for _, h := range g.Hooks {
					notes = append(notes, fmt.Sprintf("%s hook %s left out: mm has no %s event", name, describe(h.Type, h.Command), name))
				}
			}
			continue
		}
		for _, g := range groups {
			mmMatcher, adaptMatcher, dropped, err := a.importMatcher(event, g.Matcher)
			if err != nil {
				return nil, notes, fmt.Errorf("%s: %w", name, err)
			}
			for _, h := range g.Hooks {
				if h.Type != "" && h.Type != "command" {
					notes = append(notes, fmt.Sprintf("%s hook %s left out: mm runs commands only", name, describe(h.Type, h.Command)))
					continue
				}
				if strings.TrimSpace(h.Command) == "" {
					notes = append(notes, fmt.Sprintf("%s hook with no command left out", name))
					continue
				}
				if dropped != nil && mmMatcher == "" {
					notes = append(notes, fmt.Sprintf("%s hook %s left out: its matcher %q names no tool mm has (%s)", name, describe(h.Type, h.Command), g.Matcher, strings.Join(dropped, ", ")))
					continue
				}
				if len(dropped) > 0 {
					notes = append(notes, fmt.Sprintf("%s hook %s: %s in its matcher %q name no tool mm has", name, describe(h.Type, h.Command), strings.Join(dropped, ", "), g.Matcher))
				}
				if h.Async {
					notes = append(notes, fmt.Sprintf("%s hook %s: async has no counterpart in mm; it runs before mm goes on", name, describe(h.Type, h.Command)))
				}
				byEvent[event] = append(byEvent[event], a.entry(event, mmMatcher, adaptMatcher, h.Command, h.Timeout))
			}
		}
	}
	root := &yaml.Node{Kind: yaml.MappingNode}
	block := &yaml.Node{Kind: yaml.MappingNode}
	for _, e := range hooks.Events {
		if len(byEvent[e]) == 0 {
			continue
		}
		block.Content = append(block.Content, scalar(string(e)), &yaml.Node{Kind: yaml.SequenceNode, Content: byEvent[e]})
	}
	if len(block.Content) == 0 {
		return nil, notes, fmt.Errorf("none of the hooks of this %s settings file has a counterpart in mm", a)
	}
	root.Content = append(root.Content, scalar("hooks"), block)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, notes, err
	}
	enc.Close()
	return b.Bytes(), notes, nil
}

// defaultTimeout is the agent's timeout of a command hook that gives none,
// in seconds:
//   - Claude Code: 600 (its hooks reference, code.claude.com/docs/en/hooks,
//     "timeout": "Defaults: 600 for command");
//   - Codex CLI: 600 (codex-rs/hooks/src/engine/discovery.rs,
//     timeout_sec.unwrap_or(600));
//   - Gemini CLI: 60 (packages/core/src/hooks/hookRunner.ts,
//     DEFAULT_HOOK_TIMEOUT = 60000 ms).
func (a Agent) defaultTimeout() float64 {
	if a == Gemini {
		return 60
	}
	return 600
}

// mmEvent is mm's event for the agent's event name.
func (a Agent) mmEvent(name string) (hooks.Event, bool) {
	for e, n := range events[a] {
		if n == name && e != hooks.PreAsk && e != hooks.PostAsk { // the tool events are mm's tool calls
			return e, true
		}
	}
	return "", false
}

// entry is one mm hook entry for an imported command.
func (a Agent) entry(event hooks.Event, mmMatcher, adaptMatcher, command string, timeout *float64) *yaml.Node {
	cmd := `"$MM_BIN" hooks adapt ` + string(a)
	if adaptMatcher != "" {
		cmd += " --matcher " + shellQuote(adaptMatcher)
	}
	cmd += " -- sh -c " + shellQuote(command)
	n := &yaml.Node{Kind: yaml.MappingNode}
	if mmMatcher != "" {
		n.Content = append(n.Content, scalar("matcher"), scalar(mmMatcher))
	}
	c := scalar(cmd)
	// The shell's quoting is enough to read; YAML's on top of it is not: a
	// literal block adds none.
	c.Style = yaml.LiteralStyle
	n.Content = append(n.Content, scalar("command"), c)
	secs := a.defaultTimeout()
	if timeout != nil && *timeout > 0 {
		secs = *timeout
		if a == Gemini {
			secs /= 1000 // Gemini CLI counts milliseconds
		}
	}
	// Always written: mm's own default (10 s) is shorter than the peers', and a
	// guard that took 30 s at home would fail every call under it.
	n.Content = append(n.Content, scalar("timeout"), scalar(strconv.FormatFloat(secs, 'f', -1, 64)+"s"))
	if event == hooks.PreGeneration || event == hooks.PreToolCall {
		n.Content = append(n.Content, scalar("onError"), scalar("fail"))
	}
	return n
}

// importMatcher translates the agent's matcher of a tool event. A list of
// tool names becomes mm's matcher on mm's names (dropped lists the names
// with no counterpart); a regular expression, which cannot be translated
// name by name, is handed to the adapter (--matcher), which applies it to
// the agent's names as the agent would.
func (a Agent) importMatcher(event hooks.Event, matcher string) (mm, adapt string, dropped []string, err error) {
	if !event.TakesMatcher() {
		return "", "", nil, nil // the agent ignores a matcher on these events
	}
	m, err := ParseMatcher(matcher)
	if err != nil || m == nil {
		return "", "", nil, err
	}
	names := m.Names()
	if names == nil {
		return "", m.String(), nil, nil
	}
	var mmNames []string
	seen := map[string]bool{}
	for _, n := range names {
		got := a.mmTools(n)
		if len(got) == 0 {
			dropped = append(dropped, n)
		}
		for _, g := range got {
			if !seen[g] {
				seen[g] = true
				mmNames = append(mmNames, regexp.QuoteMeta(g))
			}
		}
	}
	if len(mmNames) == 0 {
		return "", "", dropped, nil
	}
	if len(mmNames) == 1 {
		return "^" + mmNames[0] + "$", "", dropped, nil
	}
	return "^(" + strings.Join(mmNames, "|") + ")$", "", dropped, nil
}

// mmTools are mm's tools that the agent's hooks see as name.
func (a Agent) mmTools(name string) []string {
	var out []string
	for _, mm := range []string{"bash", "read_file", "write_file", "edit_file"} {
		t, ok := a.tools()[mm]
		switch {
		case ok && t.name == name:
			out = append(out, mm)
		case ok && a == Codex && t.name == "apply_patch" && (name == "Write" || name == "Edit"):
			out = append(out, mm) // Codex's own aliases
		case !ok && mm == name:
			out = append(out, mm) // no counterpart: the hook sees mm's name
		}
	}
	if name == askAgentTool {
		out = append(out, name)
	}
	prefix, sep := "mcp__", "__"
	if a == Gemini {
		prefix, sep = "mcp_", "_"
	}
	if rest, ok := strings.CutPrefix(name, prefix); ok && len(out) == 0 {
		if server, tool, ok := strings.Cut(rest, sep); ok && server != "" && tool != "" {
			out = append(out, mcptools.ToolName(server, tool))
		}
	}
	return out
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// shellQuote quotes s for sh as one word, in single quotes.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func describe(typ, command string) string {
	if command == "" {
		return "(" + typ + ")"
	}
	const max = 60
	if r := []rune(command); len(r) > max {
		command = string(r[:max-1]) + "…"
	}
	return strconv.Quote(command)
}
