package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// turnFunc is a served agent scripted by the test.
type turnFunc func(ctx context.Context, t Task) relay.AskResponse

func (f turnFunc) Turn(ctx context.Context, t Task) relay.AskResponse { return f(ctx, t) }

// countedEcho is echo that counts its turns, for tests of what must run
// none: turns says how many ran so far.
func countedEcho() (agent turnFunc, turns func() int) {
	var mu sync.Mutex
	n := 0
	agent = func(ctx context.Context, task Task) relay.AskResponse {
		mu.Lock()
		n++
		mu.Unlock()
		return echo(ctx, task)
	}
	return agent, func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
}

// echo answers "answer: <prompt>" in two pieces, with a tool line between.
var echo = turnFunc(func(ctx context.Context, t Task) relay.AskResponse {
	t.Show(orchestrator.Event{Kind: orchestrator.Text, Text: "answer: "})
	t.Show(orchestrator.Event{Kind: orchestrator.ToolStart, Call: orchestrator.Call{Tool: "bash", Summary: "ls"}})
	t.Show(orchestrator.Event{Kind: orchestrator.Text, Text: t.Prompt})
	return relay.AskResponse{Status: relay.Answered, Answer: "answer: " + t.Prompt}
})

func serve(t *testing.T, s *Server) string {
	t.Helper()
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.Stop()
		hs.Close()
	})
	return hs.URL
}

// sdkClient is the Go SDK's own client for the agent at base, with token.
func sdkClient(t *testing.T, base, token string) *a2aclient.Client {
	t.Helper()
	card, err := agentcard.DefaultResolver.Resolve(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	var opts []a2aclient.FactoryOption
	if token != "" {
		opts = append(opts, a2aclient.WithInterceptors(&bearer{token: token}))
	}
	c, err := a2aclient.NewFromCard(context.Background(), card, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func userMessage(text string) *a2a.MessageSendParams {
	return &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: text})}
}

func artifactText(task *a2a.Task) string {
	s := ""
	for _, a := range task.Artifacts {
		s += textOf(a.Parts)
	}
	return s
}

func TestCard(t *testing.T) {
	base := serve(t, &Server{Agent: echo, Token: "tok", Card: Card{Name: "reviewer", Description: "Reviews code.", Model: "llmman/big", Version: "v1"}})
	resp, err := http.Get(base + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("card: %s (the card must be public)", resp.Status)
	}
	var card a2a.AgentCard
	if err := json.NewDecoder(resp.Body).Decode(&card); err != nil {
		t.Fatal(err)
	}
	if card.Name != "reviewer" || card.Description != "Reviews code." || !card.Capabilities.Streaming {
		t.Errorf("card = %+v", card)
	}
	if card.URL != base+"/" {
		t.Errorf("card.URL = %q, want the address it was fetched from, %q", card.URL, base+"/")
	}
	if card.ProtocolVersion != "0.3.0" || card.PreferredTransport != a2a.TransportProtocolJSONRPC {
		t.Errorf("protocol %q transport %q", card.ProtocolVersion, card.PreferredTransport)
	}
	if len(card.Capabilities.Extensions) != 1 || card.Capabilities.Extensions[0].URI != ModelExtension ||
		card.Capabilities.Extensions[0].Params["model"] != "llmman/big" {
		t.Errorf("extensions = %+v", card.Capabilities.Extensions)
	}
	if _, ok := card.SecuritySchemes["bearer"].(a2a.HTTPAuthSecurityScheme); !ok || len(card.Security) != 1 {
		t.Errorf("a token is required: the card must declare the bearer scheme, got %+v %+v", card.SecuritySchemes, card.Security)
	}
}

// The Go SDK's own client gets answers by message/send and message/stream.
func TestSDKClient(t *testing.T) {
	var depths sync.Map
	agent := turnFunc(func(ctx context.Context, task Task) relay.AskResponse {
		depths.Store(task.Prompt, task.Depth)
		return echo(ctx, task)
	})
	base := serve(t, &Server{Agent: agent, Card: Card{Name: "a"}})
	c := sdkClient(t, base, "")

	res, err := c.SendMessage(context.Background(), userMessage("hi"))
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateCompleted || artifactText(task) != "answer: hi" {
		t.Fatalf("message/send = %#v", res)
	}
	if d, _ := depths.Load("hi"); d != 1 {
		t.Errorf("a task without %s has depth 1, got %v", DepthKey, d)
	}

	var text string
	var final *a2a.TaskStatusUpdateEvent
	var tools []string
	for ev, err := range c.SendStreamingMessage(context.Background(), userMessage("streamed")) {
		if err != nil {
			t.Fatal(err)
		}
		switch e := ev.(type) {
		case *a2a.TaskArtifactUpdateEvent:
			text += textOf(e.Artifact.Parts)
		case *a2a.TaskStatusUpdateEvent:
			if e.Final {
				final = e
			} else if e.Status.Message != nil {
				tools = append(tools, textOf(e.Status.Message.Parts))
			}
		}
	}
	if text != "answer: streamed" {
		t.Errorf("streamed text = %q", text)
	}
	if final == nil || final.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("final = %+v", final)
	}
	if len(tools) != 1 || tools[0] != "🔧 bash: ls" {
		t.Errorf("tool lines = %q", tools)
	}
}

func TestToken(t *testing.T) {
	base := serve(t, &Server{Agent: echo, Token: "s3cret"})
	if _, err := sdkClient(t, base, "").SendMessage(context.Background(), userMessage("hi")); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("without the token: err = %v, want a 401", err)
	}
	if _, err := sdkClient(t, base, "wrong").SendMessage(context.Background(), userMessage("hi")); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("with a wrong token: err = %v, want a 401", err)
	}
	if _, err := sdkClient(t, base, "s3cret").SendMessage(context.Background(), userMessage("hi")); err != nil {
		t.Errorf("with the token: %v", err)
	}

	a := &Agent{Name: "rev", URL: base, TokenEnv: "REV_TOKEN"}
	resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "hi", Depth: 1})
	want := "the agent at " + base + " refused the request (HTTP 401 Unauthorized): REV_TOKEN is not set"
	if resp.Status != relay.Failed || resp.Error != want {
		t.Errorf("ask without the token: %+v\nwant error %q", resp, want)
	}
}

// mm asks mm: the answer streams to Show, the depth crosses in the
// metadata, the card's model is agentModel, events keep their kinds.
func TestAgentAsk(t *testing.T) {
	var depth int
	agent := turnFunc(func(ctx context.Context, task Task) relay.AskResponse {
		depth = task.Depth
		task.Show(orchestrator.Event{Kind: orchestrator.Text, Text: "nested", Agent: orchestrator.Path{"librarian"}})
		return echo(ctx, task)
	})
	base := serve(t, &Server{Agent: agent, Token: "tok", Card: Card{Name: "rev", Model: "llmman/big"}})
	a := &Agent{Name: "rev", URL: base, Token: "tok"}
	if m, ok := a.AgentModel(context.Background(), "rev", base); !ok || m != "llmman/big" {
		t.Errorf("AgentModel = %q, %v", m, ok)
	}
	var mu sync.Mutex
	var shown []orchestrator.Event
	resp := a.Ask(context.Background(), relay.AskRequest{
		Agent: "rev", Prompt: "what?", Depth: 3,
		Show: func(ev orchestrator.Event) {
			mu.Lock()
			shown = append(shown, ev)
			mu.Unlock()
		},
	})
	if resp.Status != relay.Answered || resp.Answer != "answer: what?" {
		t.Fatalf("resp = %+v", resp)
	}
	if depth != 3 {
		t.Errorf("served depth = %d, want 3", depth)
	}
	var text string
	var kinds []string
	for _, ev := range shown {
		if ev.Kind == orchestrator.Text && len(ev.Agent) == 0 {
			text += ev.Text
		} else {
			kinds = append(kinds, kindNames[ev.Kind]+"/"+ev.Agent.String())
		}
	}
	if text != "answer: what?" {
		t.Errorf("shown answer = %q", text)
	}
	if strings.Join(kinds, " ") != "text/librarian toolStart/" {
		t.Errorf("other events = %v", kinds)
	}
}

type consentFunc func(ctx context.Context, call orchestrator.Call) (bool, error)

func (f consentFunc) Allow(ctx context.Context, call orchestrator.Call) (bool, error) {
	return f(ctx, call)
}

// A served turn's consent question reaches the asking side's Consent, and
// its answer comes back; with no one to ask, the turn reads ErrNoOneToAsk.
func TestAgentConsent(t *testing.T) {
	type result struct {
		ok  bool
		err error
	}
	got := make(chan result, 4)
	agent := turnFunc(func(ctx context.Context, task Task) relay.AskResponse {
		ok, err := task.Consent.Allow(ctx, orchestrator.Call{ID: "c1", Tool: "bash", Summary: "touch x", Input: json.RawMessage(`{"command":"touch x"}`), Agent: orchestrator.Path{"librarian"}})
		got <- result{ok, err}
		return relay.AskResponse{Status: relay.Answered, Answer: fmt.Sprint(ok)}
	})
	base := serve(t, &Server{Agent: agent, ConsentTimeout: 3 * time.Second})
	a := &Agent{Name: "rev", URL: base}

	var asked orchestrator.Call
	resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "go", Depth: 1,
		Consent: consentFunc(func(_ context.Context, call orchestrator.Call) (bool, error) {
			asked = call
			return true, nil
		})})
	if r := <-got; !r.ok || r.err != nil || resp.Answer != "true" {
		t.Errorf("allowed: turn read %+v, answer %+v", r, resp)
	}
	// The path comes from below the served agent (the asking relay adds
	// "rev" itself).
	if asked.Tool != "bash" || asked.Agent.String() != "librarian" || asked.Summary != "touch x" || string(asked.Input) != `{"command":"touch x"}` {
		t.Errorf("the question = %+v", asked)
	}

	a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "go", Depth: 1,
		Consent: consentFunc(func(context.Context, orchestrator.Call) (bool, error) { return false, nil })})
	if r := <-got; r.ok || r.err != nil {
		t.Errorf("refused: turn read %+v", r)
	}

	a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "go", Depth: 1})
	if r := <-got; r.ok || !errors.Is(r.err, orchestrator.ErrNoOneToAsk) {
		t.Errorf("no one to ask: turn read %+v", r)
	}
}

// Ctrl-C on the asking side sends tasks/cancel: the served turn is
// cancelled, the ask ends cancelled with what was shown.
func TestAgentCancel(t *testing.T) {
	turnDone := make(chan error, 1)
	agent := turnFunc(func(ctx context.Context, task Task) relay.AskResponse {
		task.Show(orchestrator.Event{Kind: orchestrator.Text, Text: "partial"})
		<-ctx.Done()
		turnDone <- ctx.Err()
		return relay.AskResponse{Status: relay.Cancelled, Answer: "partial", Error: "cancelled"}
	})
	s := &Server{Agent: agent}
	base := serve(t, s)
	a := &Agent{Name: "rev", URL: base}
	ctx, cancel := context.WithCancel(context.Background())
	resp := a.Ask(ctx, relay.AskRequest{Agent: "rev", Prompt: "long", Depth: 1, Show: func(ev orchestrator.Event) {
		if ev.Text == "partial" {
			cancel()
		}
	}})
	if resp.Status != relay.Cancelled || resp.Error != "cancelled" || resp.Answer != "partial" {
		t.Errorf("resp = %+v", resp)
	}
	select {
	case err := <-turnDone:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("turn ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the served turn was not cancelled")
	}
	waitFor(t, func() bool { return s.Running() == 0 })
}

// A streaming client that goes away without tasks/cancel: nobody will read
// the answer, the turn is cancelled.
func TestClientGone(t *testing.T) {
	turnDone := make(chan error, 1)
	agent := turnFunc(func(ctx context.Context, task Task) relay.AskResponse {
		task.Show(orchestrator.Event{Kind: orchestrator.Text, Text: "started"})
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
		}
		turnDone <- ctx.Err()
		return relay.AskResponse{Status: relay.Cancelled, Error: "cancelled"}
	})
	s := &Server{Agent: agent}
	c := sdkClient(t, serve(t, s), "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for ev, err := range c.SendStreamingMessage(ctx, userMessage("x")) {
		if err != nil {
			break
		}
		if _, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
			cancel()
		}
	}
	select {
	case err := <-turnDone:
		if err == nil {
			t.Error("the turn ran to its end")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the turn still runs after its client went away")
	}
	waitFor(t, func() bool { return s.Running() == 0 })
}

func TestMaxDepth(t *testing.T) {
	ran := false
	agent := turnFunc(func(ctx context.Context, task Task) relay.AskResponse {
		ran = true
		return echo(ctx, task)
	})
	a := &Agent{Name: "rev", URL: serve(t, &Server{Agent: agent, MaxDepth: 1})}
	resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "deeper", Depth: 2})
	if resp.Status != relay.Failed || resp.Error != "ask depth limit reached (1)" || ran {
		t.Errorf("resp = %+v, turn ran: %v", resp, ran)
	}
	if resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "ok", Depth: 1}); resp.Status != relay.Answered {
		t.Errorf("at the limit: %+v", resp)
	}
}

// The asking side types how a served turn ended, as for a local child.
func TestOutcomes(t *testing.T) {
	agent := turnFunc(func(ctx context.Context, task Task) relay.AskResponse {
		switch task.Prompt {
		case "fail":
			return relay.AskResponse{Status: relay.Failed, Answer: "half", Error: "cannot reach the model server"}
		case "steps":
			return relay.AskResponse{Status: relay.MaxSteps, Error: "maxSteps reached (2)"}
		case "long":
			return relay.AskResponse{Status: relay.CutOff, Answer: "Once upon", Error: "answer cut off: output token limit", CutOff: orchestrator.OutputLimit}
		}
		return relay.AskResponse{Status: relay.Answered, Answer: "never shown"}
	})
	a := &Agent{Name: "rev", URL: serve(t, &Server{Agent: agent})}
	for _, tc := range []struct {
		prompt string
		want   relay.AskResponse
	}{
		{"fail", relay.AskResponse{Status: relay.Failed, Answer: "half", Error: "cannot reach the model server"}},
		{"steps", relay.AskResponse{Status: relay.MaxSteps, Error: "maxSteps reached (2)"}},
		{"long", relay.AskResponse{Status: relay.CutOff, Answer: "Once upon", Error: "answer cut off: output token limit", CutOff: orchestrator.OutputLimit}},
		// An answer the turn never showed still arrives.
		{"quiet", relay.AskResponse{Status: relay.Answered, Answer: "never shown"}},
	} {
		got := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: tc.prompt, Depth: 1})
		if got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.prompt, got, tc.want)
		}
		if tc.prompt == "steps" && !errors.Is(got.Err(), orchestrator.ErrMaxSteps) {
			t.Errorf("a served agent stopped at maxSteps: %v is not ErrMaxSteps on the asking side", got.Err())
		}
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	a := &Agent{Name: "rev", URL: url}
	resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "hi", Depth: 1})
	want := "cannot reach the agent at " + url + " (connection refused); start it (mm -a2a), or fix mmConfigs.rev.url"
	if resp.Status != relay.Failed || resp.Error != want {
		t.Errorf("resp = %+v\nwant error %q", resp, want)
	}
}

// fakePeer serves a card pointing at itself and answers JSON-RPC with rpc.
func fakePeer(t *testing.T, rpc http.HandlerFunc) string {
	t.Helper()
	var base string
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(&a2a.AgentCard{Name: "fake", URL: base + "/rpc", PreferredTransport: a2a.TransportProtocolJSONRPC, Capabilities: a2a.AgentCapabilities{Streaming: true}})
	})
	mux.HandleFunc("/rpc", rpc)
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	base = hs.URL
	return base
}

func sseEvent(w http.ResponseWriter, id any, result any) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	fmt.Fprintf(w, "data: %s\n\n", b)
	w.(http.Flusher).Flush()
}

func rpcID(r *http.Request) any {
	var req struct {
		ID any `json:"id"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	return req.ID
}

func TestFaults(t *testing.T) {
	working := func(id any) map[string]any {
		return map[string]any{"kind": "status-update", "taskId": "t1", "contextId": "c1", "final": false, "status": map[string]any{"state": "working"}}
	}
	t.Run("silent", func(t *testing.T) {
		base := fakePeer(t, func(w http.ResponseWriter, r *http.Request) {
			id := rpcID(r)
			w.Header().Set("Content-Type", "text/event-stream")
			sseEvent(w, id, working(id))
			<-r.Context().Done()
		})
		a := &Agent{Name: "rev", URL: base, IdleTimeout: 300 * time.Millisecond}
		resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "hi", Depth: 1})
		want := "the agent at " + base + " sent nothing for 300ms (idleTimeout); the stream was dropped"
		if resp.Status != relay.Failed || resp.Error != want {
			t.Errorf("resp = %+v\nwant error %q", resp, want)
		}
	})
	t.Run("dropped", func(t *testing.T) {
		base := fakePeer(t, func(w http.ResponseWriter, r *http.Request) {
			id := rpcID(r)
			w.Header().Set("Content-Type", "text/event-stream")
			sseEvent(w, id, working(id))
			sseEvent(w, id, map[string]any{"kind": "artifact-update", "taskId": "t1", "contextId": "c1",
				"artifact": map[string]any{"artifactId": "a", "parts": []any{map[string]any{"kind": "text", "text": "half an ans"}}}})
		})
		a := &Agent{Name: "rev", URL: base}
		resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "hi", Depth: 1})
		want := relay.AskResponse{Status: relay.Failed, Answer: "half an ans", Error: "the agent at " + base + " dropped the stream before the task ended"}
		if resp != want {
			t.Errorf("resp = %+v\nwant %+v", resp, want)
		}
	})
	rpcErr := map[string]any{"code": -32602, "message": "Invalid parameters", "data": map[string]any{"error": "no text"}}
	t.Run("error", func(t *testing.T) {
		// as the JavaScript SDK answers an error found before the stream starts
		base := fakePeer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": rpcID(r), "error": rpcErr})
		})
		a := &Agent{Name: "rev", URL: base}
		resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "hi", Depth: 1})
		if want := "the agent at " + base + " answered an error: no text: Invalid parameters"; resp.Status != relay.Failed || resp.Error != want {
			t.Errorf("resp = %+v\nwant error %q", resp, want)
		}
	})
	t.Run("error event", func(t *testing.T) {
		// as the Go SDK answers it, as an event of the stream (read as the
		// JavaScript SDK's: the peer's own words)
		base := fakePeer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rpcID(r), "error": rpcErr})
			fmt.Fprintf(w, "data: %s\n\n", b)
		})
		a := &Agent{Name: "rev", URL: base}
		resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "hi", Depth: 1})
		if want := "the agent at " + base + " answered an error: no text: Invalid parameters"; resp.Status != relay.Failed || resp.Error != want {
			t.Errorf("resp = %+v\nwant error %q", resp, want)
		}
	})
	t.Run("status", func(t *testing.T) {
		base := fakePeer(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 502) })
		a := &Agent{Name: "rev", URL: base}
		resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "hi", Depth: 1})
		if want := "the agent at " + base + " answered HTTP 502 Bad Gateway"; resp.Status != relay.Failed || resp.Error != want {
			t.Errorf("resp = %+v\nwant error %q", resp, want)
		}
	})
	t.Run("no card", func(t *testing.T) {
		hs := httptest.NewServer(http.NotFoundHandler())
		defer hs.Close()
		a := &Agent{Name: "rev", URL: hs.URL}
		resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "hi", Depth: 1})
		if want := "no agent card at " + hs.URL + " (HTTP 404 Not Found)"; resp.Error != want {
			t.Errorf("error = %q, want %q", resp.Error, want)
		}
	})
}

// A foreign agent built on the Go SDK that answers with a message rather
// than a task, and one whose tasks fail without mm's outcome.
type foreign struct{}

func (foreign) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	if textOf(rc.Message.Parts) == "fail" {
		ev := a2a.NewStatusUpdateEvent(rc, a2a.TaskStateFailed, a2a.NewMessageForTask(a2a.MessageRoleAgent, rc, a2a.TextPart{Text: "no can do"}))
		ev.Final = true
		return q.Write(ctx, ev)
	}
	return q.Write(ctx, a2a.NewMessage(a2a.MessageRoleAgent, a2a.TextPart{Text: "Hello, world!"}))
}

func (foreign) Cancel(context.Context, *a2asrv.RequestContext, eventqueue.Queue) error { return nil }

func TestForeignAgent(t *testing.T) {
	var base string
	mux := http.NewServeMux()
	mux.Handle("/invoke", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(foreign{})))
	mux.HandleFunc(a2asrv.WellKnownAgentCardPath, func(w http.ResponseWriter, r *http.Request) {
		a2asrv.NewStaticAgentCardHandler(&a2a.AgentCard{Name: "hello", URL: base + "/invoke", PreferredTransport: a2a.TransportProtocolJSONRPC, Capabilities: a2a.AgentCapabilities{Streaming: true}}).ServeHTTP(w, r)
	})
	hs := httptest.NewServer(mux)
	defer hs.Close()
	base = hs.URL
	a := &Agent{Name: "hello", URL: base}
	if _, ok := a.AgentModel(context.Background(), "hello", base); ok {
		t.Error("a card without the mm/agent-model extension announces no model")
	}
	var shown string
	resp := a.Ask(context.Background(), relay.AskRequest{Agent: "hello", Prompt: "hi", Depth: 1, Show: func(ev orchestrator.Event) { shown += ev.Text }})
	if resp.Status != relay.Answered || resp.Answer != "Hello, world!" || shown != "Hello, world!" {
		t.Errorf("resp = %+v, shown %q", resp, shown)
	}
	resp = a.Ask(context.Background(), relay.AskRequest{Agent: "hello", Prompt: "fail", Depth: 1})
	if want := "the agent at " + base + " failed: no can do"; resp.Status != relay.Failed || resp.Error != want {
		t.Errorf("resp = %+v, want error %q", resp, want)
	}
}

// Stop cancels the running turns and waits for them; their streams end
// canceled (a failed relay for the asking mm), new tasks are refused.
func TestStop(t *testing.T) {
	ended := make(chan struct{})
	agent := turnFunc(func(ctx context.Context, task Task) relay.AskResponse {
		task.Show(orchestrator.Event{Kind: orchestrator.Text, Text: "working"})
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // postGeneration
		close(ended)
		return relay.AskResponse{Status: relay.Cancelled, Error: "cancelled"}
	})
	s := &Server{Agent: agent}
	a := &Agent{Name: "rev", URL: serve(t, s)}
	started := make(chan struct{})
	got := make(chan relay.AskResponse, 1)
	go func() {
		var once sync.Once
		got <- a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "x", Depth: 1,
			Show: func(orchestrator.Event) { once.Do(func() { close(started) }) }})
	}()
	<-started
	s.Stop()
	select {
	case <-ended:
	default:
		t.Fatal("Stop returned before the turn ended")
	}
	// Not cancelled by the asking side: for it, a failed relay.
	if resp := <-got; resp.Status != relay.Failed || !strings.Contains(resp.Error, "cancelled the task before it answered") {
		t.Errorf("the running ask: %+v", resp)
	}
	if s.Running() != 0 {
		t.Errorf("%d tasks left", s.Running())
	}
	if resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "y", Depth: 1}); resp.Status != relay.Failed || !strings.Contains(resp.Error, "shutting down") {
		t.Errorf("a new task after Stop: %+v", resp)
	}
}

// A question nobody answers is refused after the consent timeout; the
// turn goes on and its end is kept for tasks/get.
func TestConsentTimeout(t *testing.T) {
	read := make(chan error, 1)
	agent := turnFunc(func(ctx context.Context, task Task) relay.AskResponse {
		_, err := task.Consent.Allow(ctx, orchestrator.Call{Tool: "bash", Summary: "rm x"})
		read <- err
		task.Show(orchestrator.Event{Kind: orchestrator.Text, Text: "gave up"})
		return relay.AskResponse{Status: relay.Answered, Answer: "gave up"}
	})
	s := &Server{Agent: agent, ConsentTimeout: 200 * time.Millisecond}
	c := sdkClient(t, serve(t, s), "")
	var id a2a.TaskID
	var state a2a.TaskState
	for ev, err := range c.SendStreamingMessage(context.Background(), userMessage("x")) {
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
			id, state = e.TaskID, e.Status.State
		}
	}
	if state != a2a.TaskStateInputRequired {
		t.Fatalf("the stream ended in %q, want input-required", state)
	}
	if err := <-read; !errors.Is(err, orchestrator.ErrNoOneToAsk) {
		t.Errorf("the turn read %v", err)
	}
	waitFor(t, func() bool { return s.Running() == 0 })
	task, err := c.GetTask(context.Background(), &a2a.TaskQueryParams{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if task.Status.State != a2a.TaskStateCompleted || artifactText(task) != "gave up" {
		t.Errorf("tasks/get: %s %q", task.Status.State, artifactText(task))
	}
}

// Tasks of one server run at once.
func TestConcurrentTasks(t *testing.T) {
	const n = 20
	var mu sync.Mutex
	running, most := 0, 0
	all := make(chan struct{}) // closed once n turns run at the same time
	agent := turnFunc(func(ctx context.Context, task Task) relay.AskResponse {
		mu.Lock()
		running++
		most = max(most, running)
		if running == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(10 * time.Second):
		}
		mu.Lock()
		running--
		mu.Unlock()
		return echo(ctx, task)
	})
	s := &Server{Agent: agent}
	a := &Agent{Name: "rev", URL: serve(t, s)}
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := fmt.Sprintf("q%d", i)
			if r := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: q, Depth: 1}); r.Answer != "answer: "+q {
				errs <- fmt.Sprintf("%s: %+v", q, r)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if most != n {
		t.Errorf("at most %d of %d tasks ran at once", most, n)
	}
	if s.Running() != 0 {
		t.Errorf("%d tasks left", s.Running())
	}
}

func TestStoreForgetsFinished(t *testing.T) {
	s := newStore()
	s.lifetime = time.Millisecond
	ctx := context.Background()
	s.Save(ctx, &a2a.Task{ID: "done", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}})
	s.Save(ctx, &a2a.Task{ID: "open", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired}})
	time.Sleep(5 * time.Millisecond)
	if _, err := s.Get(ctx, "done"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("a finished task is kept: %v", err)
	}
	if _, err := s.Get(ctx, "open"); err != nil {
		t.Errorf("an open task is forgotten: %v", err)
	}
	s.sweep(time.Now())
	if s.len() != 1 {
		t.Errorf("%d tasks kept, want 1", s.len())
	}
}

func TestDepthOf(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want int
	}{{nil, 1}, {float64(2), 2}, {float64(0), 1}, {float64(-3), 1}, {1.5, 1}, {"3", 1}, {json.Number("4"), 4}} {
		if got := depthOf(map[string]any{DepthKey: tc.v}); got != tc.want {
			t.Errorf("depthOf(%v) = %d, want %d", tc.v, got, tc.want)
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestMergeNested(t *testing.T) {
	text := func(agent, s string) item {
		var p orchestrator.Path
		if agent != "" {
			p = orchestrator.Path{agent}
		}
		return item{ev: orchestrator.Event{Kind: orchestrator.Text, Agent: p, Text: s}}
	}
	tool := item{ev: orchestrator.Event{Kind: orchestrator.ToolStart, Agent: orchestrator.Path{"lib"}}}
	got := mergeNested([]item{text("lib", "a"), text("lib", "b"), tool, text("lib", "c"), text("x", "d"), text("", "e"), text("", "f"), {done: true}})
	var out []string
	for _, it := range got {
		out = append(out, fmt.Sprintf("%s:%s:%v", it.ev.Agent, it.ev.Text, it.done))
	}
	want := "lib:ab:false lib::false lib:c:false x:d:false :e:false :f:false ::true"
	if strings.Join(out, " ") != want {
		t.Errorf("got %q\nwant %q", strings.Join(out, " "), want)
	}
}

// slowStart is a foreign agent that makes its task only after a while, and
// records the tasks/cancel it gets.
type slowStart struct {
	started   chan struct{} // closed when Execute begins
	cancelled chan a2a.TaskID
}

func (s slowStart) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	close(s.started)
	time.Sleep(300 * time.Millisecond) // the asking side is cancelled meanwhile
	if err := q.Write(ctx, a2a.NewStatusUpdateEvent(rc, a2a.TaskStateWorking, nil)); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

func (s slowStart) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	s.cancelled <- rc.TaskID
	ev := a2a.NewStatusUpdateEvent(rc, a2a.TaskStateCanceled, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}

// Ctrl-C before the task's first event named it: the asking side still
// learns the task's id from the stream, then sends tasks/cancel — the
// remote turn must not run on unseen.
func TestCancelBeforeTheTaskIsNamed(t *testing.T) {
	agent := slowStart{started: make(chan struct{}), cancelled: make(chan a2a.TaskID, 1)}
	var base string
	mux := http.NewServeMux()
	mux.Handle("/invoke", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(agent)))
	mux.HandleFunc(a2asrv.WellKnownAgentCardPath, func(w http.ResponseWriter, r *http.Request) {
		a2asrv.NewStaticAgentCardHandler(&a2a.AgentCard{Name: "slow", URL: base + "/invoke", PreferredTransport: a2a.TransportProtocolJSONRPC, Capabilities: a2a.AgentCapabilities{Streaming: true}}).ServeHTTP(w, r)
	})
	hs := httptest.NewServer(mux)
	defer hs.Close()
	base = hs.URL
	a := &Agent{Name: "slow", URL: base}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-agent.started
		cancel()
	}()
	resp := a.Ask(ctx, relay.AskRequest{Agent: "slow", Prompt: "hi", Depth: 1})
	if resp.Status != relay.Cancelled {
		t.Errorf("resp = %+v", resp)
	}
	select {
	case id := <-agent.cancelled:
		if id == "" {
			t.Error("tasks/cancel named no task")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no tasks/cancel reached the agent")
	}
}

// Artifact updates make the answer as A2A says (append false replaces the
// artifact's text); the display streams what reads on from what it showed
// and stops at a rewrite of text already shown.
func TestAnswerText(t *testing.T) {
	type up struct {
		id, s  string
		append bool
	}
	for _, c := range []struct {
		name        string
		ups         []up
		answer, out string
		stale       bool
	}{
		{"appends", []up{{"a", "Hel", false}, {"a", "lo", true}}, "Hello", "Hello", false},
		{"a rewrite that adds", []up{{"a", "Hel", true}, {"a", "Hello", false}, {"a", " world", true}}, "Hello world", "Hello world", false},
		{"a rewrite", []up{{"a", "Draft", true}, {"a", "Final", false}, {"a", ".", true}}, "Final.", "Draft", true},
		{"two artifacts", []up{{"a", "one ", false}, {"b", "two", false}}, "one two", "one two", false},
		{"the first one again", []up{{"a", "one ", false}, {"b", "two", false}, {"a", "more ", true}}, "one more two", "one two", true},
		{"the same again", []up{{"a", "one", false}, {"a", "one", false}, {"a", "!", true}}, "one!", "one!", false},
		{"no artifact", []up{{"", "hi", false}, {"", " there", false}}, "hi there", "hi there", false},
	} {
		var a answerText
		out := ""
		for _, u := range c.ups {
			out += a.put(u.id, u.s, u.append)
		}
		if a.String() != c.answer || out != c.out || a.stale != c.stale {
			t.Errorf("%s: answer %q, shown %q, stale %v; want %q, %q, %v", c.name, a.String(), out, a.stale, c.answer, c.out, c.stale)
		}
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttext\nlines":                         "plain\ttext\nlines",
		"\x1b[31mred\x1b[0m":                         "red",
		"a\x1b]0;title\x07b":                         "ab",
		"x\x1b]8;;http://e\x1b\\link\x1b]8;;\x1b\\y": "xlinky",
		"over\rwrite\x08\x7f":                        "overwrite",
		"c1\u0085\u009bend":                          "c1end",
		"rtl \u202efdp.exe":                          "rtl fdp.exe",
	} {
		if got := clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFlatLine(t *testing.T) {
	for in, want := range map[string]string{
		"bash: ls":                        "bash: ls",
		"rm -rf x\nallow bash: ls? [y/N]": "rm -rf x allow bash: ls? [y/N]",
		"a\tb\x1b[2Kc":                    "a bc",
	} {
		if got := flatLine(in); got != want {
			t.Errorf("flatLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// A task with no text to answer is rejected with a reason, as mm -p "" is
// refused, and no turn runs: a message with no parts, or with only blank
// text.
func TestEmptyPrompt(t *testing.T) {
	agent, turns := countedEcho()
	base := serve(t, &Server{Agent: agent})
	for _, parts := range []string{`[]`, `[{"kind":"text","text":""}]`, `[{"kind":"text","text":" \n\t"}]`} {
		body := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m1","parts":` + parts + `}}}`
		res, err := http.Post(base, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Result *a2a.Task `json:"result"`
			Error  any       `json:"error"`
		}
		err = json.NewDecoder(res.Body).Decode(&out)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case out.Error != nil:
			// The SDK's own validation refused it: fine, no turn either.
		case out.Result == nil || out.Result.Status.State != a2a.TaskStateRejected || out.Result.Status.Message == nil || textOf(out.Result.Status.Message.Parts) != ErrEmptyPrompt:
			t.Errorf("parts %s: result %+v, want rejected with %q", parts, out.Result, ErrEmptyPrompt)
		}
	}
	a := &Agent{Name: "rev", URL: base}
	resp := a.Ask(context.Background(), relay.AskRequest{Agent: "rev", Prompt: "  ", Depth: 1})
	if resp.Status != relay.Failed || resp.Error != ErrEmptyPrompt {
		t.Errorf("ask with a blank question: %+v, want the error %q", resp, ErrEmptyPrompt)
	}
	if n := turns(); n != 0 {
		t.Errorf("%d turns ran on an empty prompt", n)
	}
}

// bearer sends a token with every call of a test's SDK client.
type bearer struct {
	a2aclient.PassthroughInterceptor
	token string
}

func (b *bearer) Before(ctx context.Context, req *a2aclient.Request) (context.Context, error) {
	req.Meta["Authorization"] = []string{"Bearer " + b.token}
	return ctx, nil
}
