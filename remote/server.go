package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mm-agent/mm/internal/calls"
	"github.com/mm-agent/mm/internal/tracing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// Served is the agent a Server serves: each task is one fresh turn of it
// (no memory between tasks), under the agent's own hooks.
type Served interface {
	Turn(ctx context.Context, t Task) relay.AskResponse
}

// Task is one A2A task as the served agent's turn sees it.
type Task struct {
	ID     string
	Prompt string // the text of the task's message
	Depth  int    // the served agent's relay depth for this task (DepthKey)
	// Show receives what the turn shows: the answer streams to the client
	// as an artifact, the rest as status updates (EventKey).
	Show func(orchestrator.Event)
	// Consent puts the turn's consent questions to the client
	// (input-required) and reads its answer.
	Consent orchestrator.Consent
}

// Card is what the agent card says of the served agent.
type Card struct {
	Name        string
	Description string
	Model       string // <provider>/<model>, announced in ModelExtension
	Version     string // mm's version
}

// Defaults of the serving side.
const (
	// DefaultConsentTimeout is how long a consent question waits for the
	// client's answer before the call is refused (the contract: 5 minutes).
	DefaultConsentTimeout = 5 * time.Minute
	// DefaultStopTimeout bounds the wait, once the server is stopped, for
	// the cancelled turns to end (their postGeneration hooks included).
	DefaultStopTimeout = 10 * time.Second
	// maxRequest bounds one JSON-RPC request: larger is 413 (the
	// contract, "Remote agents that misbehave"). A question is text a
	// person or an agent wrote; 8 MiB of it is about two million tokens.
	maxRequest = 8 << 20
	// maxBodies bounds the bytes of request bodies being served at once,
	// from their first byte read to the end of their request (the turn of
	// a question): the SDK and the turn hold several copies of a question,
	// so large questions wait for their turn instead of all being held at
	// once. Bodies up to smallBody (consent answers, cancels, most
	// questions) are not counted and never wait.
	maxBodies = 8 << 20
	smallBody = 64 << 10
	// DefaultReadTimeout bounds the reading of a request's headers and of
	// its body (a client that trickles them is dropped).
	DefaultReadTimeout = 30 * time.Second
	// DefaultKeepAlive closes a keep-alive connection with no request,
	// and DefaultGuestKeepAlive one that never authenticated (only
	// fetched the public card, or nothing): idle clients without the
	// token must not use up the connections an authorised one needs.
	DefaultKeepAlive      = 60 * time.Second
	DefaultGuestKeepAlive = 10 * time.Second
)

// Server serves one agent over A2A (mm -a2a): the agent card, message/send,
// message/stream, tasks/get and tasks/cancel, through the official SDK's
// handler, task store interface and JSON-RPC transport. Each task is a
// fresh turn, run concurrently with the others.
type Server struct {
	Agent Served
	Card  Card
	// PublicURL, when set, is the card's url: where clients reach the
	// agent from outside (a proxy, a load balancer), path and scheme
	// included (ParsePublicURL). Unset, the url is the request's own,
	// as X-Forwarded-* headers correct it.
	PublicURL *url.URL
	// Token, when set, is required as "Authorization: Bearer <token>" on
	// every JSON-RPC request (401 otherwise); the card stays public.
	Token string
	// MaxDepth is the served agent's maxAskDepth: a task deeper than it
	// fails before the turn starts. 0: no limit.
	MaxDepth int
	// Log gets one line per task; nil: none.
	Log                         io.Writer
	ConsentTimeout, StopTimeout time.Duration // 0: the defaults
	// ReadTimeout, KeepAlive and GuestKeepAlive: 0 for the defaults.
	ReadTimeout, KeepAlive, GuestKeepAlive time.Duration
	// StreamKeepAlive is the silence after which a stream sends an SSE
	// comment; 0: DefaultStreamKeepAlive.
	StreamKeepAlive time.Duration

	once    sync.Once
	store   *store
	base    context.Context // the turns' parent, cancelled by stop
	cancel  context.CancelFunc
	handler http.Handler

	mu      sync.Mutex
	tasks   map[a2a.TaskID]*task
	closing bool
	turns   sync.WaitGroup
	logMu   sync.Mutex

	bodies *budget
	conns  sync.Map // net.Conn → *conn
}

func (s *Server) init() {
	s.once.Do(func() {
		s.store = newStore()
		s.tasks = map[a2a.TaskID]*task{}
		s.bodies = newBudget(maxBodies)
		s.base, s.cancel = context.WithCancel(context.Background())
		quiet := slog.New(slog.DiscardHandler)
		h := a2asrv.NewHandler(executor{s}, a2asrv.WithTaskStore(s.store), a2asrv.WithLogger(quiet),
			a2asrv.WithEventQueueManager(queues{eventqueue.NewInMemoryManager()}))
		mux := http.NewServeMux()
		card := func(w http.ResponseWriter, r *http.Request) {
			a2asrv.NewStaticAgentCardHandler(s.agentCard(r)).ServeHTTP(w, r)
		}
		mux.HandleFunc(a2asrv.WellKnownAgentCardPath, card)
		mux.HandleFunc(legacyCardPath, card)
		mux.Handle("/{$}", s.guard(s.keepAlive(a2asrv.NewJSONRPCHandler(peers{patient{h}}))))
		s.handler = s.deadline(underPublicPath(s.PublicURL, mux))
	})
}

// Handler is the server's HTTP handler: the card at the well-known paths
// (agent-card.json, and agent.json for older clients), JSON-RPC at "/".
func (s *Server) Handler() http.Handler {
	s.init()
	return s.handler
}

// Serve serves on ln until ctx ends; then it refuses new tasks, cancels
// the running ones, waits for their turns to end (bounded by StopTimeout),
// lets the streams deliver their last events, and returns nil.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.init()
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: dur(s.ReadTimeout, DefaultReadTimeout),
		IdleTimeout:       dur(s.KeepAlive, DefaultKeepAlive),
		ErrorLog:          log.New(io.Discard, "", 0),
		ConnContext:       s.connContext,
		ConnState:         s.connState,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		s.Stop()
		return err
	case <-ctx.Done():
	}
	s.Stop()
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if hs.Shutdown(sctx) != nil {
		hs.Close()
	}
	<-errc
	return nil
}

// Stop refuses new tasks, cancels the running turns and waits for them to
// end, at most StopTimeout.
func (s *Server) Stop() {
	s.init()
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.cancel()
	done := make(chan struct{})
	go func() {
		s.turns.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(dur(s.StopTimeout, DefaultStopTimeout)):
	}
}

// Running is the number of tasks whose turn has not ended, for tests and
// benchmarks.
func (s *Server) Running() int {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tasks)
}

func (s *Server) agentCard(r *http.Request) *a2a.AgentCard {
	card := &a2a.AgentCard{
		Name:               s.Card.Name,
		Description:        s.Card.Description,
		URL:                cardURL(s.PublicURL, r),
		PreferredTransport: a2a.TransportProtocolJSONRPC,
		ProtocolVersion:    "0.3.0",
		Version:            s.Card.Version,
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{{
			ID: "ask", Name: "ask " + s.Card.Name, Description: s.Card.Description,
			Tags: []string{"mm"}, InputModes: []string{"text/plain"}, OutputModes: []string{"text/plain"},
		}},
	}
	if s.Card.Model != "" {
		card.Capabilities.Extensions = []a2a.AgentExtension{{
			URI: ModelExtension, Description: "the model this agent runs, <provider>/<model>",
			Params: map[string]any{"model": s.Card.Model},
		}}
	}
	if s.Token != "" {
		card.SecuritySchemes = a2a.NamedSecuritySchemes{"bearer": a2a.HTTPAuthSecurityScheme{Scheme: "bearer"}}
		card.Security = []a2a.SecurityRequirements{{"bearer": a2a.SecuritySchemeScopes{}}}
	}
	return card
}

// streamKey marks the context of a request that waits for its task's
// end — message/stream, and a blocking message/send — with the request's
// own: when the client goes away mid-turn, its task's turn is cancelled
// (the SDK runs executions detached from the request). A non-blocking
// message/send is answered at once and its task goes on: it is not
// marked.
type streamKey struct{}

// guard checks the bearer token and bounds the request, and remembers the
// connection of a streaming request.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.Token != "" && !s.authorised(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mm"`)
			http.Error(w, "unauthorized: this agent needs Authorization: Bearer <its MM_A2A_TOKEN>", http.StatusUnauthorized)
			return
		}
		if c, ok := r.Context().Value(connKey{}).(*conn); ok {
			c.authorised.Store(true)
		}
		if r.Method == http.MethodPost {
			body, release, err := s.readBody(w, r)
			if err != nil {
				return
			}
			defer release()
			// The body is read: a stream may last as long as its turn.
			http.NewResponseController(w).SetReadDeadline(time.Time{})
			r.Body = io.NopCloser(bytes.NewReader(body))
			if waitsForTheEnd(body) {
				r = r.WithContext(context.WithValue(r.Context(), streamKey{}, r.Context()))
			}
		}
		// The asking agent's span, when it sent one, is the parent of the
		// task's turn (start adopts it).
		r = r.WithContext(tracing.Extract(r.Context(), r.Header.Get))
		next.ServeHTTP(w, r)
	})
}

// waitsForTheEnd says the request body is a message/stream, or a
// message/send that blocks (the SDK's default: blocking unless the
// configuration says false). Only a body that names one of the methods is
// decoded for it: a large one is decoded enough times by the SDK.
func waitsForTheEnd(body []byte) bool {
	if !bytes.Contains(body, []byte("message/stream")) && !bytes.Contains(body, []byte("message/send")) {
		return false
	}
	var peek struct {
		Method string `json:"method"`
		Params struct {
			Configuration *struct {
				Blocking *bool `json:"blocking"`
			} `json:"configuration"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &peek) != nil {
		return false
	}
	switch peek.Method {
	case "message/stream":
		return true
	case "message/send":
		c := peek.Params.Configuration
		return c == nil || c.Blocking == nil || *c.Blocking
	}
	return false
}

func (s *Server) logf(format string, args ...any) {
	if s.Log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.Log, "mm -a2a: "+format+"\n", args...)
}

func (s *Server) lookup(id a2a.TaskID) *task {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tasks[id]
}

// ErrEmptyPrompt is why a task whose message has no text is rejected.
const ErrEmptyPrompt = "the prompt is empty: send the question as a text part of the message"

// executor is the SDK's AgentExecutor for the served agent.
type executor struct{ s *Server }

func (e executor) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	if rc.StoredTask == nil {
		return e.s.start(ctx, rc, q)
	}
	return e.s.resume(ctx, rc, q)
}

func (e executor) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	return e.s.cancelTask(ctx, rc, q)
}

// start runs a new task: its turn in a goroutine the server owns, its
// events pumped to this request's queue.
func (s *Server) start(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	depth := depthOf(rc.Message.Metadata)
	info := taskRef(rc.TaskInfo())
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ev := a2a.NewStatusUpdateEvent(info, a2a.TaskStateRejected, agentText(info, "the agent is shutting down"))
		ev.Final = true
		return q.Write(ctx, ev)
	}
	if s.MaxDepth > 0 && depth > s.MaxDepth {
		s.mu.Unlock()
		msg := fmt.Sprintf("%s (%d)", relay.ErrDepth, s.MaxDepth)
		s.logf("task %s depth %d: refused, %s", short(info.TaskID), depth, msg)
		ev := a2a.NewStatusUpdateEvent(info, a2a.TaskStateFailed, agentText(info, msg))
		ev.Final = true
		ev.Metadata = map[string]any{OutcomeKey: toMap(failedOutcome(msg))}
		return q.Write(ctx, ev)
	}
	prompt := textOf(rc.Message.Parts)
	if strings.TrimSpace(prompt) == "" {
		// As mm -p "" is refused: a turn on nothing would only spend the
		// model's time on a guess.
		s.mu.Unlock()
		s.logf("task %s depth %d: refused, %s", short(info.TaskID), depth, ErrEmptyPrompt)
		ev := a2a.NewStatusUpdateEvent(info, a2a.TaskStateRejected, agentText(info, ErrEmptyPrompt))
		ev.Final = true
		ev.Metadata = map[string]any{OutcomeKey: toMap(failedOutcome(ErrEmptyPrompt))}
		return q.Write(ctx, ev)
	}
	t := &task{
		s: s, info: info, depth: depth, prompt: prompt,
		started: time.Now(), finished: make(chan struct{}), pumping: true,
		box: newMailbox(),
	}
	t.ctx, t.cancel = context.WithCancel(tracing.Adopt(s.base, ctx))
	s.tasks[info.TaskID] = t
	s.turns.Add(1)
	s.mu.Unlock()
	go t.run()
	if err := t.begin(ctx, q, firstTask(info, rc.Message, prompt)); err != nil {
		t.detach()
		return err
	}
	return t.pump(ctx, q, watchOf(ctx))
}

// resume is a message on a task waiting for input: the answer to its
// consent question.
func (s *Server) resume(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	info := taskRef(rc.TaskInfo())
	t := s.lookup(info.TaskID)
	if t != nil {
		t.mu.Lock()
		if t.final {
			t = nil
		} else {
			t.pumping = true
		}
		t.mu.Unlock()
	}
	if t == nil {
		ev := a2a.NewStatusUpdateEvent(info, a2a.TaskStateFailed, agentText(info, "this task is no longer running on the agent"))
		ev.Final = true
		return q.Write(ctx, ev)
	}
	if err := t.begin(ctx, q, resumedTask(rc.StoredTask)); err != nil {
		t.detach()
		return err
	}
	t.answer(rc.Message)
	return t.pump(ctx, q, watchOf(ctx))
}

// begin writes the Task a stream begins with, then a status update: the
// SDK keeps the Task it is given as the one it updates in place at the
// next artifact event, while the subscribers still encode it; a status
// update makes it work on a copy from then on.
func (t *task) begin(ctx context.Context, q eventqueue.Queue, first *a2a.Task) error {
	if err := q.Write(ctx, first); err != nil {
		return err
	}
	return q.Write(ctx, a2a.NewStatusUpdateEvent(t.info, a2a.TaskStateWorking, nil))
}

// cancelTask is tasks/cancel: the turn is cancelled, and once it ended
// (postGeneration included) the task is canceled.
func (s *Server) cancelTask(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	info := taskRef(rc.TaskInfo())
	t := s.lookup(info.TaskID)
	if t == nil {
		ev := a2a.NewStatusUpdateEvent(info, a2a.TaskStateCanceled, nil)
		ev.Final = true
		return q.Write(ctx, ev)
	}
	t.mu.Lock()
	t.cancelling = true
	t.mu.Unlock()
	t.cancel()
	select {
	case <-t.finished:
	case <-time.After(dur(s.StopTimeout, DefaultStopTimeout)):
	}
	t.mu.Lock()
	write := !t.pumping && !t.final
	if write {
		t.final = true
	}
	t.mu.Unlock()
	if !write {
		return nil // the running pump writes the end, or it is written
	}
	var err error
	if last := t.lastChunk(); last != nil {
		err = q.Write(ctx, last)
	}
	if err == nil {
		err = q.Write(ctx, t.finalEvent())
	}
	if err != nil {
		// The queue of an execution the SDK is still forgetting: keep the
		// end in the store instead.
		t.settle()
		return nil
	}
	t.finish()
	return nil
}

func watchOf(ctx context.Context) context.Context {
	w, _ := ctx.Value(streamKey{}).(context.Context)
	return w
}

// task is one task whose turn has not ended or whose end is not written.
type task struct {
	s        *Server
	info     taskRef
	depth    int
	prompt   string
	started  time.Time
	ctx      context.Context
	cancel   context.CancelFunc
	box      *mailbox
	finished chan struct{}     // closed when the turn returned
	resp     relay.AskResponse // set before finished is closed

	consentMu sync.Mutex // one consent question at a time

	mu         sync.Mutex
	pending    *pendingQuestion
	pumping    bool // a request is writing this task's events
	cancelling bool // tasks/cancel is ending it
	final      bool // the end is written (or being written)
	artifact   a2a.ArtifactID
	chunks     int  // the answer's artifact updates so far (their SeqKey)
	streamed   bool // some answer text was sent
	once       sync.Once
}

// run is the task's turn; the server owns the goroutine (Stop waits).
func (t *task) run() {
	defer t.s.turns.Done()
	t.resp = t.s.Agent.Turn(t.ctx, Task{
		ID: string(t.info.TaskID), Prompt: t.prompt, Depth: t.depth,
		Show: t.show, Consent: t,
	})
	close(t.finished)
	t.box.put(item{done: true})
	t.mu.Lock()
	headless := !t.pumping && !t.cancelling && !t.final
	if headless {
		t.final = true
	}
	t.mu.Unlock()
	if headless {
		t.settle()
	}
}

func (t *task) show(ev orchestrator.Event) {
	t.box.put(item{ev: ev})
}

// detach says no request writes this task's events any more.
func (t *task) detach() {
	t.mu.Lock()
	t.pumping = false
	t.mu.Unlock()
}

// pump writes the task's events to q until its end or its next question.
// When the streaming client goes away (watch), the turn is cancelled.
func (t *task) pump(ctx context.Context, q eventqueue.Queue, watch context.Context) (err error) {
	defer func() {
		if err != nil {
			t.detach()
		}
	}()
	var gone <-chan struct{}
	if watch != nil {
		gone = watch.Done()
	}
	for {
		items, ok := t.box.take(ctx, gone)
		if !ok {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			t.cancel() // the client went away: nobody reads the answer
			gone = nil
			continue
		}
		items = mergeNested(items)
		var text strings.Builder
		flush := func() error {
			for text.Len() > 0 {
				// Text that piled up while the client read slowly goes in
				// several updates, each fitting the wire.
				chunk := text.String()
				chunk = chunk[:wireCut(chunk, wirePiece)]
				rest := text.String()[len(chunk):]
				text.Reset()
				text.WriteString(rest)
				if err := q.Write(ctx, t.artifactEvent(chunk, false)); err != nil {
					return err
				}
			}
			return nil
		}
		for i, it := range items {
			switch {
			case it.ev.Kind == orchestrator.Text && len(it.ev.Agent) == 0 && !it.done && it.q == nil:
				text.WriteString(it.ev.Text)
				continue
			}
			if err := flush(); err != nil {
				return err
			}
			switch {
			case it.q != nil:
				t.mu.Lock()
				live := t.pending == it.q && t.ctx.Err() == nil
				if live {
					t.pumping = false
				}
				t.mu.Unlock()
				if !live {
					continue // answered, timed out or cancelled meanwhile
				}
				t.box.unshift(items[i+1:])
				return q.Write(ctx, t.questionEvent(it.q))
			case it.done:
				t.mu.Lock()
				if t.final {
					t.mu.Unlock()
					return nil
				}
				t.final, t.pumping = true, false
				t.mu.Unlock()
				if !t.streamed && t.resp.Answer != "" {
					text.WriteString(t.resp.Answer)
					if err := flush(); err != nil {
						return err
					}
				}
				if last := t.lastChunk(); last != nil {
					if err := q.Write(ctx, last); err != nil {
						return err
					}
				}
				err := q.Write(ctx, t.finalEvent())
				t.finish()
				return err
			default:
				if err := t.writeEvent(ctx, q, it.ev); err != nil {
					return err
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
	}
}

// writeEvent writes what the turn showed besides its answer as status
// updates: one, or several when its text (a nested agent's answer, a
// notice) is longer than one fits on the wire.
func (t *task) writeEvent(ctx context.Context, q eventqueue.Queue, ev orchestrator.Event) error {
	pieces := []string{ev.Text}
	if jsonLen(ev.Text) > wirePiece {
		pieces = wirePieces(ev.Text, wirePiece)
	}
	for _, text := range pieces {
		ev.Text = text
		meta, ok := encodeEvent(ev)
		if !ok {
			return nil
		}
		msg := agentText(t.info, wireClip(eventText(ev), wirePiece))
		up := a2a.NewStatusUpdateEvent(t.info, a2a.TaskStateWorking, msg)
		up.Metadata = map[string]any{EventKey: meta}
		if err := q.Write(ctx, up); err != nil {
			return err
		}
	}
	return nil
}

func (t *task) artifactEvent(text string, last bool) *a2a.TaskArtifactUpdateEvent {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.streamed = true
	part := a2a.TextPart{Text: text}
	var ev *a2a.TaskArtifactUpdateEvent
	if t.artifact == "" {
		ev = a2a.NewArtifactEvent(t.info, part)
		ev.Artifact.Name = "answer"
		t.artifact = ev.Artifact.ID
	} else {
		ev = a2a.NewArtifactUpdateEvent(t.info, t.artifact, part)
	}
	t.chunks++
	ev.Artifact.Metadata = map[string]any{SeqKey: t.chunks}
	ev.LastChunk = last
	return ev
}

// lastChunk is the update that ends the answer's artifact (lastChunk:
// true, as A2A 1.0 peers expect), its text empty: the answer streams as
// the model writes, so which piece is its last is known only at the end.
// nil when no answer was sent.
func (t *task) lastChunk() *a2a.TaskArtifactUpdateEvent {
	t.mu.Lock()
	sent := t.artifact != ""
	t.mu.Unlock()
	if !sent {
		return nil
	}
	return t.artifactEvent("", true)
}

// questionEvent puts the task in input-required with the tool call named,
// and ends this request's part (Final) until the client answers.
func (t *task) questionEvent(p *pendingQuestion) *a2a.TaskStatusUpdateEvent {
	msg := agentText(t.info, calls.ConsentQuestion(p.call))
	cq := consentQuestion{Tool: p.call.Tool, Summary: p.call.Summary, CallID: p.call.ID, Path: p.call.Agent, Input: wireInputOf(p.call.Input)}
	msg.Metadata = map[string]any{ConsentKey: toMap(cq)}
	ev := a2a.NewStatusUpdateEvent(t.info, a2a.TaskStateInputRequired, msg)
	ev.Final = true
	ev.Metadata = map[string]any{ConsentKey: toMap(cq)}
	return ev
}

// finalEvent is the task's end as its turn ended; t.finished is closed.
func (t *task) finalEvent() *a2a.TaskStatusUpdateEvent {
	state, out := t.end()
	out.Error = wireClip(out.Error, wireField)
	var msg *a2a.Message
	if out.Error != "" {
		msg = agentText(t.info, out.Error)
	}
	ev := a2a.NewStatusUpdateEvent(t.info, state, msg)
	ev.Final = true
	ev.Metadata = map[string]any{OutcomeKey: toMap(out)}
	return ev
}

func (t *task) end() (a2a.TaskState, outcome) { return toOutcome(t.resp) }

// failedOutcome is the outcome of a task that failed for reason msg.
func failedOutcome(msg string) outcome {
	_, o := toOutcome(relay.AskResponse{Status: relay.Failed, Error: msg})
	return o
}

// settle records the end of a task no request is writing (its client
// stopped reading at a question that then timed out, or the server is
// stopping) straight into the store, so tasks/get tells it.
func (t *task) settle() {
	ctx := context.Background()
	defer t.finish()
	stored, err := t.s.store.Get(ctx, t.info.TaskID)
	if err != nil {
		return
	}
	_, out := t.end()
	art := &a2a.Artifact{ID: t.artifact, Name: "answer", Parts: a2a.ContentParts{a2a.TextPart{Text: t.resp.Answer}}}
	if art.ID == "" {
		art.ID = a2a.NewArtifactID()
	}
	stored.Artifacts = []*a2a.Artifact{art}
	final := t.finalEvent()
	stored.Status = final.Status
	if stored.Metadata == nil {
		stored.Metadata = map[string]any{}
	}
	stored.Metadata[OutcomeKey] = toMap(out)
	t.s.store.Save(ctx, stored)
}

// finish logs the task's line and forgets it.
func (t *task) finish() {
	t.once.Do(func() {
		t.s.mu.Lock()
		delete(t.s.tasks, t.info.TaskID)
		t.s.mu.Unlock()
		r := t.resp
		took := time.Since(t.started).Round(time.Millisecond)
		switch r.Status {
		case relay.Answered:
			t.s.logf("task %s depth %d: answered in %s (%d characters)", short(t.info.TaskID), t.depth, took, len([]rune(r.Answer)))
		case relay.Cancelled:
			t.s.logf("task %s depth %d: cancelled after %s", short(t.info.TaskID), t.depth, took)
		default:
			t.s.logf("task %s depth %d: failed after %s: %s", short(t.info.TaskID), t.depth, took, oneLine(r.Error, 200))
		}
	})
}

// pendingQuestion is a consent question waiting for the client's answer.
type pendingQuestion struct {
	call   orchestrator.Call
	answer chan consentAnswer
}

type consentAnswer struct {
	allow bool
	err   error
}

// Allow puts the question to the client: the task goes to input-required
// and the answer comes as the next message on the task. y or yes allows;
// anything else refuses; no answer within the timeout refuses too.
func (t *task) Allow(ctx context.Context, call orchestrator.Call) (bool, error) {
	t.consentMu.Lock()
	defer t.consentMu.Unlock()
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	p := &pendingQuestion{call: call, answer: make(chan consentAnswer, 1)}
	t.mu.Lock()
	t.pending = p
	t.mu.Unlock()
	t.box.put(item{q: p})
	timer := time.NewTimer(dur(t.s.ConsentTimeout, DefaultConsentTimeout))
	defer timer.Stop()
	select {
	case a := <-p.answer:
		return a.allow, a.err
	case <-timer.C:
		t.mu.Lock()
		if t.pending == p {
			t.pending = nil
		}
		t.mu.Unlock()
		return false, orchestrator.ErrNoOneToAsk
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// answer hands the client's message to the waiting question, if any.
func (t *task) answer(m *a2a.Message) {
	t.mu.Lock()
	p := t.pending
	t.pending = nil
	t.mu.Unlock()
	if p == nil || m == nil {
		return
	}
	a := consentAnswer{}
	switch {
	case m.Metadata[ConsentKey] == ConsentNoOneToAsk:
		a.err = orchestrator.ErrNoOneToAsk
	default:
		switch strings.ToLower(strings.TrimSpace(textOf(m.Parts))) {
		case "y", "yes":
			a.allow = true
		}
	}
	p.answer <- a
}

// mergeNested joins the consecutive pieces of a nested agent's answer, so
// a streamed answer of a relay inside the task is a few status updates, not
// one per piece.
func mergeNested(items []item) []item {
	out := items[:0:0]
	for _, it := range items {
		nested := it.q == nil && !it.done && it.ev.Kind == orchestrator.Text && len(it.ev.Agent) > 0
		if n := len(out); nested && n > 0 {
			last := &out[n-1]
			if last.q == nil && !last.done && last.ev.Kind == orchestrator.Text && slices.Equal(last.ev.Agent, it.ev.Agent) && len(last.ev.Text) < wirePiece {
				last.ev.Text += it.ev.Text
				continue
			}
		}
		out = append(out, it)
	}
	return out
}

// item is one thing the turn produced for the client.
type item struct {
	ev   orchestrator.Event
	q    *pendingQuestion
	done bool
}

// mailbox holds what a turn produced until a request writes it: a turn
// never blocks on a slow client or on a client that is not there (waiting
// to answer a question).
type mailbox struct {
	mu     sync.Mutex
	items  []item
	signal chan struct{}
}

func newMailbox() *mailbox { return &mailbox{signal: make(chan struct{}, 1)} }

func (m *mailbox) put(it item) {
	m.mu.Lock()
	m.items = append(m.items, it)
	m.mu.Unlock()
	select {
	case m.signal <- struct{}{}:
	default:
	}
}

// unshift puts items back in front, in order.
func (m *mailbox) unshift(items []item) {
	if len(items) == 0 {
		return
	}
	m.mu.Lock()
	m.items = append(append([]item(nil), items...), m.items...)
	m.mu.Unlock()
	select {
	case m.signal <- struct{}{}:
	default:
	}
}

// take waits for items; ok is false when ctx ends or gone is closed.
func (m *mailbox) take(ctx context.Context, gone <-chan struct{}) ([]item, bool) {
	for {
		m.mu.Lock()
		if len(m.items) > 0 {
			items := m.items
			m.items = nil
			m.mu.Unlock()
			return items, true
		}
		m.mu.Unlock()
		select {
		case <-m.signal:
		case <-ctx.Done():
			return nil, false
		case <-gone:
			return nil, false
		}
	}
}

// eventText is the status message text of an event, for foreign clients
// that only read text.
func eventText(ev orchestrator.Event) string {
	label := ""
	if len(ev.Agent) > 0 {
		label = "[" + ev.Agent.String() + "] "
	}
	switch ev.Kind {
	case orchestrator.ToolStart:
		return label + calls.ToolLine(ev.Call)
	case orchestrator.ToolDenied:
		return label + hooks.DeniedLine(ev.Call.Tool, ev.Output)
	case orchestrator.ToolEnd:
		return label + ev.Call.Tool + " done"
	}
	return label + ev.Text
}

func agentText(info taskRef, text string) *a2a.Message {
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, info, a2a.TextPart{Text: text})
}

// taskRef names a task for the SDK's event constructors.
type taskRef a2a.TaskInfo

func (r taskRef) TaskInfo() a2a.TaskInfo { return a2a.TaskInfo(r) }

// short is the end of a task's id (ids are UUIDv7: their start is a clock
// and looks alike for tasks of the same minute).
func short(id a2a.TaskID) string {
	if len(id) > 8 {
		return string(id[len(id)-8:])
	}
	return string(id)
}

func dur(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// settling is the SDK's error for a message on a task whose previous
// execution is still being cleaned up: the client read the final event of
// a question (input-required) and answered before the SDK forgot the
// execution that sent it. The SDK has no typed error for it.
const settling = "task execution is already in progress"

// patient retries a message on such a task for a moment instead of
// failing the answer to a consent question, which would leave the turn
// waiting for an answer that never comes.
type patient struct {
	a2asrv.RequestHandler
}

func busy(err error) bool { return err != nil && strings.Contains(err.Error(), settling) }

const (
	patience = 2 * time.Second
	retryGap = 5 * time.Millisecond
)

func (h patient) OnSendMessage(ctx context.Context, p *a2a.MessageSendParams) (a2a.SendMessageResult, error) {
	deadline := time.Now().Add(patience)
	for {
		res, err := h.RequestHandler.OnSendMessage(ctx, p)
		if !busy(err) || p == nil || p.Message == nil || p.Message.TaskID == "" || time.Now().After(deadline) {
			return res, err
		}
		time.Sleep(retryGap)
	}
}

func (h patient) OnSendMessageStream(ctx context.Context, p *a2a.MessageSendParams) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		deadline := time.Now().Add(patience)
		for {
			retry := false
			first := true
			for ev, err := range h.RequestHandler.OnSendMessageStream(ctx, p) {
				if first && busy(err) && p != nil && p.Message != nil && p.Message.TaskID != "" && time.Now().Before(deadline) {
					retry = true
					break
				}
				first = false
				if !yield(ev, err) {
					return
				}
			}
			if !retry || ctx.Err() != nil {
				return
			}
			time.Sleep(retryGap)
		}
	}
}
