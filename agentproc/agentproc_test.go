package agentproc

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/mm-agent/mm/agentproc/agentpb"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// The child protocol, host and child in one process: the child side's
// server (what mm __agent serves) and the host side's client (what the
// Supervisor runs) over an in-memory connection, with a fake agent for
// the child's turn.

// agentFunc is a child's agent.
type agentFunc func(ctx context.Context, prompt string, show func(orchestrator.Event), c orchestrator.Consent) relay.AskResponse

func (f agentFunc) Turn(ctx context.Context, prompt string, show func(orchestrator.Event), c orchestrator.Consent) relay.AskResponse {
	return f(ctx, prompt, show, c)
}

// wire serves impl as a child does and returns the host's client, and what
// stops the child (as if its process ended).
func wire(t *testing.T, impl Agent) (client, func()) {
	t.Helper()
	return wireServer(t, &server{impl: impl})
}

// wireServer is wire for a server of the test's making.
func wireServer(t *testing.T, s *server) (client, func()) {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	agentpb.RegisterAgentServer(srv, s)
	go srv.Serve(lis) // ends with srv.Stop
	conn, err := grpc.NewClient("passthrough:///child",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	stop := sync.OnceFunc(srv.Stop)
	t.Cleanup(func() {
		conn.Close()
		stop()
	})
	return client{rpc: agentpb.NewAgentClient(conn)}, stop
}

type consentFunc func(ctx context.Context, call orchestrator.Call) (bool, error)

func (f consentFunc) Allow(ctx context.Context, call orchestrator.Call) (bool, error) {
	return f(ctx, call)
}

// Every outcome of the child's turn reaches the asking side typed as the
// child typed it: a child stopped at maxSteps is errors.Is(ErrMaxSteps)
// there too, a cut-off answer keeps its cause.
func TestOutcomes(t *testing.T) {
	tests := []struct {
		name string
		resp relay.AskResponse
		is   error // what resp.Err() is on the asking side; nil for none
	}{
		{"answered", relay.AskResponse{Status: relay.Answered, Answer: "Forty-two."}, nil},
		{"failed", relay.AskResponse{Status: relay.Failed, Answer: "Half", Error: "the model server at http://x cannot be reached"}, nil},
		{"cancelled", relay.AskResponse{Status: relay.Cancelled, Answer: "Half", Error: "cancelled"}, context.Canceled},
		{"maxSteps", relay.AskResponse{Status: relay.MaxSteps, Error: "maxSteps reached (3): the model was still calling tools; the turn stopped"}, orchestrator.ErrMaxSteps},
		{"cut off", relay.AskResponse{Status: relay.CutOff, Answer: "Once upon", Error: "answer cut off: output token limit", CutOff: orchestrator.OutputLimit}, orchestrator.ErrCutOff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, _ := wire(t, agentFunc(func(context.Context, string, func(orchestrator.Event), orchestrator.Consent) relay.AskResponse {
				return tt.resp
			}))
			got := client.Ask(context.Background(), relay.AskRequest{Agent: "expert", Prompt: "q"})
			if !reflect.DeepEqual(got, tt.resp) {
				t.Fatalf("got %+v, want %+v", got, tt.resp)
			}
			err := got.Err()
			if tt.resp.Status == relay.Answered {
				if err != nil {
					t.Fatalf("an answer's Err is %v", err)
				}
				return
			}
			var re *relay.Error
			if !errors.As(err, &re) || re.Status != tt.resp.Status || err.Error() != tt.resp.Error {
				t.Errorf("Err = %#v, want a relay.Error of status %v saying %q", err, tt.resp.Status, tt.resp.Error)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(%v, %v) is false on the asking side", err, tt.is)
			}
		})
	}
}

// What the child shows crosses as it was: kinds, texts, calls, statuses,
// the path of the agents below the asked one. The answer is the child's
// own text, not its asked agents'.
func TestEvents(t *testing.T) {
	events := []orchestrator.Event{
		{Kind: orchestrator.Text, Text: "Let me "},
		{Kind: orchestrator.ToolStart, Call: orchestrator.Call{ID: "c1", Tool: "bash", Summary: "ls", Input: json.RawMessage(`{"command":"ls"}`)}},
		{Kind: orchestrator.ToolEnd, Call: orchestrator.Call{ID: "c1", Tool: "bash", Summary: "ls"}, Output: orchestrator.NoConsent, Status: orchestrator.NoOneToAsk},
		{Kind: orchestrator.Text, Text: "A book.", Agent: orchestrator.Path{"librarian#2"}},
		{Kind: orchestrator.ToolDenied, Call: orchestrator.Call{ID: "c2", Tool: "rm"}, Reason: "no", Output: "[denied by a hook: no]", Status: orchestrator.Denied, Agent: orchestrator.Path{"librarian", "archivist"}},
		{Kind: orchestrator.HookFailure, Text: "🪝 preToolCall hook `x`: exit status 1"},
		{Kind: orchestrator.Text, Text: "see."},
	}
	client, _ := wire(t, agentFunc(func(_ context.Context, _ string, show func(orchestrator.Event), _ orchestrator.Consent) relay.AskResponse {
		for _, ev := range events {
			show(ev)
		}
		return relay.AskResponse{Status: relay.Answered, Answer: "Let me see."}
	}))
	var got []orchestrator.Event
	resp := client.Ask(context.Background(), relay.AskRequest{Agent: "expert", Prompt: "q", Show: func(ev orchestrator.Event) { got = append(got, ev) }})
	if resp.Status != relay.Answered {
		t.Fatalf("resp %+v", resp)
	}
	if !reflect.DeepEqual(got, events) {
		t.Errorf("events:\n got %+v\nwant %+v", got, events)
	}
}

// The child's consent questions reach the asking side's Consent with the
// path below the asked agent, and its answer — allow, refuse, no one to
// ask — comes back as the child's Allow returns it.
func TestConsent(t *testing.T) {
	type answer struct {
		ok  bool
		err error
	}
	tests := []struct {
		name    string
		consent orchestrator.Consent // the asking side's
		want    answer               // what the child's Allow returns
	}{
		{"allowed", consentFunc(func(context.Context, orchestrator.Call) (bool, error) { return true, nil }), answer{true, nil}},
		{"refused", consentFunc(func(context.Context, orchestrator.Call) (bool, error) { return false, nil }), answer{false, nil}},
		{"no terminal", consentFunc(func(context.Context, orchestrator.Call) (bool, error) { return false, orchestrator.ErrNoOneToAsk }), answer{false, orchestrator.ErrNoOneToAsk}},
		{"no consent at all", nil, answer{false, orchestrator.ErrNoOneToAsk}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked := make(chan orchestrator.Call, 1)
			consent := tt.consent
			if consent != nil {
				consent = consentFunc(func(ctx context.Context, call orchestrator.Call) (bool, error) {
					asked <- call
					return tt.consent.Allow(ctx, call)
				})
			}
			var got answer
			client, _ := wire(t, agentFunc(func(ctx context.Context, _ string, _ func(orchestrator.Event), c orchestrator.Consent) relay.AskResponse {
				got.ok, got.err = c.Allow(ctx, orchestrator.Call{ID: "c9", Tool: "bash", Summary: "rm x", Input: json.RawMessage(`{"command":"rm x"}`), Agent: orchestrator.Path{"librarian"}})
				return relay.AskResponse{Status: relay.Answered}
			}))
			client.Ask(context.Background(), relay.AskRequest{Agent: "expert", Prompt: "q", Consent: consent})
			if got != tt.want {
				t.Errorf("the child's Allow returned %+v, want %+v", got, tt.want)
			}
			if consent == nil {
				return
			}
			call := <-asked
			want := orchestrator.Call{ID: "c9", Tool: "bash", Summary: "rm x", Input: json.RawMessage(`{"command":"rm x"}`), Agent: orchestrator.Path{"librarian"}}
			if !reflect.DeepEqual(call, want) {
				t.Errorf("the question: %+v, want %+v", call, want)
			}
		})
	}
}

// Ctrl-C on the asking side cancels the child's turn (its context), and
// the ask ends cancelled with what was shown of the answer.
func TestCancel(t *testing.T) {
	childDone := make(chan error, 1)
	client, _ := wire(t, agentFunc(func(ctx context.Context, _ string, show func(orchestrator.Event), _ orchestrator.Consent) relay.AskResponse {
		show(orchestrator.Event{Kind: orchestrator.Text, Text: "Thinking"})
		<-ctx.Done()
		childDone <- ctx.Err()
		return relay.AskResponse{Status: relay.Cancelled, Error: "cancelled"}
	}))
	ctx, cancel := context.WithCancel(context.Background())
	resp := client.Ask(ctx, relay.AskRequest{Agent: "expert", Prompt: "q", Show: func(ev orchestrator.Event) {
		if ev.Text == "Thinking" {
			cancel()
		}
	}})
	if resp.Status != relay.Cancelled || resp.Answer != "Thinking" || !errors.Is(resp.Err(), context.Canceled) {
		t.Errorf("resp %+v", resp)
	}
	select {
	case err := <-childDone:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the child's turn ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the child's turn was not cancelled")
	}
}

// A child whose process ends in the middle of its answer: the ask fails
// saying so, with what was shown of the answer.
func TestChildGone(t *testing.T) {
	var stop func()
	client, stop := wire(t, agentFunc(func(ctx context.Context, _ string, show func(orchestrator.Event), _ orchestrator.Consent) relay.AskResponse {
		show(orchestrator.Event{Kind: orchestrator.Text, Text: "Let me think… "})
		<-ctx.Done()
		return relay.AskResponse{}
	}))
	resp := client.Ask(context.Background(), relay.AskRequest{Agent: "expert", Prompt: "q", Show: func(ev orchestrator.Event) {
		if ev.Kind == orchestrator.Text {
			go stop()
		}
	}})
	want := relay.AskResponse{Status: relay.Failed, Answer: "Let me think… ", Error: "expert stopped before it answered (its process ended)"}
	if resp != want {
		t.Errorf("got %+v, want %+v", resp, want)
	}
}

// A consent question still open when the child ends (it gave up waiting)
// is withdrawn: Ask returns only once the goroutine answering it has
// ended, its context cancelled.
func TestConsentOwnedByAsk(t *testing.T) {
	client, _ := wire(t, agentFunc(func(ctx context.Context, _ string, _ func(orchestrator.Event), c orchestrator.Consent) relay.AskResponse {
		qctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		c.Allow(qctx, orchestrator.Call{ID: "c1", Tool: "bash"})
		return relay.AskResponse{Status: relay.Answered, Answer: "done without it"}
	}))
	// Read after Ask returns, without a lock: the race detector says
	// so if Ask did not wait for the goroutine that wrote it.
	var sawCancel bool
	consent := consentFunc(func(ctx context.Context, _ orchestrator.Call) (bool, error) {
		<-ctx.Done() // a person who never answers
		time.Sleep(20 * time.Millisecond)
		sawCancel = true
		return false, ctx.Err()
	})
	resp := client.Ask(context.Background(), relay.AskRequest{Agent: "expert", Prompt: "q", Consent: consent})
	if resp.Status != relay.Answered {
		t.Fatalf("resp %+v", resp)
	}
	if !sawCancel {
		t.Error("Ask returned before its consent goroutine ended (its question's context cancelled)")
	}
}

func TestStartErrorIsOneLine(t *testing.T) {
	s := &Supervisor{}
	err := s.startError(relay.AskRequest{Agent: "expert"}, errors.New("Unrecognized remote plugin message: hello\nFailed to read any lines from plugin's stdout\nthe asked agent's process (/bin/x) did not complete the handshake"))
	want := "start expert: Unrecognized remote plugin message: hello (mm --log FILE, or MM_LOG=FILE, records why)"
	if err.Error() != want || strings.Contains(err.Error(), "\n") {
		t.Errorf("got %q, want %q", err, want)
	}
}

// The child answers its handshake before its agent is built (Serve): an
// ask that comes first waits for the agent, and one cancelled while it
// waits ends cancelled.
func TestAskWaitsForTheAgent(t *testing.T) {
	s := &server{ready: make(chan struct{})}
	client, _ := wireServer(t, s)
	done := make(chan relay.AskResponse, 1)
	go func() { done <- client.Ask(context.Background(), relay.AskRequest{Agent: "expert", Prompt: "q"}) }()
	select {
	case r := <-done:
		t.Fatalf("answered before the agent was built: %+v", r)
	case <-time.After(100 * time.Millisecond):
	}
	s.impl = agentFunc(func(_ context.Context, prompt string, _ func(orchestrator.Event), _ orchestrator.Consent) relay.AskResponse {
		return relay.AskResponse{Status: relay.Answered, Answer: "built, then asked " + prompt}
	})
	close(s.ready)
	if r := <-done; r.Status != relay.Answered || r.Answer != "built, then asked q" {
		t.Fatalf("got %+v", r)
	}

	waiting := &server{ready: make(chan struct{})} // never built
	client, _ = wireServer(t, waiting)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if r := client.Ask(ctx, relay.AskRequest{Agent: "expert", Prompt: "q"}); r.Status != relay.Cancelled {
		t.Fatalf("an ask cancelled while the agent was built: %+v", r)
	}
}
