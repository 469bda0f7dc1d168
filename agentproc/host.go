package agentproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mm-agent/mm/agentproc/agentpb"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// Supervisor owns the asked agents' processes of one session: it starts a
// child on first use, reuses it for later asks (concurrent asks to one
// child run concurrently), starts a fresh one after a crash, and stops them
// all with Close.
type Supervisor struct {
	Bin string // the mm binary (MM_BIN)
	Dir string // the session's directory: the children's too
	// Env renders the environment of a child at its relay depth (MM_BIN,
	// MM_CONFIG and MM_ASK_DEPTH included); go-plugin adds its handshake.
	Env    func(depth int) []string
	Stderr io.Writer // where a child's stray stderr goes (nil: discarded)

	mu       sync.Mutex
	children map[string]*child // by config file and depth (childKey)
	closed   bool
}

var _ relay.Asker = (*Supervisor)(nil)

type child struct {
	ready  chan struct{} // closed once started (or failed to)
	client *plugin.Client
	agent  agentpb.AgentClient
	err    error
}

// Ask runs one ask in the agent's child process, starting it if need be.
func (s *Supervisor) Ask(ctx context.Context, req relay.AskRequest) relay.AskResponse {
	c, err := s.child(req)
	if err != nil {
		return relay.AskResponse{Status: relay.Failed, Error: err.Error()}
	}
	resp := s.ask(ctx, c, req)
	if resp.Status == relay.Failed && c.client.Exited() {
		s.forget(childKey(req), c)
	}
	return resp
}

func (s *Supervisor) ask(ctx context.Context, c *child, req relay.AskRequest) relay.AskResponse {
	stream, err := c.agent.Ask(ctx, grpc.MaxCallRecvMsgSize(maxMsg), grpc.MaxCallSendMsgSize(maxMsg))
	if err != nil {
		return s.broken(ctx, req, "", err)
	}
	var sendMu sync.Mutex
	send := func(u *agentpb.Up) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return stream.Send(u)
	}
	if err := send(&agentpb.Up{Msg: &agentpb.Up_Question{Question: &agentpb.Question{Prompt: req.Prompt}}}); err != nil {
		return s.broken(ctx, req, "", err)
	}
	var answer strings.Builder // what the child showed of its own answer
	for {
		down, err := stream.Recv()
		if err != nil {
			return s.broken(ctx, req, answer.String(), err)
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
			go func(q *agentpb.ConsentQuestion) {
				a := &agentpb.ConsentAnswer{Id: q.Id}
				// The asking relay adds the asked agent to the path.
				call := orchestrator.Call{ID: q.CallId, Tool: q.Tool, Summary: q.Summary, Input: q.Input, Agent: q.Path}
				if req.Consent == nil {
					a.Error = orchestrator.ErrNoOneToAsk.Error()
				} else if ok, err := req.Consent.Allow(ctx, call); err != nil {
					a.Error = err.Error()
				} else {
					a.Allow = ok
				}
				send(&agentpb.Up{Msg: &agentpb.Up_Consent{Consent: a}})
			}(m.Consent)
		case *agentpb.Down_Outcome:
			stream.CloseSend()
			o := m.Outcome
			resp := relay.AskResponse{Answer: o.Answer, Error: o.Error, CutOff: o.CutOff}
			switch o.Status {
			case agentpb.Outcome_FAILED:
				resp.Status = relay.Failed
			case agentpb.Outcome_CANCELLED:
				resp.Status = relay.Cancelled
			case agentpb.Outcome_MAX_STEPS:
				resp.Status = relay.MaxSteps
			case agentpb.Outcome_CUT_OFF:
				resp.Status = relay.CutOff
			}
			return resp
		}
	}
}

// broken is the outcome of an ask whose stream ended without an outcome:
// cancelled by the caller, or the child died.
func (s *Supervisor) broken(ctx context.Context, req relay.AskRequest, partial string, err error) relay.AskResponse {
	if ctx.Err() != nil || status.Code(err) == codes.Canceled {
		return relay.AskResponse{Status: relay.Cancelled, Answer: partial, Error: "cancelled"}
	}
	msg := fmt.Sprintf("%s stopped before it answered (its process ended)", req.Agent)
	if st, ok := status.FromError(err); ok && st.Code() != codes.Unavailable && st.Message() != "" {
		msg = fmt.Sprintf("%s stopped before it answered: %s", req.Agent, st.Message())
	}
	return relay.AskResponse{Status: relay.Failed, Answer: partial, Error: msg}
}

// child returns the running child for the agent, starting it if need be.
func (s *Supervisor) child(req relay.AskRequest) (*child, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("the session is ending")
	}
	if s.children == nil {
		s.children = map[string]*child{}
	}
	c := s.children[childKey(req)]
	if c != nil {
		s.mu.Unlock()
		<-c.ready
		if c.err == nil && !c.client.Exited() {
			return c, nil
		}
		s.forget(childKey(req), c)
		return s.child(req)
	}
	c = &child{ready: make(chan struct{})}
	s.children[childKey(req)] = c
	s.mu.Unlock()
	c.err = s.start(c, req)
	close(c.ready)
	if c.err != nil {
		s.forget(childKey(req), c)
		return nil, c.err
	}
	return c, nil
}

// childKey is which child answers an ask: one per config file and depth
// (a served agent asks at several depths at once, and a child's depth is
// in its environment, fixed at its start).
func childKey(req relay.AskRequest) string {
	return req.Config + "\x00" + strconv.Itoa(req.Depth)
}

func (s *Supervisor) forget(key string, c *child) {
	s.mu.Lock()
	if s.children[key] == c {
		delete(s.children, key)
	}
	s.mu.Unlock()
	if c.client != nil {
		go c.client.Kill()
	}
}

func (s *Supervisor) start(c *child, req relay.AskRequest) error {
	var env []string
	if s.Env != nil {
		env = s.Env(req.Depth)
	} else {
		env = append(os.Environ(), "MM_ASK_DEPTH="+strconv.Itoa(req.Depth))
	}
	stderr := s.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	c.client = plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  Handshake,
		Plugins:          plugin.PluginSet{"agent": &grpcPlugin{}},
		RunnerFunc:       newRunner(s.Bin, []string{ServeCommand, "--config", req.Config}, s.Dir, env),
		SkipHostEnv:      true,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           hclog.NewNullLogger(),
		SyncStdout:       io.Discard,
		SyncStderr:       stderr,
		GRPCDialOptions:  []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMsg))},
		UnixSocketConfig: &plugin.UnixSocketConfig{TempDir: socketDir()},
	})
	rpc, err := c.client.Client()
	if err != nil {
		return fmt.Errorf("start %s: %v", req.Agent, err)
	}
	raw, err := rpc.Dispense("agent")
	if err != nil {
		return fmt.Errorf("start %s: %v", req.Agent, err)
	}
	c.agent = raw.(agentpb.AgentClient)
	return nil
}

// Close stops every child (each finishes cleanly, or is killed after a
// short grace) and refuses later asks.
func (s *Supervisor) Close() {
	s.mu.Lock()
	s.closed = true
	children := s.children
	s.children = nil
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range children {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-c.ready
			if c.client != nil {
				c.client.Kill()
			}
		}()
	}
	wg.Wait()
}

// socketDir is where go-plugin makes the child's Unix socket: the system's
// temporary directory, unless its path is so long that the socket's would
// pass the 108-byte limit of a socket address (then /tmp).
func socketDir() string {
	dir := os.TempDir()
	if len(dir) > 60 {
		if st, err := os.Stat("/tmp"); err == nil && st.IsDir() {
			return "/tmp"
		}
	}
	return dir
}
