package agentproc

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/mm-agent/mm/agentproc/agentpb"
	"github.com/mm-agent/mm/internal/procs"
	"github.com/mm-agent/mm/internal/tracing"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// Agent is what a child process serves: each Turn is one fresh turn (an
// ask), what it shows sent to the parent as it happens and its consent
// questions put to the parent, which puts them to its front end.
// internal/agent's Agent is one.
type Agent interface {
	Turn(ctx context.Context, prompt string, show func(orchestrator.Event), consent orchestrator.Consent) relay.AskResponse
}

// Serve serves the agent build returns to the parent that started this
// process, until the parent closes the connection (then the asks still
// running end — a turn the parent cancelled runs its postGeneration hooks
// — cleanup runs and Serve returns) or dies (then everything this process
// started is killed and it exits). log, when not nil, gets go-plugin's
// account of the serving side.
//
// The handshake does not wait for the agent: build runs while go-plugin
// serves and the parent connects (a millisecond of dialling and streams
// on its side, which the config's loading and the agent's building
// overlap), and an ask that comes first waits for it. A build that fails
// returns an Agent failing every ask with the reason. cleanup runs once
// build has returned.
func Serve(build func() Agent, log *slog.Logger, cleanup func()) {
	abort := func() {
		if log != nil {
			log.Info("the asking mm is gone: stopping")
		}
		procs.KillAll()
		// The directory of this process's socket was made for it alone
		// by the asking mm, which is gone and cannot remove it now.
		if dir := os.Getenv(plugin.EnvUnixSocketDir); dir != "" {
			os.RemoveAll(dir)
		}
		os.Exit(1)
	}
	procs.WatchLifeline(abort)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	go func() {
		<-sigs
		abort()
	}()
	srv := &server{ready: make(chan struct{})}
	go func() { // owned: Serve waits for ready before cleanup
		defer close(srv.ready)
		warm()
		srv.impl = build()
	}()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake,
		Plugins:         plugin.PluginSet{"agent": &grpcPlugin{srv: srv}},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, grpc.MaxRecvMsgSize(maxMsg), grpc.MaxSendMsgSize(maxMsg))...)
		},
		Logger: pluginLogger(log),
	})
	// go-plugin stops the gRPC server at once when the parent shuts the
	// child down, which cancels the asks' streams but not their turns: a
	// turn cancelled by Ctrl-C is still running its postGeneration hooks.
	// They end first (the parent gives them go-plugin's grace, 2 s, and
	// then kills this process).
	srv.mu.Lock()
	srv.ended = true
	srv.mu.Unlock()
	srv.asks.Wait()
	<-srv.ready
	cleanup()
}

// server is the child side of the Ask RPC.
type server struct {
	agentpb.UnimplementedAgentServer
	impl Agent
	// ready, when not nil, is closed once impl is set: an ask waits for it.
	ready chan struct{}
	// asks are the Ask calls running; Serve waits for them once the
	// server has ended (ended, under mu: no Add after that).
	mu    sync.Mutex
	ended bool
	asks  sync.WaitGroup
}

func (s *server) Ask(stream agentpb.Agent_AskServer) error {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return errors.New("the agent's process is ending")
	}
	s.asks.Add(1)
	s.mu.Unlock()
	defer s.asks.Done()
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	q := first.GetQuestion()
	if q == nil {
		return errors.New("the first message of an ask must be its question")
	}
	if s.ready != nil {
		select {
		case <-s.ready:
		case <-stream.Context().Done():
			return stream.Context().Err()
		}
	}
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		ctx = tracing.Extract(ctx, func(k string) string {
			if v := md.Get(k); len(v) > 0 {
				return v[0]
			}
			return ""
		})
	}
	var sendMu sync.Mutex
	send := func(d *agentpb.Down) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return stream.Send(d)
	}
	consent := &streamConsent{send: send, pending: map[int64]chan *agentpb.ConsentAnswer{}}
	go func() {
		// The parent's later messages answer consent questions; when its side
		// ends, the ask is over for it: cancel the turn.
		defer cancel()
		for {
			up, err := stream.Recv()
			if err != nil {
				consent.closeAll()
				return
			}
			if a := up.GetConsent(); a != nil {
				consent.deliver(a)
			}
		}
	}()
	resp := s.impl.Turn(ctx, q.Prompt, func(ev orchestrator.Event) {
		send(&agentpb.Down{Msg: &agentpb.Down_Event{Event: toEvent(ev)}})
	}, consent)
	return send(&agentpb.Down{Msg: &agentpb.Down_Outcome{Outcome: toOutcome(resp)}})
}

// streamConsent puts the child's consent questions to the parent, which
// hands them on to the front end of the agent a person started.
type streamConsent struct {
	send func(*agentpb.Down) error

	mu      sync.Mutex
	next    int64
	pending map[int64]chan *agentpb.ConsentAnswer
	closed  bool
}

func (c *streamConsent) Allow(ctx context.Context, call orchestrator.Call) (bool, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false, context.Canceled
	}
	c.next++
	id := c.next
	ch := make(chan *agentpb.ConsentAnswer, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	err := c.send(&agentpb.Down{Msg: &agentpb.Down_Consent{Consent: &agentpb.ConsentQuestion{
		Id: id, Tool: call.Tool, Summary: call.Summary, Input: call.Input, CallId: call.ID, Path: call.Agent,
	}}})
	if err != nil {
		return false, err
	}
	select {
	case a, ok := <-ch:
		if !ok {
			return false, context.Canceled
		}
		if a.Error != "" {
			return false, orchestrator.ErrNoOneToAsk
		}
		return a.Allow, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

func (c *streamConsent) deliver(a *agentpb.ConsentAnswer) {
	c.mu.Lock()
	ch := c.pending[a.Id]
	delete(c.pending, a.Id)
	c.mu.Unlock()
	if ch != nil {
		ch <- a
	}
}

func (c *streamConsent) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}
