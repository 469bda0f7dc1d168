package hookadapt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// tool is how one of mm's tools looks to an agent's hooks: its name there
// and how its arguments are renamed. The tables below are the mapping
// documented in docs/reference/hooks-adapt.md; they are the only place it
// is written down.
type tool struct {
	name string    // the agent's name for the tool
	args []argName // mm's argument → the agent's, in the agent's order
	// absPath is the agent's argument holding a path that the agent always
	// gives absolute (Claude Code's file_path, Gemini CLI's file_path).
	absPath string
	// dropped are the agent's arguments a hook may send back in a replaced
	// input that mm has no counterpart for but that change nothing when
	// dropped: a description, or a value equal to mm's behaviour.
	dropped map[string]func(json.RawMessage) bool
	// patch: Codex's apply_patch, whose one argument is a patch built from
	// mm's arguments (see codexPatch); a replaced patch is not mapped back.
	patch bool
}

type argName struct{ mm, agent string }

// any value of the argument may be dropped (a description).
func anyValue(json.RawMessage) bool { return true }

// isFalse: only false (or null) may be dropped (mm never runs in the
// background, never replaces every occurrence).
func isFalse(v json.RawMessage) bool {
	s := string(bytes.TrimSpace(v))
	return s == "false" || s == "null"
}

var (
	claudeTools = map[string]tool{
		"bash": {name: "Bash", args: []argName{{"command", "command"}},
			dropped: map[string]func(json.RawMessage) bool{"description": anyValue, "timeout": anyValue, "run_in_background": isFalse}},
		"read_file":  {name: "Read", args: []argName{{"path", "file_path"}}, absPath: "file_path"},
		"write_file": {name: "Write", args: []argName{{"path", "file_path"}, {"content", "content"}}, absPath: "file_path"},
		"edit_file": {name: "Edit", args: []argName{{"path", "file_path"}, {"old", "old_string"}, {"new", "new_string"}}, absPath: "file_path",
			dropped: map[string]func(json.RawMessage) bool{"replace_all": isFalse}},
	}
	codexTools = map[string]tool{
		"bash": {name: "Bash", args: []argName{{"command", "command"}}},
		// Codex edits files with apply_patch alone and reads them through
		// its shell: read_file has no counterpart and keeps its mm name.
		"write_file": {name: "apply_patch", patch: true},
		"edit_file":  {name: "apply_patch", patch: true},
	}
	geminiTools = map[string]tool{
		"bash": {name: "run_shell_command", args: []argName{{"command", "command"}},
			dropped: map[string]func(json.RawMessage) bool{"description": anyValue, "is_background": isFalse}},
		"read_file":  {name: "read_file", args: []argName{{"path", "file_path"}}, absPath: "file_path"},
		"write_file": {name: "write_file", args: []argName{{"path", "file_path"}, {"content", "content"}}, absPath: "file_path"},
		"edit_file": {name: "replace", args: []argName{{"path", "file_path"}, {"old", "old_string"}, {"new", "new_string"}}, absPath: "file_path",
			dropped: map[string]func(json.RawMessage) bool{"instruction": anyValue, "allow_multiple": isFalse}},
	}
)

// call is one tool call as the wrapped hook sees it, with what is needed
// to map a replaced input back.
type call struct {
	mmName string
	name   string          // the agent's tool name
	input  json.RawMessage // the agent's arguments
	mmIn   json.RawMessage // mm's arguments, as the hook input had them
	t      *tool           // nil: the arguments are mm's own (MCP, ask_agent, unknown)
	cwd    string
	mcp    *mcpName // set for an MCP tool
}

// mcpName is an MCP tool split into its server and the server's tool name.
type mcpName struct{ server, tool string }

// toolCall translates mm's tool call for agent a. servers are the names of
// the config's MCP servers, asked for only when the name is not a built-in
// tool (so the config is read only for MCP tools).
func (a Agent) toolCall(mmName string, input json.RawMessage, cwd string, servers func() []string) (*call, error) {
	c := &call{mmName: mmName, name: mmName, input: input, mmIn: input, cwd: cwd}
	if len(bytes.TrimSpace(input)) == 0 {
		c.input, c.mmIn = json.RawMessage("{}"), json.RawMessage("{}")
	}
	if t, ok := a.tools()[mmName]; ok {
		c.t, c.name = &t, t.name
		in, err := t.toAgent(c.mmIn, cwd)
		if err != nil {
			return nil, err
		}
		c.input = in
		return c, nil
	}
	if mmName == askAgentTool || isBuiltin(mmName) {
		return c, nil // no counterpart: the hook sees mm's own name and arguments
	}
	if m := splitMCP(mmName, servers()); m != nil {
		c.mcp = m
		if a == Gemini {
			c.name = "mcp_" + m.server + "_" + m.tool
		} else {
			c.name = "mcp__" + m.server + "__" + m.tool
		}
	}
	return c, nil
}

func (a Agent) tools() map[string]tool {
	switch a {
	case ClaudeCode:
		return claudeTools
	case Codex:
		return codexTools
	}
	return geminiTools
}

// askAgentTool is the relay tool (package relay's ToolName): no peer has
// one, so its hooks see it under its own name with its own arguments.
const askAgentTool = "ask_agent"

func isBuiltin(name string) bool {
	switch name {
	case "bash", "read_file", "write_file", "edit_file":
		return true
	}
	return false
}

// splitMCP finds the MCP server whose tools' names start "<server>_" (the
// longest, so "fs_extra_read" belongs to server "fs_extra" over "fs"),
// as package mcptools names them.
func splitMCP(name string, servers []string) *mcpName {
	sort.Slice(servers, func(i, j int) bool { return len(servers[i]) > len(servers[j]) })
	for _, s := range servers {
		if rest, ok := strings.CutPrefix(name, s+"_"); ok && rest != "" {
			return &mcpName{server: s, tool: rest}
		}
	}
	return nil
}

// toAgent renames mm's arguments to the agent's. An argument mm sends that
// the table does not know is kept under its own name.
func (t *tool) toAgent(mmIn json.RawMessage, cwd string) (json.RawMessage, error) {
	var args map[string]json.RawMessage
	if err := json.Unmarshal(mmIn, &args); err != nil || args == nil {
		// Not an object (a model's mistake): nothing to rename; the hook sees
		// it as it is, as mm's own hooks do.
		return mmIn, nil
	}
	if t.patch {
		return codexPatch(args)
	}
	var out object
	seen := map[string]bool{}
	for _, an := range t.args {
		v, ok := args[an.mm]
		if !ok {
			continue
		}
		seen[an.mm] = true
		if an.agent == t.absPath {
			v = absolute(v, cwd)
		}
		out = append(out, field{an.agent, v})
	}
	for _, k := range sortedKeys(args) {
		if !seen[k] {
			out = append(out, field{k, args[k]})
		}
	}
	return out.MarshalJSON()
}

// fromAgent maps a replaced input back to mm's argument names: Claude
// Code's and Codex's updatedInput replace the arguments, Gemini CLI's
// tool_input is merged over them first (see Agent.replaced). An argument
// with no counterpart in mm is an error, unless dropping it changes nothing.
func (c *call) fromAgent(updated json.RawMessage) (json.RawMessage, error) {
	if c.t == nil {
		return updated, nil // mm's own names both ways
	}
	if c.t.patch {
		if jsonEqual(updated, c.input) {
			return c.mmIn, nil
		}
		return nil, fmt.Errorf("updatedInput for apply_patch (mm's %s) cannot be mapped back: mm does not apply patches", c.mmName)
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal(updated, &args); err != nil || args == nil {
		return nil, fmt.Errorf("the replaced input of %s is not a JSON object", c.name)
	}
	var orig map[string]json.RawMessage
	json.Unmarshal(c.mmIn, &orig)
	var out object
	for _, k := range sortedKeys(args) {
		v := args[k]
		mm, ok := c.t.mmArg(k)
		switch {
		case ok:
			if k == c.t.absPath && jsonEqual(v, absolute(orig[mm], c.cwd)) {
				v = orig[mm] // unchanged: keep the path as the model wrote it
			}
			out = append(out, field{mm, v})
		case c.t.dropped[k] != nil && c.t.dropped[k](v):
		case c.t.dropped[k] != nil:
			return nil, fmt.Errorf("%s.%s = %s has no counterpart in mm's %s", c.name, k, compact(v), c.mmName)
		case orig[k] != nil:
			out = append(out, field{k, v}) // an argument mm sent under its own name
		default:
			return nil, fmt.Errorf("%s.%s has no counterpart in mm's %s", c.name, k, c.mmName)
		}
	}
	return out.MarshalJSON()
}

func (t *tool) mmArg(agent string) (string, bool) {
	for _, an := range t.args {
		if an.agent == agent {
			return an.mm, true
		}
	}
	return "", false
}

// codexPatch writes write_file and edit_file as the apply_patch envelope
// Codex's hooks read in tool_input.command: a whole file added, or one
// hunk replacing the old text with the new.
func codexPatch(args map[string]json.RawMessage) (json.RawMessage, error) {
	var path, content, old, nw string
	json.Unmarshal(args["path"], &path)
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	if _, ok := args["content"]; ok {
		json.Unmarshal(args["content"], &content)
		b.WriteString("*** Add File: " + path + "\n")
		for _, l := range lines(content) {
			b.WriteString("+" + l + "\n")
		}
	} else {
		json.Unmarshal(args["old"], &old)
		json.Unmarshal(args["new"], &nw)
		b.WriteString("*** Update File: " + path + "\n@@\n")
		for _, l := range lines(old) {
			b.WriteString("-" + l + "\n")
		}
		for _, l := range lines(nw) {
			b.WriteString("+" + l + "\n")
		}
	}
	b.WriteString("*** End Patch\n")
	return object{{"command", b.String()}}.MarshalJSON()
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// absolute makes a JSON string holding a relative path absolute under cwd;
// anything else is returned as it is.
func absolute(v json.RawMessage, cwd string) json.RawMessage {
	var p string
	if json.Unmarshal(v, &p) != nil || p == "" || filepath.IsAbs(p) || cwd == "" {
		return v
	}
	b, _ := json.Marshal(filepath.Join(cwd, p))
	return b
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func compact(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// object is a JSON object whose keys keep the order they are written in,
// so the input a hook reads looks like the agent's own.
type object []field

type field struct {
	k string
	v any
}

// MarshalJSON writes the fields in order, with &, < and > as they are (a
// guard may look for "&&" by plain text search, as mm's own hooks can).
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := marshal(f.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal encodes v without HTML escaping.
func marshal(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		if len(raw) == 0 {
			return []byte("null"), nil
		}
		return unescapeHTML(raw), nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// unescapeHTML undoes encoding/json's \u0026, \u003c and \u003e in raw
// JSON (a nested object marshalled by this package), leaving every other
// escape as it is.
func unescapeHTML(raw []byte) []byte {
	if !bytes.Contains(raw, []byte(`\u00`)) {
		return raw
	}
	r := strings.NewReplacer(`\u0026`, "&", `\u003c`, "<", `\u003e`, ">")
	// A "\\u0026" is an escaped backslash then "u0026": protect it first.
	s := strings.ReplaceAll(string(raw), `\\`, "\x00")
	s = r.Replace(s)
	return []byte(strings.ReplaceAll(s, "\x00", `\\`))
}
