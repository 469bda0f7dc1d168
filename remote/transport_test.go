package remote

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/mm-agent/mm/relay"
)

// cardServer serves an mm agent (echo) at the paths given, and at the
// well-known path of prefix the card that card makes of the server's base
// URL; it records the requests' paths and tokens.
type cardServer struct {
	mu       sync.Mutex
	requests []string // "<method> <path> <authorization>"
}

func (c *cardServer) serve(t *testing.T, prefix string, card func(base string) *a2a.AgentCard, rpcPaths ...string) string {
	t.Helper()
	s := &Server{Agent: echo}
	t.Cleanup(s.Stop)
	var base string
	mux := http.NewServeMux()
	mux.HandleFunc(prefix+"/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(card(base))
	})
	for _, p := range rpcPaths {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			r.URL.Path = "/"
			s.Handler().ServeHTTP(w, r)
		})
		if dir, ok := strings.CutSuffix(p, "/{$}"); ok {
			// As nginx's location /team/rev/ answers /team/rev (Go's
			// ServeMux answers 307, which a client follows as a POST).
			mux.HandleFunc(dir, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, dir+"/", http.StatusMovedPermanently)
			})
		}
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.requests = append(c.requests, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		c.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	base = hs.URL
	return base
}

func (c *cardServer) posts() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var p []string
	for _, r := range c.requests {
		if strings.HasPrefix(r, "POST ") {
			p = append(p, r)
		}
	}
	return strings.Join(p, "; ")
}

// A card that prefers another transport but lists JSON-RPC in
// additionalInterfaces (A2A 0.3 §5.6.3) is called there, the token
// with it; a relative interface URL is read against the configured one.
func TestTransportChoice(t *testing.T) {
	for _, c := range []struct{ name, rpc string }{{"absolute", ""}, {"relative", "rpc"}} {
		t.Run(c.name, func(t *testing.T) {
			var cs cardServer
			base := cs.serve(t, "", func(base string) *a2a.AgentCard {
				rpc := c.rpc
				if rpc == "" {
					rpc = base + "/rpc"
				}
				return &a2a.AgentCard{Name: "rest-first", URL: base + "/rest", PreferredTransport: a2a.TransportProtocolHTTPJSON,
					AdditionalInterfaces: []a2a.AgentInterface{{Transport: a2a.TransportProtocolGRPC, URL: base + "/grpc"}, {Transport: a2a.TransportProtocolJSONRPC, URL: rpc}},
					Capabilities:         a2a.AgentCapabilities{Streaming: true}}
			}, "/rpc")
			a := &Agent{Name: "rev", URL: base, Token: "tok"}
			resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "hi", Depth: 1})
			if resp.Status != relay.Answered || resp.Answer != "answer: hi" {
				t.Errorf("resp = %+v", resp)
			}
			if got := cs.posts(); got != "POST /rpc Bearer tok" {
				t.Errorf("requests: %s", got)
			}
		})
	}
}

// A card with no JSON-RPC interface is an error naming the transports it
// offers; nothing is posted.
func TestNoJSONRPC(t *testing.T) {
	var cs cardServer
	base := cs.serve(t, "", func(base string) *a2a.AgentCard {
		return &a2a.AgentCard{Name: "rest-only", URL: base + "/rest", PreferredTransport: a2a.TransportProtocolHTTPJSON,
			AdditionalInterfaces: []a2a.AgentInterface{{Transport: a2a.TransportProtocolHTTPJSON, URL: base + "/rest"}, {Transport: a2a.TransportProtocolGRPC, URL: base + "/grpc"}}}
	}, "/rpc")
	a := &Agent{Name: "rev", URL: base}
	resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "hi", Depth: 1})
	want := "the agent card at " + base + " offers HTTP+JSON, GRPC, not JSON-RPC, the transport mm speaks (A2A's additionalInterfaces list none)"
	if resp.Status != relay.Failed || resp.Error != want {
		t.Errorf("resp = %+v\nwant error %q", resp, want)
	}
	if got := cs.posts(); got != "" {
		t.Errorf("requests: %s", got)
	}
}

// A JSON-RPC interface on another origin than the configured URL gets
// nothing, the token least of all.
func TestInterfaceOrigin(t *testing.T) {
	var other cardServer
	elsewhere := other.serve(t, "", func(string) *a2a.AgentCard { return &a2a.AgentCard{} }, "/rpc")
	var cs cardServer
	base := cs.serve(t, "", func(base string) *a2a.AgentCard {
		return &a2a.AgentCard{Name: "split", URL: base + "/rest", PreferredTransport: a2a.TransportProtocolHTTPJSON,
			AdditionalInterfaces: []a2a.AgentInterface{{Transport: a2a.TransportProtocolJSONRPC, URL: elsewhere + "/rpc"}}}
	}, "/rpc")
	a := &Agent{Name: "rev", URL: base, Token: "tok"}
	resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "hi", Depth: 1})
	want := "the agent card at " + base + " names " + elsewhere + "/rpc for its calls, another origin than " + base + ": mm sends nothing there (fix mmConfigs.rev.url, or the card's url)"
	if resp.Status != relay.Failed || resp.Error != want {
		t.Errorf("resp = %+v\nwant error %q", resp, want)
	}
	if got := other.posts() + cs.posts(); got != "" {
		t.Errorf("requests: %s", got)
	}
}

// A URL written with or without a trailing "/" is the same: the config's
// url (where the card is read) and the card's (where the calls go, behind
// a server that redirects one spelling to the other, as nginx's location
// /team/rev/ does).
func TestTrailingSlash(t *testing.T) {
	for _, conf := range []string{"/team/rev", "/team/rev/"} {
		for _, cardURL := range []string{"/team/rev", "/team/rev/"} {
			t.Run("config "+conf+" card "+cardURL, func(t *testing.T) {
				var cs cardServer
				base := cs.serve(t, "/team/rev", func(base string) *a2a.AgentCard {
					return &a2a.AgentCard{Name: "prefixed", URL: base + cardURL, PreferredTransport: a2a.TransportProtocolJSONRPC, Capabilities: a2a.AgentCapabilities{Streaming: true}}
				}, "/team/rev/{$}")
				a := &Agent{Name: "rev", URL: base + conf, Token: "tok"}
				resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "hi", Depth: 1})
				if resp.Status != relay.Answered || resp.Answer != "answer: hi" {
					t.Errorf("resp = %+v (requests %s)", resp, cs.posts())
				}
				want := "POST /team/rev/ Bearer tok"
				if cardURL == "/team/rev" {
					want = "POST /team/rev Bearer tok; " + want // redirected
				}
				if got := cs.posts(); got != want {
					t.Errorf("requests %s, want %s", got, want)
				}
			})
		}
	}
}
