package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// hit is one request a balancer passed on.
type hit struct {
	method, relay string // the JSON-RPC method ("" for the card), MM-Relay
	backend       int
}

// balancer is a load balancer in front of mm -a2a backends, as nginx
// with an upstream pool: the card from the first backend, the JSON-RPC
// requests hashed on MM-Relay (hash $http_mm_relay consistent) or sent
// round robin (no affinity).
type balancer struct {
	backends []*Server
	hash     bool

	mu   sync.Mutex
	next int
	hits []hit
}

func (b *balancer) serve(t *testing.T) string {
	t.Helper()
	proxies := make([]*httputil.ReverseProxy, len(b.backends))
	for i, s := range b.backends {
		u, _ := url.Parse(serve(t, s))
		proxies[i] = httputil.NewSingleHostReverseProxy(u)
		proxies[i].FlushInterval = -1
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var rpc struct {
			Method string `json:"method"`
		}
		json.Unmarshal(body, &rpc)
		id := r.Header.Get(RelayHeader)
		b.mu.Lock()
		n := 0
		switch {
		case r.Method != http.MethodPost: // the card
		case b.hash && id != "":
			h := fnv.New32a()
			h.Write([]byte(id))
			n = int(h.Sum32() % uint32(len(b.backends)))
		default:
			n = b.next % len(b.backends)
			b.next++
		}
		b.hits = append(b.hits, hit{rpc.Method, id, n})
		b.mu.Unlock()
		proxies[n].ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// taken returns the requests passed on since the last call.
func (b *balancer) taken() []hit {
	b.mu.Lock()
	defer b.mu.Unlock()
	h := b.hits
	b.hits = nil
	return h
}

// consentTurn asks for consent once and answers whether it was given;
// "wait" turns show "partial" and work until cancelled.
var consentTurn = turnFunc(func(ctx context.Context, task Task) relay.AskResponse {
	if task.Prompt == "wait" {
		task.Show(orchestrator.Event{Kind: orchestrator.Text, Text: "partial"})
		<-ctx.Done()
		return relay.AskResponse{Status: relay.Cancelled, Answer: "partial", Error: "cancelled"}
	}
	ok, err := task.Consent.Allow(ctx, orchestrator.Call{ID: "c1", Tool: "bash", Summary: "touch x", Input: json.RawMessage(`{"command":"touch x"}`)})
	if err != nil {
		return relay.AskResponse{Status: relay.Failed, Error: err.Error()}
	}
	if ok {
		return relay.AskResponse{Status: relay.Answered, Answer: "allowed"}
	}
	return relay.AskResponse{Status: relay.Answered, Answer: "refused"}
})

func yes() orchestrator.Consent {
	return consentFunc(func(context.Context, orchestrator.Call) (bool, error) { return true, nil })
}

// askVia runs one relay through the balancer: "consent" is answered yes,
// "wait" is cancelled once its first text shows.
func askVia(a *Agent, prompt string) relay.AskResponse {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	return a.Ask(ctx, relay.AskRequest{Agent: "rev", Prompt: prompt, Depth: 1, Consent: yes(), Show: func(ev orchestrator.Event) {
		if ev.Text == "partial" {
			cancel()
		}
	}})
}

// Every request of one relay — its stream, its consent answer, its
// tasks/cancel — carries one MM-Relay id, another for each relay; the
// card fetch none. Hashed on it, relays with consent succeed across
// several backends and a cancel reaches the task.
func TestRelayHeader(t *testing.T) {
	b := &balancer{hash: true}
	for range 3 {
		b.backends = append(b.backends, &Server{Agent: consentTurn, ConsentTimeout: 5 * time.Second})
	}
	a := &Agent{Name: "rev", URL: b.serve(t)}

	ids := map[string]bool{}
	backends := map[int]bool{}
	for i := range 8 {
		resp := askVia(a, "consent")
		if resp.Status != relay.Answered || resp.Answer != "allowed" {
			t.Fatalf("relay %d: %+v", i, resp)
		}
		hits := b.taken()
		if i == 0 {
			if len(hits) == 0 || hits[0].method != "" || hits[0].relay != "" {
				t.Fatalf("the first request is not the card's, without MM-Relay: %+v", hits)
			}
			hits = hits[1:]
		}
		if got := methods(hits); got != "message/stream message/stream" {
			t.Errorf("relay %d: requests %s, want the question and the consent answer", i, got)
		}
		id := sameRelay(t, hits)
		if ids[id] {
			t.Errorf("relay %d: MM-Relay %q was another relay's", i, id)
		}
		ids[id] = true
		backends[hits[0].backend] = true
	}
	if len(backends) < 2 {
		t.Errorf("8 relays hashed on MM-Relay all went to backend %v", backends)
	}

	resp := askVia(a, "wait")
	if resp.Status != relay.Cancelled {
		t.Errorf("cancelled relay: %+v", resp)
	}
	hits := b.taken()
	if got := methods(hits); got != "message/stream tasks/cancel" {
		t.Errorf("cancelled relay: requests %s", got)
	}
	if id := sameRelay(t, hits); ids[id] {
		t.Errorf("the cancelled relay's MM-Relay %q was another relay's", id)
	}
	for _, s := range b.backends {
		waitFor(t, func() bool { return s.Running() == 0 })
	}
}

// Without affinity, a consent answer or a cancel that reaches a backend
// without the task fails the relay at once, naming the likely cause; the
// task left waiting is cancelled, best effort.
func TestTaskOnAnotherBackend(t *testing.T) {
	b := &balancer{}
	for range 2 {
		b.backends = append(b.backends, &Server{Agent: consentTurn, ConsentTimeout: 20 * time.Second})
	}
	base := b.serve(t)
	a := &Agent{Name: "rev", URL: base}
	msg := func(id a2a.TaskID) string {
		return "the agent at " + base + " does not know task " + string(id) + " (a load balancer without affinity? see docs/how-to/ask-an-agent-on-another-machine.md#behind-a-load-balancer)"
	}

	start := time.Now()
	resp := askVia(a, "consent")
	took := time.Since(start)
	hits := b.taken()[1:] // after the card
	// Round robin: the question to backend 0, the consent answer to 1,
	// which does not hold the task, the best-effort cancel to 0 again.
	if got := methods(hits); got != "message/stream message/stream tasks/cancel" {
		t.Fatalf("requests %s", got)
	}
	id := taskOf(t, b.backends[0])
	if resp.Status != relay.Failed || resp.Error != msg(id) {
		t.Errorf("resp = %+v\nwant error %q", resp, msg(id))
	}
	if took > 5*time.Second {
		t.Errorf("the relay failed after %s, not at once", took)
	}
	t.Logf("the relay failed %s after it started (the backend's consent timeout: 20s)", took)
	sameRelay(t, hits)
	waitFor(t, func() bool { return b.backends[0].Running() == 0 })

	// The question to 1, the cancel to 0.
	resp = askVia(a, "wait")
	hits = b.taken()
	if got := methods(hits); got != "message/stream tasks/cancel" {
		t.Fatalf("cancelled relay: requests %s", got)
	}
	sameRelay(t, hits)
	id = taskOf(t, b.backends[1])
	if resp.Status != relay.Failed || resp.Error != msg(id) {
		t.Errorf("cancel on the wrong backend: resp = %+v\nwant error %q", resp, msg(id))
	}
	b.backends[1].Stop()
}

func methods(hits []hit) string {
	var m []string
	for _, h := range hits {
		m = append(m, h.method)
	}
	return strings.Join(m, " ")
}

// sameRelay checks that hits all carry one MM-Relay id, and returns it.
func sameRelay(t *testing.T, hits []hit) string {
	t.Helper()
	if len(hits) == 0 {
		t.Fatal("no requests")
	}
	id := hits[0].relay
	if len(id) < 16 {
		t.Errorf("MM-Relay %q is no random id", id)
	}
	for _, h := range hits {
		if h.relay != id {
			t.Errorf("%s carried MM-Relay %q, the relay's first request %q", h.method, h.relay, id)
		}
	}
	return id
}

// taskOf is the id of the one task s has run lately.
func taskOf(t *testing.T, s *Server) a2a.TaskID {
	t.Helper()
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	var ids []a2a.TaskID
	for id := range s.store.tasks {
		ids = append(ids, id)
	}
	if len(ids) != 1 {
		t.Fatalf("the backend holds tasks %v, want one", ids)
	}
	return ids[0]
}

// tasks/get and tasks/resubscribe, which an ask does not send today, carry
// the relay's id too: the header is the transport's, for every request
// made in the relay's context.
func TestRelayHeaderOnEveryCall(t *testing.T) {
	b := &balancer{hash: true, backends: []*Server{{Agent: echo}}}
	a := &Agent{Name: "rev", URL: b.serve(t)}
	c, _, err := a.connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx := withRelay(context.Background(), "relay-id-0123456789")
	var id a2a.TaskID
	for ev, err := range c.SendStreamingMessage(ctx, userMessage("hi")) {
		if err != nil {
			t.Fatal(err)
		}
		id = ev.TaskInfo().TaskID
	}
	if task, err := c.GetTask(ctx, &a2a.TaskQueryParams{ID: id}); err != nil || artifactText(task) != "answer: hi" {
		t.Errorf("tasks/get: %v, %v", task, err)
	}
	for range c.ResubscribeToTask(ctx, &a2a.TaskIDParams{ID: id}) {
	}
	c.CancelTask(ctx, &a2a.TaskIDParams{ID: id})
	hits := b.taken()[1:] // after the card
	if got := methods(hits); got != "message/stream tasks/get tasks/resubscribe tasks/cancel" {
		t.Errorf("requests %s", got)
	}
	if id := sameRelay(t, hits); id != "relay-id-0123456789" {
		t.Errorf("MM-Relay %q", id)
	}
}
