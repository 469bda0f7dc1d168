// Package mcptools gives an agent the tools of its Model Context Protocol
// servers (the official Go SDK does the protocol). Servers start with the
// session, in parallel, and stop with it; one that fails to start is a
// warning and the session goes on without its tools. Each tool is offered
// as "<server>_<tool>" — stable whatever other servers are configured, and
// never in conflict with a built-in tool — and runs behind the same
// middleware as the built-in ones (preToolCall, consent, postToolCall).
package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/errgroup"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/internal/model"
	"github.com/mm-agent/mm/internal/procs"
	"github.com/mm-agent/mm/orchestrator"
)

// StartTimeout bounds a server's start and handshake, and listing its tools.
const StartTimeout = 30 * time.Second

// Servers are the running MCP servers of one agent.
type Servers struct {
	mu       sync.Mutex
	sessions map[string]*mcp.ClientSession
	stops    []func()
	tools    []*Tool
}

// Tool is one MCP tool, as the model is offered it.
type Tool struct {
	server  string
	name    string // the server's own name for it
	def     model.ToolDef
	session *mcp.ClientSession
}

// Start starts every server of servers at once (commands run in dir unless
// they give their own cwd, with env and their own env: entries; nil env is
// mm's own) and lists their tools. A server that fails is reported through
// warn and left out.
func Start(ctx context.Context, servers map[string]config.MCPServer, dir string, env []string, version string, warn func(string)) *Servers {
	s := &Servers{sessions: map[string]*mcp.ClientSession{}}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	found := make([][]*Tool, len(names))
	var g errgroup.Group
	for i, name := range names {
		g.Go(func() error {
			ts, err := s.start(ctx, name, servers[name], dir, env, version)
			if err != nil {
				warn(fmt.Sprintf("mm: MCP server %q did not start: %v; going on without its tools", name, err))
				return nil
			}
			found[i] = ts
			return nil
		})
	}
	g.Wait()
	for _, ts := range found {
		s.tools = append(s.tools, ts...)
	}
	return s
}

func (s *Servers) start(ctx context.Context, name string, cfg config.MCPServer, dir string, env []string, version string) ([]*Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	var transport mcp.Transport
	var stderr *headWriter
	started := false
	stop := func() {} // kills what is left of a command server once its session is closed
	if cfg.Command != "" {
		cmd := exec.Command(cfg.Command, cfg.Args...)
		cmd.Dir = dir
		if cfg.Cwd != "" {
			cmd.Dir = cfg.Cwd
		}
		if env == nil {
			env = os.Environ()
		}
		cmd.Env = append([]string(nil), env...)
		for k, v := range cfg.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		stderr = &headWriter{max: 300}
		cmd.Stderr = stderr
		// Its own group, so a Ctrl-C in the terminal is mm's to handle; gone
		// with mm whatever way mm goes, and what it started with it (procs).
		procs.PrepareServer(cmd)
		// Close waits for stderr's copy: a grandchild holding it must not
		// hold mm's exit.
		cmd.WaitDelay = time.Second
		st := &serverTransport{CommandTransport: mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}}
		defer func() {
			if !started {
				st.stop()
			}
		}()
		transport = st
		stop = st.stop
	} else {
		transport = &mcp.StreamableClientTransport{
			Endpoint:   cfg.URL,
			HTTPClient: &http.Client{Transport: headerTransport(cfg.Headers)},
			MaxRetries: -1,
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "mm", Version: version}, nil)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, withStderr(err, stderr)
	}
	var tools []*Tool
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			session.Close()
			return nil, withStderr(fmt.Errorf("list its tools: %w", err), stderr)
		}
		schema, err := json.Marshal(t.InputSchema)
		if err != nil || string(schema) == "null" {
			schema = []byte(`{"type":"object","properties":{}}`)
		}
		tools = append(tools, &Tool{
			server: name, name: t.Name, session: session,
			def: model.ToolDef{Name: ToolName(name, t.Name), Description: t.Description, Parameters: schema},
		})
	}
	s.mu.Lock()
	s.sessions[name] = session
	s.stops = append(s.stops, stop)
	s.mu.Unlock()
	started = true
	return tools, nil
}

// Tools are the tools of every server that started, by server then in the
// server's order.
func (s *Servers) Tools() []*Tool { return s.tools }

// Close stops every server.
func (s *Servers) Close() {
	s.mu.Lock()
	sessions, stops := s.sessions, s.stops
	s.sessions, s.stops = nil, nil
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs.Close()
		}()
	}
	wg.Wait()
	for _, stop := range stops {
		stop()
	}
}

// serverTransport is the SDK's command transport, with the server's process
// group known to procs from the moment the SDK starts it (its connection
// is made before any handshake), so that nothing of it outlives mm.
type serverTransport struct {
	mcp.CommandTransport
	group *procs.Group
}

func (t *serverTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.CommandTransport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if t.group, err = procs.Adopt(t.Command); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// stop kills what is left of the server's group (its session closed, or
// it never started) and forgets it.
func (t *serverTransport) stop() {
	if t.group != nil {
		t.group.Kill()
		t.group.Release()
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// ToolName is the name the model gets for a server's tool:
// "<server>_<tool>", with characters the chat wire refuses in a function
// name replaced by "_", at most 64 characters.
func ToolName(server, tool string) string {
	n := unsafeName.ReplaceAllString(server+"_"+tool, "_")
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

// Def is the tool as offered to the model, with the server's JSON Schema.
func (t *Tool) Def() model.ToolDef { return t.def }

// Run calls the tool. What the model reads: the text content, or the whole
// content as JSON when the tool returns something other than text; a
// failure (the server's, or the tool's isError) is Failed, its output
// starting with "error: ".
func (t *Tool) Run(ctx context.Context, input json.RawMessage) orchestrator.Result {
	var args any = map[string]any{}
	if len(input) > 0 && string(input) != "null" {
		if err := json.Unmarshal(input, &args); err != nil {
			return orchestrator.Failure("invalid arguments: " + err.Error())
		}
	}
	res, err := t.session.CallTool(ctx, &mcp.CallToolParams{Name: t.name, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return orchestrator.CancelledResult("")
		}
		if errors.Is(err, mcp.ErrConnectionClosed) {
			return orchestrator.Failure(fmt.Sprintf("MCP server %q is not running any more (its connection closed)", t.server))
		}
		return orchestrator.Failure(fmt.Sprintf("MCP server %q: %v", t.server, err))
	}
	out, err := render(res)
	switch {
	case err != nil:
		return orchestrator.Failure("unreadable result: " + err.Error())
	case res.IsError:
		return orchestrator.Failure(out)
	}
	return orchestrator.Result{Output: out}
}

// Output renders a tool result as the model reads it.
func Output(res *mcp.CallToolResult) string {
	out, err := render(res)
	if err != nil {
		return orchestrator.ErrorPrefix + "unreadable result: " + err.Error()
	}
	return out
}

func render(res *mcp.CallToolResult) (string, error) {
	var texts []string
	allText := true
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		} else {
			allText = false
		}
	}
	if allText && len(res.Content) > 0 {
		return strings.Join(texts, "\n"), nil
	}
	var v any = res.Content
	if len(res.Content) == 0 {
		v = res.StructuredContent
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// headWriter keeps the first bytes written to it: a server's stderr, quoted
// when it fails to start.
type headWriter struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (w *headWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := w.max - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

func withStderr(err error, h *headWriter) error {
	if h == nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := strings.Join(strings.Fields(string(h.b)), " "); s != "" {
		return fmt.Errorf("%v (its stderr: %s)", err, s)
	}
	return err
}

type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}
