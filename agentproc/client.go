package agentproc

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/mm-agent/mm/agentproc/agentpb"
	"github.com/mm-agent/mm/internal/tracing"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// client is the parent's side of a child's Agent service, as the relay
// asks it (the mirror of server, which serves an Agent): what go-plugin
// dispenses to the Supervisor.
type client struct {
	rpc  agentpb.AgentClient
	conn *grpc.ClientConn // nil in tests that make a client of their own
}

// alive says the connection to the child is up: when the child's process
// dies, its end of the socket closes and the connection leaves the Ready
// state at once, well before go-plugin has reaped the process (Exited).
// A connection gRPC left idle (after 30 minutes without a call) counts as
// gone too: the child is replaced, at the cost of one start.
func (c client) alive() bool {
	return c.conn == nil || c.conn.GetState() == connectivity.Ready
}

var _ relay.Asker = client{}

// Ask runs one ask in the child: the question, then what the child shows,
// its consent questions (each answered through req.Consent on a goroutine
// this ask owns and waits for), and its outcome.
func (c client) Ask(ctx context.Context, req relay.AskRequest) relay.AskResponse {
	resp, _ := c.ask(ctx, req)
	return resp
}

// ask is Ask, and says whether the question never reached the child: the
// stream could not be opened or the question not sent (the connection
// was gone), so nothing of the ask ran there.
func (c client) ask(ctx context.Context, req relay.AskRequest) (resp relay.AskResponse, undelivered bool) {
	// The consent goroutines end with the ask: their questions are moot
	// once the child has answered or gone.
	var consents sync.WaitGroup
	defer consents.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The relay's span travels with the ask (W3C traceparent in the
	// stream's metadata): the child's turn is its child in the same trace.
	for k, v := range tracing.Inject(ctx) {
		ctx = metadata.AppendToOutgoingContext(ctx, k, v)
	}
	stream, err := c.rpc.Ask(ctx, grpc.MaxCallRecvMsgSize(maxMsg), grpc.MaxCallSendMsgSize(maxMsg))
	if err != nil {
		return broken(ctx, req, "", err), ctx.Err() == nil
	}
	var sendMu sync.Mutex
	send := func(u *agentpb.Up) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return stream.Send(u)
	}
	if err := send(&agentpb.Up{Msg: &agentpb.Up_Question{Question: &agentpb.Question{Prompt: req.Prompt}}}); err != nil {
		return broken(ctx, req, "", err), ctx.Err() == nil
	}
	var answer strings.Builder // what the child showed of its own answer
	for {
		down, err := stream.Recv()
		if err != nil {
			return broken(ctx, req, answer.String(), err), false
		}
		switch m := down.Msg.(type) {
		case *agentpb.Down_Event:
			ev := fromEvent(m.Event)
			if ev.Kind == orchestrator.Text && len(ev.Agent) == 0 {
				answer.WriteString(ev.Text)
			}
			if req.Show != nil {
				req.Show(ev)
			}
		case *agentpb.Down_Consent:
			q := m.Consent
			consents.Add(1)
			go func() {
				defer consents.Done()
				send(&agentpb.Up{Msg: &agentpb.Up_Consent{Consent: consentAnswer(ctx, req.Consent, q)}})
			}()
		case *agentpb.Down_Outcome:
			stream.CloseSend()
			return fromOutcome(m.Outcome), false
		}
	}
}

// consentAnswer puts the child's question q to c.
func consentAnswer(ctx context.Context, c orchestrator.Consent, q *agentpb.ConsentQuestion) *agentpb.ConsentAnswer {
	a := &agentpb.ConsentAnswer{Id: q.Id}
	// The asking relay adds the asked agent to the path.
	call := orchestrator.Call{ID: q.CallId, Tool: q.Tool, Summary: q.Summary, Input: q.Input, Agent: q.Path}
	if c == nil {
		a.Error = orchestrator.ErrNoOneToAsk.Error()
	} else if ok, err := c.Allow(ctx, call); err != nil {
		a.Error = err.Error()
	} else {
		a.Allow = ok
	}
	return a
}

// broken is the outcome of an ask whose stream ended without an outcome:
// cancelled by the caller, or the child died. A caller's deadline can reach
// the stream (the child's side sends DeadlineExceeded) before ctx itself
// reports it: both are the caller's cancel.
func broken(ctx context.Context, req relay.AskRequest, partial string, err error) relay.AskResponse {
	if code := status.Code(err); ctx.Err() != nil || code == codes.Canceled || code == codes.DeadlineExceeded {
		return relay.AskResponse{Status: relay.Cancelled, Answer: partial, Error: "cancelled"}
	}
	msg := fmt.Sprintf("%s stopped before it answered (its process ended)", req.Agent)
	if st, ok := status.FromError(err); ok && st.Code() != codes.Unavailable && st.Message() != "" {
		msg = fmt.Sprintf("%s stopped before it answered: %s", req.Agent, st.Message())
	}
	return relay.AskResponse{Status: relay.Failed, Answer: partial, Error: msg}
}
