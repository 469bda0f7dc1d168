package acp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sync"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/internal/frontend"
	"github.com/mm-agent/mm/internal/sessions"
	"github.com/mm-agent/mm/orchestrator"
)

// session is one ACP session: an mm session kept in its session file, with
// an agent built for the session's directory, and what the editor's user
// decided for it (the tools always allowed).
type session struct {
	id  string
	srv *server
	cwd string
	mm  *orchestrator.Session
	// here is the agent working in the session's directory, whose asked
	// agents' processes and editor's MCP servers are the session's own.
	here *frontend.App
	// servers are the MCP servers the editor gave for the session (by
	// name), started with here.
	servers map[string]config.MCPServer

	// turnMu is held for the whole of a prompt: one turn at a time, and
	// no load while one runs.
	turnMu sync.Mutex

	mu     sync.Mutex
	cancel context.CancelFunc // the running turn's
	cur    *view              // the running turn's display
	turns  int                // prompts so far, for unique tool call ids
	always map[string]bool    // tools (as Consent names them) allowed for the session
}

// NewSession starts a session in the editor's cwd, kept in a new session
// file named after its id, with the MCP servers the editor gave; once the
// editor has the session's id, the /ask… commands are advertised
// (available_commands_update).
func (srv *server) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	servers, err := mcpServers(p.McpServers)
	if err != nil {
		return acp.NewSessionResponse{}, err
	}
	dir, err := srv.sessionsDir()
	if err != nil {
		return acp.NewSessionResponse{}, errFailed(err)
	}
	id := newID()
	s, err := srv.open(ctx, id, filepath.Join(dir, id+".jsonl"), p.Cwd, servers)
	if err != nil {
		return acp.NewSessionResponse{}, errFailed(err)
	}
	// mm --resume in the same directory lists it too (a listing aid: a
	// side file that cannot be written loses nothing of the session).
	_ = sessions.Begin(dir, id, s.cwd)
	srv.mu.Lock()
	srv.sessions[id] = s
	srv.mu.Unlock()
	// A session/update before the answer would name a session the editor
	// does not know yet: the commands go once the answer is written.
	srv.out.after(id, func() { s.advertise(context.Background()) })
	return acp.NewSessionResponse{SessionId: acp.SessionId(id)}, nil
}

// LoadSession resumes a session from its file and replays its
// conversation before answering, as ACP asks, then advertises the /ask…
// commands. The hook runs shown during its turns are not replayed: they
// were never part of the history. The MCP servers are the load's: a
// session open already keeps its servers when the editor gives the same.
func (srv *server) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	id := string(p.SessionId)
	if !validID.MatchString(id) {
		return acp.LoadSessionResponse{}, acp.NewInvalidParams(map[string]any{"sessionId": "not a session id of mm"})
	}
	servers, err := mcpServers(p.McpServers)
	if err != nil {
		return acp.LoadSessionResponse{}, err
	}
	s, err := srv.loaded(ctx, id, p.Cwd, servers)
	if err != nil {
		return acp.LoadSessionResponse{}, err
	}
	defer s.turnMu.Unlock()
	for _, u := range replay(s.mm.History, shownHistory(s), s.cwd) {
		if err := srv.client().SessionUpdate(ctx, acp.SessionNotification{SessionId: p.SessionId, Update: u}); err != nil {
			return acp.LoadSessionResponse{}, err
		}
	}
	if err := s.advertise(ctx); err != nil {
		return acp.LoadSessionResponse{}, err
	}
	return acp.LoadSessionResponse{}, nil
}

// loaded is session id working in cwd, opened from its file unless this
// connection has it open already; it is returned with its turnMu held, so
// no turn changes the history while it is replayed.
func (srv *server) loaded(ctx context.Context, id, cwd string, servers map[string]config.MCPServer) (*session, error) {
	srv.mu.Lock()
	s := srv.sessions[id]
	srv.mu.Unlock()
	if s != nil {
		if !s.turnMu.TryLock() {
			return nil, acp.NewInvalidRequest(map[string]any{"sessionId": "a turn is running in this session"})
		}
		if filepath.Clean(cwd) == s.cwd && reflect.DeepEqual(servers, s.servers) {
			return s, nil
		}
		if err := s.moveTo(ctx, cwd, servers); err != nil {
			s.turnMu.Unlock()
			return nil, errFailed(err)
		}
		return s, nil
	}
	dir, err := srv.sessionsDir()
	if err != nil {
		return nil, errFailed(err)
	}
	path := filepath.Join(dir, id+".jsonl")
	if _, err := os.Stat(path); err != nil {
		return nil, errNotFound("session %s: no session file %s", id, path)
	}
	if s, err = srv.open(ctx, id, path, cwd, servers); err != nil {
		return nil, errFailed(err)
	}
	s.turnMu.Lock()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.sessions[id] != nil {
		s.close()
		return nil, acp.NewInvalidRequest(map[string]any{"sessionId": "loaded twice at once"})
	}
	srv.sessions[id] = s
	return s, nil
}

// open opens the session file at path as session id working in cwd, with
// the editor's MCP servers.
func (srv *server) open(ctx context.Context, id, path, cwd string, servers map[string]config.MCPServer) (*session, error) {
	s := &session{id: id, srv: srv, always: map[string]bool{}}
	here, err := s.agentIn(ctx, cwd, servers)
	if err != nil {
		return nil, err
	}
	// The session file is the connection's (closed when mm ends), not the
	// directory's: a session/load in another cwd keeps it.
	mm, err := srv.app.OpenSession(path)
	if err != nil {
		here.Close()
		return nil, err
	}
	mm.Agent = here.Agent
	s.mm, s.here = mm, here
	keepShown(s)
	return s, nil
}

// moveTo makes cwd the directory of an open session, and servers its MCP
// servers, between turns; the asked agents and the servers started for
// the old ones are stopped.
func (s *session) moveTo(ctx context.Context, cwd string, servers map[string]config.MCPServer) error {
	here, err := s.agentIn(ctx, cwd, servers)
	if err != nil {
		return err
	}
	s.close()
	s.mm.Agent, s.here = here.Agent, here
	return nil
}

// close stops the session's asked agents and its editor's MCP servers.
func (s *session) close() {
	if s.here != nil {
		s.here.Close()
	}
}

// agentIn sets the session's directory and returns the agent that works
// there: the reference runs hooks "in the session's folder … the cwd of the
// editor's session in ACP", and the built-in tools, @path lines and asked
// agents must work where the user is; the editor's MCP servers start
// there, for the session. It asks for consent through the session, and
// what its tools show during a call lands under that call.
func (s *session) agentIn(ctx context.Context, cwd string, servers map[string]config.MCPServer) (*frontend.App, error) {
	if !filepath.IsAbs(cwd) {
		return nil, fmt.Errorf("cwd %q: ACP wants an absolute path", cwd)
	}
	cwd = filepath.Clean(cwd)
	if st, err := os.Stat(cwd); err != nil {
		return nil, fmt.Errorf("cwd: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("cwd %s: not a directory", cwd)
	}
	here, err := s.srv.app.In(ctx, cwd, servers)
	if err != nil {
		return nil, err
	}
	here.Agent.Tools = routed(here.Agent.Tools, s)
	s.cwd, s.servers = cwd, servers
	return here, nil
}

// Cancel cancels the session's running turn. The connection has already
// cancelled the prompt's context; this covers a turn the editor cancels
// between the two.
func (srv *server) Cancel(ctx context.Context, p acp.CancelNotification) error {
	srv.mu.Lock()
	s := srv.sessions[string(p.SessionId)]
	srv.mu.Unlock()
	if s != nil {
		s.cancelTurn()
	}
	return nil
}

func (s *session) cancelTurn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// view is the running turn's display, nil between turns.
func (s *session) view() *view {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

func (srv *server) session(id acp.SessionId) (*session, error) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	s := srv.sessions[string(id)]
	if s == nil {
		return nil, errNotFound("session %s: not open (session/new or session/load first)", id)
	}
	return s, nil
}

// sessionsDir is where session files live: $MM_SESSIONS_DIR, else
// $XDG_STATE_HOME/mm/sessions, else ~/.local/state/mm/sessions — state
// rather than data or cache, as the XDG spec files history. It is made on
// first use, readable by its owner only (conversations hold secrets).
func (srv *server) sessionsDir() (string, error) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.dir != "" {
		return srv.dir, nil
	}
	dir, err := sessions.Dir()
	if err != nil {
		return "", err
	}
	srv.dir = dir
	return dir, nil
}

// validID is what newID makes: a session id can name a file in the
// sessions directory and nothing outside it. (At most 100 characters is
// checked apart: a counted repetition makes the expression costly to
// compile, and it compiles when the package initialises, in every mm
// process.)
var validID = idPattern{regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z_-]*$`)}

type idPattern struct{ re *regexp.Regexp }

func (p idPattern) MatchString(id string) bool { return len(id) <= 100 && p.re.MatchString(id) }

// newID is a session id that sorts by creation time, so a listing of the
// sessions directory reads in order.
func newID() string {
	var b [6]byte
	rand.Read(b[:]) // never fails (Go 1.24+)
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}
