// Package config loads and validates an agent's YAML file. Validation is
// strict — an unknown key is an error, like an unknown hook event, and so
// is a key written twice — because YAML silently ignores what it does not
// know and keeps the last of two keys, and a misspelt or replaced guard
// that never runs is worse than an agent that refuses to start. Every
// message is the one a user reads: it names the file, the key and the line.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mm-agent/mm/hooks/hookdecl"
	"github.com/mm-agent/mm/internal/sandbox/sandboxdecl"
	"github.com/mm-agent/mm/internal/structured"
)

// DefaultModel is used when neither the config nor --model names one.
const DefaultModel = "llmman/hf.co/unsloth/gemma-4-E4B-it-GGUF:Q4_K_M"

// Defaults of the contract's config table.
const (
	DefaultMaxSteps    = 25
	DefaultMaxAskDepth = 4
	// DefaultMaxParallelAsks bounds the ask_agent calls of one model reply
	// that run at once: each may start a child process or hold a remote
	// backend's model, so a model that fans out wide must not start them
	// all.
	DefaultMaxParallelAsks = 8
)

// Config is one agent's validated configuration.
type Config struct {
	// Path is the file as the user named it ("" for built-in defaults);
	// File is its absolute path and Dir the absolute directory relative
	// paths are resolved against (the working directory for defaults).
	Path, File, Dir string

	Model           string // <provider>/<model>
	System          string
	SystemSet       bool     // system: is written (even ""); without it the model gets mm's built-in system message
	Tools           []string // nil: all built-in tools; empty: none
	Yolo            bool
	DisplayHooks    bool
	DisplayCommands bool
	MaxSteps        int
	MaxAskDepth     int
	// MaxParallelAsks is how many ask_agent calls of one model reply run
	// at once (local or remote agents alike).
	MaxParallelAsks int
	Providers       map[string]Provider // the config's own, on top of the built-in ones
	// MMConfigs maps an agent's name to its config file, absolute, or,
	// for a remote agent, to its URL as written (what ask.config shows).
	MMConfigs map[string]string
	Hooks     hookdecl.Set
	// HooksLog is the audit file every hook run is appended to, absolute;
	// "" for none.
	HooksLog string
	// MCPServers are the Model Context Protocol servers whose tools the
	// agent gets, by name.
	MCPServers map[string]MCPServer
	// ContextBudget is the model's context size in estimated tokens; near
	// it, older turns are compressed. 0: never.
	ContextBudget int
	// Skills maps skill names to Markdown files, absolute, on top of the
	// skills/ folder next to the config.
	Skills map[string]string
	// StructuredOutput is the JSON Schema the final answer must match; nil
	// for free text.
	StructuredOutput *structured.Schema
	// StructuredOutputFile is the schema's file, absolute, when it was
	// read from one ({file: …}); "" otherwise.
	StructuredOutputFile string
	// AgentsFile reads the session directory's AGENTS.md into the system
	// instructions, after System (agentsFile:, default true).
	AgentsFile bool
	// ShowReasoning shows what a reasoning model thinks before it answers
	// (dim, apart from the answer; never in the history).
	ShowReasoning bool
	// RemoteAgents are the agents of MMConfigs that live on another
	// machine and are asked over A2A ({url:, tokenEnv:}), by name.
	RemoteAgents map[string]RemoteAgent
	// Name is the agent's name on its A2A card and in the banner; "" for
	// none (the card then uses the file name).
	Name string
	// Sandbox is the floor under the hooks: what bash, write_file and
	// edit_file may write, and whether bash has the network. Off by
	// default.
	Sandbox sandboxdecl.Policy
}

// RemoteAgent is an mmConfigs entry served by another mm (mm -a2a) or any
// A2A agent: it is asked over the network instead of as a child process.
type RemoteAgent struct {
	URL      string // the base URL the agent card is read from, as written
	TokenEnv string // the variable holding the bearer token; "" for none
	// IdleTimeout is the longest wait for the next byte of its answer;
	// 0 for the default.
	IdleTimeout time.Duration
}

// MCPServer is one MCP server: a command speaking over stdio, or the URL of
// a streamable HTTP server.
type MCPServer struct {
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string // absolute; "" for the session's directory
	URL     string
	Headers map[string]string
}

// Error is a configuration mistake; its text is what the user reads,
// "[config error: <path>: <message>]".
type Error struct {
	Path string // the config file as named, or the flag at fault
	Msg  string
}

func (e *Error) Error() string { return "[config error: " + e.Path + ": " + e.Msg + "]" }

// Default is the configuration used when no file is given or found.
func Default(dir string) *Config {
	return &Config{Dir: dir, Model: DefaultModel, MaxSteps: DefaultMaxSteps, MaxAskDepth: DefaultMaxAskDepth, MaxParallelAsks: DefaultMaxParallelAsks,
		Sandbox: sandboxdecl.Policy{Mode: sandboxdecl.Off}, AgentsFile: true}
}

// AgentNames lists the mmConfigs agents, sorted.
func (c *Config) AgentNames() []string {
	names := make([]string, 0, len(c.MMConfigs))
	for n := range c.MMConfigs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var topKeys = []string{"model", "system", "tools", "yolo", "displayHooks", "displayCommands", "maxSteps", "maxAskDepth", "maxParallelAsks", "providers", "mmConfigs", "hooks", "hooksLog", "mcpServers", "contextBudget", "skills", "structuredOutput", "showReasoning", "name", "sandbox", "sandboxNetwork", "agentsFile"}

// Load reads and validates the config file at path.
func Load(path string) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &Error{path, err.Error()}
	}
	data, err := readFile(abs)
	if err != nil {
		return nil, &Error{path, err.Error()}
	}
	c := Default(filepath.Dir(abs))
	c.Path, c.File = path, abs
	if err := c.parse(data); err != nil {
		return nil, &Error{path, err.Error()}
	}
	if _, err := c.Resolve(c.Model); err != nil {
		return nil, &Error{path, err.Error()}
	}
	return c, nil
}

// ModelOf is the model reference of the config at path, for the ask
// object's agentModel; ok is false when the file is unreadable. The
// reference reads it from the file at each ask ("read from that file"),
// so an edit between two asks shows: the file is parsed again only when
// its size or modification time changed since the last read (a stat
// costs a few microseconds, a parse of a config with hooks a hundred).
func ModelOf(path string) (model string, ok bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", false
	}
	key := modelKey{size: st.Size(), mod: st.ModTime()}
	if v, hit := models.Load(abs); hit {
		if m := v.(modelRead); m.key == key {
			return m.model, true
		}
	}
	c, err := Load(abs)
	if err != nil {
		models.Delete(abs)
		return "", false
	}
	models.Store(abs, modelRead{key, c.Model})
	return c.Model, true
}

// models are the model references ModelOf read, by absolute path.
var models sync.Map

type modelKey struct {
	size int64
	mod  time.Time
}

type modelRead struct {
	key   modelKey
	model string
}

func readReason(err error) string {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "no such file"
	case errors.Is(err, os.ErrPermission):
		return "permission denied"
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func (c *Config) parse(data []byte) error {
	doc, err := decodeDocument(data)
	if err != nil {
		return err
	}
	if err := checkDuplicates(doc, ""); err != nil {
		return err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil // an empty file: every default
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil
	}
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: the file must be a YAML mapping of keys (model:, hooks:, …)", root.Line)
	}
	return eachKey(root, "", topKeys, func(key string, v *yaml.Node) error {
		switch key {
		case "model":
			return decode(v, key, &c.Model)
		case "system":
			// system: with no value keeps the default (the built-in
			// message); system: "" is none.
			c.SystemSet = !(v.Kind == yaml.ScalarNode && v.Tag == "!!null")
			return decode(v, key, &c.System)
		case "tools":
			if err := decode(v, key, &c.Tools); err != nil {
				return err
			}
			if c.Tools == nil && !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
				c.Tools = []string{} // tools: [] offers none
			}
			return nil
		case "yolo":
			return decode(v, key, &c.Yolo)
		case "displayHooks":
			return decode(v, key, &c.DisplayHooks)
		case "displayCommands":
			return decode(v, key, &c.DisplayCommands)
		case "showReasoning":
			return decode(v, key, &c.ShowReasoning)
		case "agentsFile":
			return decode(v, key, &c.AgentsFile)
		case "sandbox":
			return parseSandbox(v, &c.Sandbox.Mode)
		case "sandboxNetwork":
			return decode(v, key, &c.Sandbox.Network)
		case "maxSteps":
			return positive(v, key, &c.MaxSteps)
		case "maxAskDepth":
			return positive(v, key, &c.MaxAskDepth)
		case "maxParallelAsks":
			return positive(v, key, &c.MaxParallelAsks)
		case "providers":
			return c.parseProviders(v)
		case "mmConfigs":
			return c.parseMMConfigs(v)
		case "name":
			if err := decode(v, key, &c.Name); err != nil {
				return err
			}
			if c.Name != "" && !agentName.MatchString(c.Name) {
				return fmt.Errorf("name: %q must start with a letter or digit and hold only letters, digits, '-', '_' and '.'", c.Name)
			}
		case "hooks":
			set, err := parseHooks(v, c.Dir)
			c.Hooks = set
			return err
		case "mcpServers":
			return c.parseMCPServers(v)
		case "contextBudget":
			if err := decode(v, key, &c.ContextBudget); err != nil {
				return err
			}
			if c.ContextBudget < 0 {
				return errors.New("contextBudget must be >= 0")
			}
		case "structuredOutput":
			return c.parseStructuredOutput(v)
		case "skills":
			if err := decodeMap(v, key, &c.Skills); err != nil {
				return err
			}
			for name, p := range c.Skills {
				if !filepath.IsAbs(p) {
					c.Skills[name] = filepath.Join(c.Dir, p)
				}
			}
		case "hooksLog":
			if err := decode(v, key, &c.HooksLog); err != nil {
				return err
			}
			if c.HooksLog != "" && !filepath.IsAbs(c.HooksLog) {
				c.HooksLog = filepath.Join(c.Dir, c.HooksLog)
			}
		}
		return nil
	})
}

// eachKey walks a mapping, rejecting keys outside known (when known is not
// nil) with `<prefix>unknown field "<key>"`.
func eachKey(m *yaml.Node, prefix string, known []string, f func(key string, v *yaml.Node) error) error {
	if m.Kind != yaml.MappingNode {
		return fmt.Errorf("%sline %d: want a mapping", prefix, m.Line)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		key := m.Content[i].Value
		if known != nil && !contains(known, key) {
			return fmt.Errorf("%sunknown field %q%s", prefix, key, didYouMean(key, known))
		}
		if err := f(key, m.Content[i+1]); err != nil {
			return err
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// decode decodes a scalar or list value, naming the key on a type mistake.
func decode(v *yaml.Node, key string, dst any) error {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil
	}
	_, whole := dst.(*int)
	// The YAML library truncates 1.5 to 1 for an int: a fraction is a mistake.
	if err := v.Decode(dst); err != nil || (whole && v.ShortTag() != "!!int") {
		want := "a string"
		switch dst.(type) {
		case *bool:
			want = "true or false"
		case *int:
			want = "a whole number"
		case *[]string:
			want = "a list of strings"
		}
		return fmt.Errorf("%s: line %d: want %s", key, v.Line, want)
	}
	return nil
}

func positive(v *yaml.Node, key string, dst *int) error {
	if err := decode(v, key, dst); err != nil {
		return err
	}
	if *dst < 1 {
		return fmt.Errorf("%s: line %d: must be >= 1", key, v.Line)
	}
	return nil
}

// parseSandbox reads sandbox: off, workspace or readonly.
func parseSandbox(v *yaml.Node, dst *sandboxdecl.Mode) error {
	var s string
	if err := decode(v, "sandbox", &s); err != nil {
		return err
	}
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil
	}
	m, ok := sandboxdecl.ParseMode(s)
	if !ok {
		names := make([]string, len(sandboxdecl.Modes))
		for i, m := range sandboxdecl.Modes {
			names[i] = string(m)
		}
		return fmt.Errorf("sandbox: line %d: want off, workspace or readonly, not %q%s", v.Line, s, didYouMean(s, names))
	}
	*dst = m
	return nil
}

var agentName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// withContextPrefix starts the /ask-with-context-<name> command: an agent
// whose name starts with it could not be reached by /ask-<name>.
const withContextPrefix = "with-context-"

// keyLine is the line of the key whose value is v in the mapping m.
func keyLine(m, v *yaml.Node) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i+1] == v {
			return m.Content[i].Line
		}
	}
	return v.Line
}

func (c *Config) parseMMConfigs(v *yaml.Node) error {
	c.MMConfigs = map[string]string{}
	return eachKey(v, "mmConfigs: ", nil, func(name string, pv *yaml.Node) error {
		if !agentName.MatchString(name) {
			return fmt.Errorf("mmConfigs: agent name %q must start with a letter or digit and hold only letters, digits, '-', '_' and '.'", name)
		}
		if strings.HasPrefix(name, withContextPrefix) {
			return fmt.Errorf("mmConfigs.%s: line %d: an agent name must not start with %q: /ask-%s would ask %q with the conversation; rename it", name, keyLine(v, pv), withContextPrefix, name, strings.TrimPrefix(name, withContextPrefix))
		}
		if pv.Kind == yaml.MappingNode {
			return c.parseRemoteAgent(name, pv)
		}
		var p string
		if err := decode(pv, "mmConfigs."+name, &p); err != nil {
			return fmt.Errorf("mmConfigs.%s: line %d: want a config file path or {url: …, tokenEnv: …}", name, pv.Line)
		}
		if strings.TrimSpace(p) == "" {
			return fmt.Errorf("mmConfigs.%s: the config file path must not be empty", name)
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.Dir, p)
		}
		if st, err := os.Stat(p); err != nil {
			return fmt.Errorf("mmConfigs.%s: %s: %s", name, p, readReason(err))
		} else if st.IsDir() {
			return fmt.Errorf("mmConfigs.%s: %s is a directory, not a config file", name, p)
		} else if err := checkStat(st); err != nil {
			return fmt.Errorf("mmConfigs.%s: %s: %v", name, p, err)
		}
		c.MMConfigs[name] = p
		return nil
	})
}

var remoteKeys = []string{"url", "tokenEnv", "idleTimeout"}

// parseRemoteAgent reads the object form of an mmConfigs entry: an agent on
// another machine, asked over A2A.
func (c *Config) parseRemoteAgent(name string, v *yaml.Node) error {
	prefix := "mmConfigs." + name
	var r RemoteAgent
	err := eachKey(v, prefix+": ", remoteKeys, func(key string, kv *yaml.Node) error {
		switch key {
		case "url":
			return decode(kv, prefix+".url", &r.URL)
		case "tokenEnv":
			return decode(kv, prefix+".tokenEnv", &r.TokenEnv)
		case "idleTimeout":
			var t string
			if err := decode(kv, prefix+".idleTimeout", &t); err != nil {
				return err
			}
			d, err := parseTimeout(t)
			if err != nil {
				return fmt.Errorf("%s.idleTimeout: line %d: %q is not a duration (write e.g. 30s or 5m)", prefix, kv.Line, t)
			}
			if d <= 0 {
				return fmt.Errorf("%s.idleTimeout: line %d: must be > 0", prefix, kv.Line)
			}
			r.IdleTimeout = d
		}
		return nil
	})
	if err != nil {
		return err
	}
	if r.URL == "" {
		return fmt.Errorf("%s: line %d: url is required (the base URL of the agent, e.g. http://gpu-box:7420)", prefix, v.Line)
	}
	if err := httpURL(prefix+".url", r.URL); err != nil {
		return err
	}
	if r.TokenEnv != "" && !envName.MatchString(r.TokenEnv) {
		return fmt.Errorf("%s.tokenEnv: %q is not an environment variable name", prefix, r.TokenEnv)
	}
	if c.RemoteAgents == nil {
		c.RemoteAgents = map[string]RemoteAgent{}
	}
	c.RemoteAgents[name] = r
	c.MMConfigs[name] = r.URL
	return nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

var hookKeys = []string{"command", "url", "headers", "matcher", "timeout", "onError"}

// eventNames are the hook events, for a typo's suggestion.
func eventNames() []string {
	names := make([]string, len(hookdecl.Events))
	for i, e := range hookdecl.Events {
		names[i] = string(e)
	}
	return names
}

// parseHooks validates the hooks block with the reference's messages
// ("Erreurs de validation").
func parseHooks(v *yaml.Node, dir string) (hookdecl.Set, error) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil, nil
	}
	set := hookdecl.Set{}
	err := eachKey(v, "hooks: ", nil, func(name string, list *yaml.Node) error {
		if !hookdecl.Known(name) {
			return fmt.Errorf("hooks: unknown event %q (want one of preGeneration, preToolCall, postToolCall, postGeneration, preAsk, postAsk)%s", name, didYouMean(name, eventNames()))
		}
		event := hookdecl.Event(name)
		if list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
			return nil
		}
		if list.Kind != yaml.SequenceNode {
			return fmt.Errorf("hooks.%s: want a list of hooks", name)
		}
		for i, item := range list.Content {
			h, err := parseHook(event, item, dir)
			if err != nil {
				return fmt.Errorf("hooks.%s[%d]: %w", name, i, err)
			}
			set[event] = append(set[event], h)
		}
		return nil
	})
	return set, err
}

func parseHook(event hookdecl.Event, item *yaml.Node, dir string) (hookdecl.Hook, error) {
	h := hookdecl.Hook{OnError: hookdecl.Warn, Timeout: hookdecl.DefaultTimeout, ConfigDir: dir}
	var raw struct{ command, url, headers, matcher, timeout, onError *yaml.Node }
	err := eachKey(item, "", hookKeys, func(key string, v *yaml.Node) error {
		switch key {
		case "command":
			raw.command = v
		case "url":
			raw.url = v
		case "headers":
			raw.headers = v
		case "matcher":
			raw.matcher = v
		case "timeout":
			raw.timeout = v
		case "onError":
			raw.onError = v
		}
		return nil
	})
	if err != nil {
		return h, err
	}
	str := func(v *yaml.Node, key string) (string, error) {
		var s string
		if v == nil {
			return "", nil
		}
		return s, decode(v, key, &s)
	}
	if raw.command != nil && raw.url != nil {
		return h, fmt.Errorf("line %d: give either command (run with sh -c) or url (POSTed to), not both", item.Line)
	}
	if raw.url != nil {
		if err := parseURLHook(&h, raw.url, raw.headers); err != nil {
			return h, err
		}
	} else {
		if raw.headers != nil {
			return h, fmt.Errorf("headers: line %d: headers are for a url hook, not a command", raw.headers.Line)
		}
		if h.Command, err = str(raw.command, "command"); err != nil {
			return h, err
		}
		if strings.TrimSpace(h.Command) == "" {
			return h, errors.New("command must not be empty")
		}
	}
	matcher, err := str(raw.matcher, "matcher")
	if err != nil {
		return h, err
	}
	if matcher != "" {
		if !event.TakesMatcher() {
			return h, errors.New("matcher is only for preToolCall, postToolCall, preAsk and postAsk")
		}
		if h.Matcher, err = regexp.Compile(matcher); err != nil {
			return h, fmt.Errorf("matcher: %w", err)
		}
	}
	if raw.timeout != nil {
		t, err := str(raw.timeout, "timeout")
		if err != nil {
			return h, err
		}
		d, err := parseTimeout(t)
		if err != nil {
			return h, err
		}
		if d < 0 {
			return h, errors.New("timeout must be >= 0")
		}
		if d > 0 {
			h.Timeout = d
		}
	}
	if raw.onError != nil {
		o, err := str(raw.onError, "onError")
		if err != nil {
			return h, err
		}
		switch hookdecl.OnError(o) {
		case hookdecl.Fail, hookdecl.Warn, hookdecl.Ignore:
			h.OnError = hookdecl.OnError(o)
		default:
			return h, errors.New(`onError must be "fail", "warn" or "ignore"`)
		}
	}
	return h, nil
}

// parseURLHook reads a URL hook's url and headers. A header's ${VAR}s are
// expanded from mm's environment now, at start: a token that is not set
// is an error naming it, not a request that goes without it and a guard
// that fails on every call.
func parseURLHook(h *hookdecl.Hook, urlNode, headersNode *yaml.Node) error {
	if err := decode(urlNode, "url", &h.URL); err != nil {
		return err
	}
	if strings.TrimSpace(h.URL) == "" {
		return errors.New("url must not be empty")
	}
	if err := httpURL(fmt.Sprintf("url: line %d", urlNode.Line), h.URL); err != nil {
		return err
	}
	if headersNode == nil || (headersNode.Kind == yaml.ScalarNode && headersNode.Tag == "!!null") {
		return nil
	}
	if headersNode.Kind != yaml.MappingNode {
		return fmt.Errorf("headers: line %d: want a mapping of header names to strings", headersNode.Line)
	}
	for i := 0; i+1 < len(headersNode.Content); i += 2 {
		name, v := headersNode.Content[i].Value, headersNode.Content[i+1]
		if !headerName.MatchString(name) {
			return fmt.Errorf("headers: line %d: %q is not a header name", headersNode.Content[i].Line, name)
		}
		var value string
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			return fmt.Errorf("headers.%s: line %d: want a string", name, v.Line)
		}
		if err := decode(v, "headers."+name, &value); err != nil {
			return err
		}
		value, err := expandVars(value)
		if err != nil {
			return fmt.Errorf("headers.%s: line %d: %w", name, v.Line, err)
		}
		if strings.ContainsAny(value, "\r\n") {
			return fmt.Errorf("headers.%s: line %d: a header value must be one line", name, v.Line)
		}
		h.Headers = append(h.Headers, hookdecl.Header{Name: name, Value: value})
	}
	return nil
}

// headerName is an HTTP field name (RFC 9110's token).
var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// expandVars replaces each ${NAME} in s with the variable's value; an
// unset variable is an error naming it (set to "" is a value). A $ not
// followed by { is kept as it is, so a literal $ needs no escape.
func expandVars(s string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("unclosed ${ in %q", s)
		}
		name := s[i+2 : i+j]
		if !envName.MatchString(name) {
			return "", fmt.Errorf("${%s} is not an environment variable name", name)
		}
		v, ok := os.LookupEnv(name)
		if !ok {
			return "", fmt.Errorf("${%s} is not set in mm's environment", name)
		}
		b.WriteString(s[:i])
		b.WriteString(v)
		s = s[i+j+1:]
	}
}

// parseTimeout reads a Go duration ("5s", "1m30s"); a bare 0 is allowed.
func parseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" || s == "-0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		if strings.HasPrefix(s, "-") {
			return -1, nil
		}
		return 0, fmt.Errorf("timeout: %q is not a duration (write e.g. 5s, 500ms or 1m)", s)
	}
	return d, nil
}

var (
	mcpKeys    = []string{"command", "args", "env", "cwd", "url", "headers"}
	serverName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
)

func (c *Config) parseMCPServers(v *yaml.Node) error {
	c.MCPServers = map[string]MCPServer{}
	return eachKey(v, "mcpServers: ", nil, func(name string, sv *yaml.Node) error {
		prefix := "mcpServers." + name
		if !serverName.MatchString(name) {
			return fmt.Errorf("mcpServers: server name %q must start with a letter or digit and hold only letters, digits, '-' and '_' (it prefixes its tools' names)", name)
		}
		var s MCPServer
		err := eachKey(sv, prefix+": ", mcpKeys, func(key string, kv *yaml.Node) error {
			switch key {
			case "command":
				return decode(kv, prefix+".command", &s.Command)
			case "args":
				return decode(kv, prefix+".args", &s.Args)
			case "env":
				return decodeMap(kv, prefix+".env", &s.Env)
			case "cwd":
				return decode(kv, prefix+".cwd", &s.Cwd)
			case "url":
				return decode(kv, prefix+".url", &s.URL)
			case "headers":
				return decodeMap(kv, prefix+".headers", &s.Headers)
			}
			return nil
		})
		if err != nil {
			return err
		}
		switch {
		case (s.Command == "") == (s.URL == ""):
			return fmt.Errorf("%s: give either command (a server over stdio) or url (a streamable HTTP server)", prefix)
		case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != ""):
			return fmt.Errorf("%s: args, env and cwd are for a command, not a url", prefix)
		case s.Command != "" && len(s.Headers) > 0:
			return fmt.Errorf("%s: headers are for a url, not a command", prefix)
		}
		if s.URL != "" {
			if err := httpURL(prefix+".url", s.URL); err != nil {
				return err
			}
		}
		if s.Cwd != "" && !filepath.IsAbs(s.Cwd) {
			s.Cwd = filepath.Join(c.Dir, s.Cwd)
		}
		c.MCPServers[name] = s
		return nil
	})
}

func decodeMap(v *yaml.Node, key string, dst *map[string]string) error {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil
	}
	if err := v.Decode(dst); err != nil {
		return fmt.Errorf("%s: line %d: want a mapping of names to strings", key, v.Line)
	}
	return nil
}

// parseStructuredOutput reads the schema inline (YAML or JSON) or, as
// {file: schema.json}, from a file relative to the config.
func (c *Config) parseStructuredOutput(v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		return fmt.Errorf("structuredOutput: line %d: want a JSON Schema (a mapping) or {file: schema.json}", v.Line)
	}
	var raw []byte
	if len(v.Content) == 2 && v.Content[0].Value == "file" {
		var path string
		if err := decode(v.Content[1], "structuredOutput.file", &path); err != nil {
			return err
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(c.Dir, path)
		}
		b, err := readFile(path)
		if err != nil {
			return fmt.Errorf("structuredOutput.file: %s: %v", path, err)
		}
		if err := jsonDuplicates(b); err != nil {
			return fmt.Errorf("structuredOutput.file: %s: %v", path, err)
		}
		raw = b
		c.StructuredOutputFile = path
	} else {
		var schema any
		if err := v.Decode(&schema); err != nil {
			return fmt.Errorf("structuredOutput: %v", err)
		}
		b, err := json.Marshal(schema)
		if err != nil {
			return fmt.Errorf("structuredOutput: %v", err)
		}
		raw = b
	}
	s, err := structured.Compile(raw)
	if err != nil {
		return fmt.Errorf("structuredOutput: %v", err)
	}
	c.StructuredOutput = s
	return nil
}
