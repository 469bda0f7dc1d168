package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/coder/acp-go-sdk"

	"github.com/mm-agent/mm/config"
)

// The editor's MCP servers, as ACP's schema sends them, become servers as
// a config declares them; forms mm does not offer are errors that say so.
func TestMCPServers(t *testing.T) {
	var list []acp.McpServer
	err := json.Unmarshal([]byte(`[
		{"name":"fs","command":"node","args":["fs.js","."],"env":[{"name":"A","value":"1"}]},
		{"type":"http","name":"web","url":"http://127.0.0.1:9/mcp","headers":[{"name":"X-Key","value":"k"}]}
	]`), &list)
	if err != nil {
		t.Fatal(err)
	}
	got, err := mcpServers(list)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]config.MCPServer{
		"fs":  {Command: "node", Args: []string{"fs.js", "."}, Env: map[string]string{"A": "1"}},
		"web": {URL: "http://127.0.0.1:9/mcp", Headers: map[string]string{"X-Key": "k"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v", got)
	}
	if got, err := mcpServers(nil); got != nil || err != nil {
		t.Errorf("none: %v %v", got, err)
	}
	for name, bad := range map[string]string{
		"sse":        `[{"type":"sse","name":"old","url":"http://x/sse","headers":[]}]`,
		"twice":      `[{"name":"a","command":"x","args":[],"env":[]},{"name":"a","command":"y","args":[],"env":[]}]`,
		"no command": `[{"name":"a","command":"","args":[],"env":[]}]`,
		"no name":    `[{"name":"","command":"x","args":[],"env":[]}]`,
	} {
		var list []acp.McpServer
		if err := json.Unmarshal([]byte(bad), &list); err != nil {
			t.Fatal(err)
		}
		_, err := mcpServers(list)
		var re *acp.RequestError
		if err == nil || !errors.As(err, &re) || re.Code != -32602 {
			t.Errorf("%s: %v, want an invalid-params error", name, err)
		}
	}
}

// afterWriter runs a session's function once the message naming it is
// written, not before, and nothing once it waits.
func TestAfterWriter(t *testing.T) {
	var buf bytes.Buffer
	a := &afterWriter{w: &buf}
	var ran atomic.Int32
	done := make(chan struct{})
	a.after("s1", func() { ran.Add(1); close(done) })
	a.Write([]byte(`{"jsonrpc":"2.0","method":"x"}` + "\n"))
	if ran.Load() != 0 {
		t.Fatal("ran before the answer")
	}
	a.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}` + "\n"))
	<-done
	a.Write([]byte(`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}` + "\n"))
	a.after("s2", func() { ran.Add(1) })
	a.wait()
	a.Write([]byte(`{"sessionId":"s2"}`))
	a.wait()
	if n := ran.Load(); n != 1 {
		t.Errorf("ran %d times, want 1", n)
	}
}
