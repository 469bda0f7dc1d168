// Package acp is mm's editor front end: the Agent Client Protocol over
// stdio (mm -acp), so an editor such as Zed can drive mm. It only shows
// turns: every hook and relay runs behind orchestrator.Session.Generate and
// package relay, as in the other front ends. What it adds is the editor's
// way of showing them — tool calls for tools, hook runs and denials,
// session/request_permission for consent — and sessions that live in
// session files so session/load can replay them.
//
// Stdout carries nothing but ACP messages; logs and hook failure lines go
// to stderr, which editors keep as the agent's log.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/coder/acp-go-sdk"

	"github.com/mm-agent/mm/internal/frontend"
)

// Serve speaks ACP on in and out for app until the client closes the
// connection, ctx ends, or mm gets SIGINT or SIGTERM (how editors stop
// their agents); then it cancels the turns still running and waits for
// them (their postGeneration hooks, their session files) before it
// returns. version is mm's, for the initialize answer.
func Serve(ctx context.Context, app *frontend.App, version string, in io.Reader, out, errw io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	log := &logger{w: errw}
	srv := &server{
		app: app, version: version, log: log,
		sessions: map[string]*session{},
		ready:    make(chan struct{}),
	}
	// The SDK logs through slog.Default unless given a logger, and giving
	// it one after the connection started races with its reader: set the
	// default first (this process speaks ACP and nothing else).
	slog.SetDefault(slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelWarn})))
	srv.out = &afterWriter{w: out}
	conn := acp.NewAgentSideConnection(srv, srv.out, in)
	srv.conn = conn
	close(srv.ready)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	stop() // a second signal ends mm at once
	srv.shutdown()
	return nil
}

// server is the agent side of one ACP connection: the sessions it opened
// and the turns running in them.
type server struct {
	app     *frontend.App
	version string
	log     *logger
	out     *afterWriter // stdout, as the connection writes it
	// conn is set once the connection exists; handlers, which the
	// connection may start before that, wait for ready.
	conn  *acp.AgentSideConnection
	ready chan struct{}

	mu       sync.Mutex
	sessions map[string]*session
	closing  bool
	turns    sync.WaitGroup // prompts running; Add only while !closing
	dir      string         // the sessions directory, once made
}

// client is the connection to the editor, for the handlers.
func (srv *server) client() *acp.AgentSideConnection {
	<-srv.ready
	return srv.conn
}

// shutdown stops taking prompts, cancels those running and waits for
// them, then stops the sessions' asked agents.
func (srv *server) shutdown() {
	srv.mu.Lock()
	srv.closing = true
	for _, s := range srv.sessions {
		s.cancelTurn()
	}
	srv.mu.Unlock()
	srv.turns.Wait()
	srv.out.wait()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for _, s := range srv.sessions {
		s.close()
	}
}

// startTurn accounts for a prompt about to run; false once shutting down.
func (srv *server) startTurn() bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.closing {
		return false
	}
	srv.turns.Add(1)
	return true
}

// Initialize says what mm can do: load sessions (they are files), take
// MCP servers over HTTP as well as stdio (every agent must take stdio),
// and prompts made of text and resource links (the baseline, which every
// agent must take).
func (srv *server) Initialize(ctx context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{LoadSession: true,
			McpCapabilities: acp.McpCapabilities{Http: true}},
		AgentInfo:   &acp.Implementation{Name: "mm", Title: acp.Ptr("mm"), Version: srv.version},
		AuthMethods: []acp.AuthMethod{},
	}, nil
}

// Authenticate has nothing to do: mm's model servers are local or keyed
// through the config's environment variables, never through the editor.
func (srv *server) Authenticate(ctx context.Context, p acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

// The methods mm does not offer (it advertises none of their capabilities).

func (srv *server) CloseSession(ctx context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionClose)
}

func (srv *server) ListSessions(ctx context.Context, p acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionList)
}

func (srv *server) ResumeSession(ctx context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}

func (srv *server) SetSessionConfigOption(ctx context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetConfigOption)
}

func (srv *server) SetSessionMode(ctx context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetMode)
}

var (
	_ acp.Agent       = (*server)(nil)
	_ acp.AgentLoader = (*server)(nil)
)

// errNotFound is the JSON-RPC "resource not found" error ACP uses for an
// unknown session.
func errNotFound(format string, args ...any) error {
	return &acp.RequestError{Code: -32002, Message: fmt.Sprintf(format, args...)}
}

// errFailed is an error the user reads as it is (the editor shows the
// message).
func errFailed(err error) error {
	var re *acp.RequestError
	if errors.As(err, &re) {
		return re
	}
	return &acp.RequestError{Code: -32603, Message: err.Error()}
}

// logger is stderr, shared by goroutines: one write per line.
type logger struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *logger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// line writes one line.
func (l *logger) line(s string) { l.Write([]byte(s + "\n")) }
