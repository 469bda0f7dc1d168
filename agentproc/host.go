package agentproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc"

	"github.com/mm-agent/mm/relay"
)

// Supervisor owns the asked agents' processes of one session: it starts a
// child on first use, reuses it for later asks (concurrent asks to one
// child run concurrently), starts a fresh one after a crash, and stops them
// all with Close. Every method takes the ask's context: Ctrl-C interrupts
// a child that is starting (one that never completes its handshake
// included), and an ask waiting for another's child to start stops
// waiting.
type Supervisor struct {
	Bin string // the mm binary (MM_BIN)
	Dir string // the session's directory: the children's too
	// Env renders the environment of a child at its relay depth (MM_BIN,
	// MM_CONFIG and MM_ASK_DEPTH included); go-plugin adds its handshake.
	Env func(depth int) []string
	// Stderr gets what a child writes to its stderr — its notices about
	// itself (an MCP server that did not start, an unset API key), a
	// panic — each line labelled with the agent's name (nil: discarded).
	Stderr io.Writer
	// Log gets the diagnostics of the children's lives — starts, failed
	// handshakes with go-plugin's own account of them, exits — and
	// go-plugin's log; nil for none (mm --log FILE, MM_LOG).
	Log *slog.Logger
	// StartTimeout bounds a child's start and handshake; 0 for
	// go-plugin's (a minute). The child loads its config and builds its
	// agent after the handshake (Serve): an ask waits for that as long as
	// its context lasts (MCP servers bound their own start).
	StartTimeout time.Duration

	mu       sync.Mutex
	children map[string]*child // by config file and depth (childKey)
	closed   bool
	// stopping counts the children being stopped in the background (one
	// that crashed, or failed to start); Close waits for them.
	stopping sync.WaitGroup
}

var _ relay.Asker = (*Supervisor)(nil)

type child struct {
	ready  chan struct{} // closed once started (or failed to)
	client *plugin.Client
	agent  client // the child's Agent service (grpcPlugin.GRPCClient)
	err    error

	// The process, for a start that is interrupted: go-plugin's own Kill
	// waits for the start to end.
	mu      sync.Mutex
	runner  runner.Runner
	stopped bool // the start was interrupted: do not start the process
}

// Ask runs one ask in the agent's child process, starting it if need be.
// An ask is never sent to a child that is gone: one whose process has
// exited or whose connection is down is replaced by a fresh child (child),
// and a question that could not even be sent — the child died a moment
// before — is sent again, once, to a fresh one. A child whose connection
// broke during an ask is dropped when the ask fails, so the next ask,
// however soon, starts a fresh one.
func (s *Supervisor) Ask(ctx context.Context, req relay.AskRequest) relay.AskResponse {
	for try := 1; ; try++ {
		c, err := s.child(ctx, req)
		if err != nil {
			if ctx.Err() != nil {
				return relay.AskResponse{Status: relay.Cancelled, Error: "cancelled"}
			}
			return relay.AskResponse{Status: relay.Failed, Error: err.Error()}
		}
		start := time.Now()
		resp, undelivered := c.agent.ask(ctx, req)
		s.log().Debug("ask ended", "agent", req.Agent, "askDepth", req.Depth, "status", resp.Status.String(), "took", time.Since(start))
		if resp.Status == relay.Failed && (c.client.Exited() || !c.agent.alive()) {
			s.log().Info("child gone", "agent", req.Agent, "config", req.Config, "error", resp.Error, "undelivered", undelivered)
			s.forget(childKey(req), c)
			if undelivered && try == 1 {
				continue
			}
		}
		return resp
	}
}

// child returns the running child for the agent, starting it if need be;
// it gives up when ctx ends, whether it starts the child or waits for
// another ask that does.
func (s *Supervisor) child(ctx context.Context, req relay.AskRequest) (*child, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, errors.New("the session is ending")
		}
		if s.children == nil {
			s.children = map[string]*child{}
		}
		key := childKey(req)
		c := s.children[key]
		if c == nil {
			c = &child{ready: make(chan struct{})}
			s.children[key] = c
			s.mu.Unlock()
			c.err = s.start(ctx, c, req)
			close(c.ready)
			if c.err != nil {
				s.forget(key, c)
				return nil, c.err
			}
			return c, nil
		}
		s.mu.Unlock()
		select {
		case <-c.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if c.err == nil && !c.client.Exited() && c.agent.alive() {
			return c, nil
		}
		// It failed to start (perhaps its starter was interrupted), or it
		// has died since: start one of our own.
		s.forget(key, c)
	}
}

// childKey is which child answers an ask: one per config file and depth
// (a served agent asks at several depths at once, and a child's depth is
// in its environment, fixed at its start).
func childKey(req relay.AskRequest) string {
	return req.Config + "\x00" + strconv.Itoa(req.Depth)
}

// forget drops c, and stops its process in the background (Close waits
// for it; once Close has begun, forget stops it before returning).
func (s *Supervisor) forget(key string, c *child) {
	s.mu.Lock()
	if s.children[key] == c {
		delete(s.children, key)
	}
	closed := s.closed
	if c.client != nil && !closed {
		s.stopping.Add(1) // under mu: never concurrent with Close's Wait
	}
	s.mu.Unlock()
	switch {
	case c.client == nil:
	case closed:
		c.client.Kill()
	default:
		go func() {
			defer s.stopping.Done()
			c.client.Kill()
		}()
	}
}

// start starts c's process for req and completes the handshake, or gives
// up when ctx ends: the process is then killed, which ends go-plugin's
// wait for its handshake at once.
func (s *Supervisor) start(ctx context.Context, c *child, req relay.AskRequest) error {
	var env []string
	if s.Env != nil {
		env = s.Env(req.Depth)
	} else {
		env = append(os.Environ(), "MM_ASK_DEPTH="+strconv.Itoa(req.Depth))
	}
	var stderr io.Writer = io.Discard
	if s.Stderr != nil {
		stderr = &labelledLines{w: s.Stderr, label: "[" + req.Agent + "] "}
	}
	run := newRunner(s.Bin, []string{ServeCommand, "--config", req.Config}, s.Dir, env)
	var sockDir string // go-plugin's directory for the child's socket (set by its start)
	log := s.log().With("agent", req.Agent, "config", req.Config, "askDepth", req.Depth)
	c.client = plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig: Handshake,
		Plugins:         plugin.PluginSet{"agent": &grpcPlugin{}},
		RunnerFunc: func(l hclog.Logger, cmd *exec.Cmd, dir string) (runner.Runner, error) {
			sockDir = dir
			r, err := run(l, cmd, dir)
			if err != nil {
				return nil, err
			}
			return &guardedRunner{Runner: r, c: c}, nil
		},
		SkipHostEnv:      true,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           pluginLogger(s.Log),
		StartTimeout:     s.StartTimeout,
		Stderr:           stderr, // the child's own fd 2: its notices
		SyncStdout:       io.Discard,
		SyncStderr:       stderr, // what it writes to os.Stderr once served
		GRPCDialOptions:  []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMsg))},
		UnixSocketConfig: &plugin.UnixSocketConfig{TempDir: socketDir()},
	})
	log.Info("starting child", "bin", s.Bin, "dir", s.Dir)
	began := time.Now()
	type started struct {
		rpc plugin.ClientProtocol
		err error
	}
	done := make(chan started, 1)
	go func() { // owned: start waits for it whatever happens
		rpc, err := c.client.Client()
		done <- started{rpc, err}
	}()
	warm() // while the child starts
	var st started
	select {
	case st = <-done:
	case <-ctx.Done():
		c.stop()
		st = <-done // the process is gone: the handshake's wait ends
		log.Info("child start interrupted", "after", time.Since(began))
		return ctx.Err()
	}
	if st.err != nil {
		log.Error("child did not start", "error", st.err.Error(), "after", time.Since(began))
		return s.startError(req, st.err)
	}
	// Connected: the socket's path has served its purpose (the child's
	// listener and the connection live on without it). Removed now, the
	// directory cannot outlive this process however it dies — a kill -9
	// of mm, whose warden then kills the child, used to leave it behind.
	os.RemoveAll(sockDir)
	raw, err := st.rpc.Dispense("agent")
	if err != nil {
		log.Error("child did not start", "error", err.Error())
		return s.startError(req, err)
	}
	c.agent = raw.(client)
	log.Info("child started", "childPid", c.pid(), "took", time.Since(began))
	return nil
}

// startError is a failed start for the user: one line (go-plugin's account
// of a failed handshake runs over several, which the log keeps).
func (s *Supervisor) startError(req relay.AskRequest, err error) error {
	msg, _, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
	if s.Log == nil {
		msg += " (mm --log FILE, or MM_LOG=FILE, records why)"
	}
	return fmt.Errorf("start %s: %s", req.Agent, msg)
}

// guardedRunner is the child's process as go-plugin runs it, so that an
// interrupted start can kill it (or keep it from starting).
type guardedRunner struct {
	runner.Runner
	c *child
}

func (g *guardedRunner) Start(ctx context.Context) error {
	g.c.mu.Lock()
	defer g.c.mu.Unlock()
	if g.c.stopped {
		return errors.New("the ask was cancelled before its agent started")
	}
	if err := g.Runner.Start(ctx); err != nil {
		return err
	}
	g.c.runner = g.Runner
	return nil
}

// stop interrupts c's start: its process is killed, or never started.
func (c *child) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	if c.runner != nil {
		c.runner.Kill(context.Background())
	}
}

func (c *child) pid() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runner == nil {
		return ""
	}
	return c.runner.ID()
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
	s.stopping.Wait()
}

// log is the Supervisor's logger, one that discards without Log.
func (s *Supervisor) log() *slog.Logger {
	if s.Log == nil {
		return discard
	}
	return s.Log
}

var discard = slog.New(slog.DiscardHandler)

// pluginLogger is go-plugin's logger: its records go to log, each with
// the go-plugin logger's name ("from") and its own attributes; none
// without a log (go-plugin logs a great deal, and nothing of it is for the
// user's screen).
func pluginLogger(log *slog.Logger) hclog.Logger {
	if log == nil {
		return hclog.NewNullLogger()
	}
	l := hclog.NewInterceptLogger(&hclog.LoggerOptions{Name: "go-plugin", Level: hclog.Debug, Output: io.Discard})
	l.RegisterSink(slogSink{log})
	return l
}

// slogSink hands hclog's records to a slog.Logger.
type slogSink struct{ l *slog.Logger }

func (s slogSink) Accept(name string, level hclog.Level, msg string, args ...any) {
	lv := slog.LevelDebug
	switch level {
	case hclog.Trace, hclog.NoLevel, hclog.Off:
		return
	case hclog.Info:
		lv = slog.LevelInfo
	case hclog.Warn:
		lv = slog.LevelWarn
	case hclog.Error:
		lv = slog.LevelError
	}
	s.l.Log(context.Background(), lv, msg, append([]any{"from", name}, args...)...)
}

// socketDir is where go-plugin makes the directory of the child's Unix
// socket: a directory in memory when there is one (memDir), else the
// system's temporary directory, unless its path is so long that the
// socket's would pass the 108-byte limit of a socket address (then /tmp).
// On a disk filesystem the directory, go-plugin's placeholder file and the
// socket are three inodes for the journal to allocate and free, in the way
// of every cold relay: 1.2 ms of it on this project's ext4 machines,
// against under 0.05 ms on tmpfs.
func socketDir() string {
	if dir := memDir(); dir != "" {
		return dir
	}
	dir := os.TempDir()
	if len(dir) > 60 {
		if st, err := os.Stat("/tmp"); err == nil && st.IsDir() {
			return "/tmp"
		}
	}
	return dir
}

// labelledLines writes each whole line it is given to w, after label, in
// one Write: go-plugin hands a child's stderr over a line and its newline
// apart, and other output goes to the same terminal between the two.
// A last line without its newline is lost when the child ends; a notice
// always ends with one.
type labelledLines struct {
	w     io.Writer
	label string
	mu    sync.Mutex // go-plugin's two copiers, of fd 2 and of os.Stderr
	buf   []byte
}

func (l *labelledLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := append([]byte(l.label), l.buf[:i+1]...)
		l.buf = l.buf[i+1:]
		if _, err := l.w.Write(line); err != nil {
			return len(p), err
		}
	}
}
