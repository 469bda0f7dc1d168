package remote

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/mm-agent/mm/internal/bytesize"
	"github.com/mm-agent/mm/internal/tracing"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// Agent is one remote agent of mmConfigs ({url:, tokenEnv:}) as the relay
// asks it: its card is read once per session from URL, then each ask is a
// message/stream to the card's JSON-RPC endpoint. It is safe for concurrent
// asks.
type Agent struct {
	Name     string // its name in mmConfigs, for messages
	URL      string // the base URL, as written in the config
	Token    string // the bearer token sent with every request; "" for none
	TokenEnv string // where Token came from, for the hint when it is refused
	// ConnectTimeout and IdleTimeout: 0 for the defaults.
	ConnectTimeout, IdleTimeout time.Duration

	mu     sync.Mutex
	hc     *http.Client
	card   *a2a.AgentCard
	client *a2aclient.Client
}

var (
	_ relay.Asker       = (*Agent)(nil)
	_ relay.ModelReader = (*Agent)(nil)
)

// connect returns the client for the agent's card, reading the card on
// first use (a card that could not be read is read again next time).
func (a *Agent) connect(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.client != nil {
		return a.client, a.card, nil
	}
	hc := a.httpClient()
	cctx, cancel := context.WithTimeout(withBodyLimit(ctx, "the agent card", maxCard), cardTimeout)
	defer cancel()
	card, err := agentcard.NewResolver(hc).Resolve(cctx, a.URL)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, a.cardError(err)
	}
	base, err := url.Parse(a.URL)
	if err != nil {
		return nil, nil, fmt.Errorf("mmConfigs.%s.url %q is not a URL: %w", a.Name, a.URL, err)
	}
	ep, err := a.endpoint(card, base)
	if err != nil {
		return nil, nil, err
	}
	// The card says where to send the calls, but the token was given for
	// the configured URL: another origin (another host, port, or http
	// where https was configured) would receive it. Nothing is sent there,
	// whether the card's url or one of its additionalInterfaces names it.
	if u, err := url.Parse(ep); err != nil || originOf(u) != originOf(base) {
		return nil, nil, fmt.Errorf("the agent card at %s names %s for its calls, another origin than %s: mm sends nothing there (fix mmConfigs.%s.url, or the card's url)", a.URL, oneLine(clean(ep), 200), originOf(base), a.Name)
	}
	// The client is made for the one interface chosen; the card itself
	// stays as read.
	chosen := *card
	chosen.URL, chosen.PreferredTransport, chosen.AdditionalInterfaces = ep, a2a.TransportProtocolJSONRPC, nil
	opts := []a2aclient.FactoryOption{
		a2aclient.WithDefaultsDisabled(),
		a2aclient.WithTransport(a2a.TransportProtocolJSONRPC, a2aclient.TransportFactoryFn(
			func(_ context.Context, url string, _ *a2a.AgentCard) (a2aclient.Transport, error) {
				return newStreamTransport(url, hc), nil
			})),
		// The relay's span as W3C traceparent on every call, so that the
		// agent's turn (mm -a2a) is the relay's child in one trace.
		a2aclient.WithInterceptors(traceHeader{}),
	}
	c, err := a2aclient.NewFromCard(ctx, &chosen, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("the agent at %s: %s", a.URL, oneLine(err.Error(), 200))
	}
	a.card, a.client = card, c
	return c, card, nil
}

// Close lets go of the agent's connections (those idle; an ask still
// running keeps its own until it ends). The Agent can still ask: it
// connects again.
func (a *Agent) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.hc != nil {
		a.hc.CloseIdleConnections()
	}
}

// httpClient is made once per Agent so connections are reused across
// asks; a.mu is held.
func (a *Agent) httpClient() *http.Client {
	if a.hc == nil {
		connect, idle := a.ConnectTimeout, a.IdleTimeout
		if connect <= 0 {
			connect = DefaultConnectTimeout
		}
		if idle <= 0 {
			idle = DefaultIdleTimeout
		}
		origin := ""
		if u, err := url.Parse(a.URL); err == nil {
			origin = originOf(u)
		}
		a.hc = newHTTPClient(connect, idle, origin, a.Token)
	}
	return a.hc
}

// AgentModel is the model the card announces in the ModelExtension; ok is
// false when the card cannot be read or announces none.
func (a *Agent) AgentModel(ctx context.Context, _, _ string) (string, bool) {
	_, card, err := a.connect(ctx)
	if err != nil {
		return "", false
	}
	for _, ext := range card.Capabilities.Extensions {
		if ext.URI == ModelExtension {
			if m, ok := ext.Params["model"].(string); ok && clean(m) != "" {
				return clean(m), true
			}
		}
	}
	return "", false
}

// Ask runs one ask as one A2A task: the question sent with message/stream
// and the depth in its metadata; the answer streamed to req.Show as it
// comes; each consent question (input-required) put to req.Consent and
// answered on the same task; Ctrl-C (ctx) sent as tasks/cancel.
func (a *Agent) Ask(ctx context.Context, req relay.AskRequest) relay.AskResponse {
	c, _, err := a.connect(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return relay.AskResponse{Status: relay.Cancelled, Error: "cancelled"}
		}
		return relay.AskResponse{Status: relay.Failed, Error: clean(err.Error())}
	}
	// Every request of this relay from here on (not the card's) says so.
	ctx = withRelay(ctx, rand.Text())
	show := req.Show
	if show == nil {
		show = func(orchestrator.Event) {}
	}
	t := &askTask{ctx: ctx, agent: a, client: c, req: req, show: show}
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: req.Prompt})
	msg.Metadata = map[string]any{DepthKey: req.Depth}
	asked := map[string]bool{} // the consent questions' call ids
	for n := 0; ; n++ {
		resp, q := t.stream(ctx, msg)
		if q == nil {
			return resp
		}
		switch {
		case q.consent == nil:
			// A foreign agent asking for input: mm has none to give beyond
			// the question it sent, and answering anything would only be
			// asked again (a peer that re-asks would loop for ever).
			why := fmt.Sprintf("the agent at %s asks for input mm cannot give", t.agent.URL)
			if q.text != "" {
				why += ": " + oneLine(q.text, 200)
			}
			return t.abandon(ctx, why)
		case n >= maxConsentQuestions:
			return t.abandon(ctx, fmt.Sprintf("the agent at %s asked for consent more than %d times in one task; mm stopped answering", t.agent.URL, maxConsentQuestions))
		case q.consent.CallID != "" && asked[q.consent.CallID]:
			return t.abandon(ctx, fmt.Sprintf("the agent at %s asked again for consent to a call already answered (%s); mm stopped answering", t.agent.URL, q.consent.CallID))
		}
		asked[q.consent.CallID] = true
		msg = t.consent(ctx, q)
		if msg == nil {
			return t.cancelled(ctx)
		}
	}
}

// maxConsentQuestions bounds the consent questions of one remote task: an
// mm peer asks one per tool call, and its maxSteps bounds those, but a
// broken peer that asks on and on must not keep the relay (and the user)
// answering for ever.
const maxConsentQuestions = 256

// askTask is one ask in progress: the task it became and what was shown of
// the answer.
type askTask struct {
	ctx    context.Context // the ask's: done when the user cancelled it
	agent  *Agent
	client *a2aclient.Client
	req    relay.AskRequest
	show   func(orchestrator.Event)

	taskID    a2a.TaskID
	contextID string
	answer    answerText
	// answered: some answer text arrived as artifacts (a final status
	// message then is not the answer again).
	answered bool
	// tooLarge: the answer went past maxAnswer.
	tooLarge bool
	// saidText: what became of the text of working status messages
	// (conversational agents answer so: said.go).
	saidText saidState
}

// question is an input-required status the asking side must answer.
type question struct {
	text    string
	consent *consentQuestion // nil: a foreign agent asking for input
}

// stream sends msg and reads the task's events until its end (a response)
// or a question.
//
// The stream outlives a Ctrl-C (ctx) for a moment: tasks/cancel needs the
// task's id, which only the stream's first event gives, so when the user
// cancels before it came, the stream is read on for up to cancelTimeout to
// learn it; then the task is cancelled and the stream closed.
func (t *askTask) stream(ctx context.Context, msg *a2a.Message) (relay.AskResponse, *question) {
	sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	named := make(chan struct{}) // closed once the task has an id
	if t.taskID != "" {
		close(named)
	}
	go func() {
		select {
		case <-ctx.Done():
			select {
			case <-named:
			case <-time.After(cancelTimeout):
			case <-sctx.Done():
			}
			stop()
		case <-sctx.Done():
		}
	}()
	for ev, err := range t.client.SendStreamingMessage(sctx, &a2a.MessageSendParams{Message: msg}) {
		if err != nil {
			if ctx.Err() != nil {
				return t.cancelled(ctx), nil
			}
			// The task may still run on the agent, perhaps waiting for a
			// consent answer that will not come: it is cancelled there.
			if t.taskID != "" && isTaskNotFound(err) {
				// Another backend than the task's answered: no retry
				// would find it either.
				return t.abandon(ctx, t.agent.unknownTask(t.taskID)), nil
			}
			return t.abandon(ctx, clean(t.agent.wireError(err))), nil
		}
		had := t.taskID != ""
		resp, q, done := t.handle(ev)
		if !had && t.taskID != "" {
			close(named)
		}
		if t.tooLarge {
			// What was held of it goes: the relay fails on its size.
			t.answer = answerText{}
			return t.abandon(ctx, fmt.Sprintf("the answer of the agent at %s is larger than %s: the relay stopped there", t.agent.URL, bytesize.Name(maxAnswer))), nil
		}
		if ctx.Err() != nil && (t.taskID != "" || done) {
			return t.cancelled(ctx), nil
		}
		if done {
			return resp, q
		}
	}
	if ctx.Err() != nil {
		return t.cancelled(ctx), nil
	}
	return t.abandon(ctx, fmt.Sprintf("the agent at %s dropped the stream before the task ended", t.agent.URL)), nil
}

// handle applies one event; done says the stream's part is over.
func (t *askTask) handle(ev a2a.Event) (resp relay.AskResponse, q *question, done bool) {
	switch e := ev.(type) {
	case *a2a.Message:
		// An agent that answers with a message instead of a task: its
		// text is the answer, as a completed task's final message.
		return t.completed(textOf(e.Parts)), nil, true
	case *a2a.Task:
		t.taskID, t.contextID = e.ID, e.ContextID
		if e.Status.State.Terminal() || e.Status.State == a2a.TaskStateInputRequired || e.Status.State == a2a.TaskStateAuthRequired {
			if !t.answered {
				for _, art := range e.Artifacts {
					t.text(string(art.ID), textOf(art.Parts), false)
				}
			}
			return t.status(e.Status, e.Metadata)
		}
	case *a2a.TaskArtifactUpdateEvent:
		t.taskID, t.contextID = e.TaskID, e.ContextID
		if e.Artifact != nil {
			t.text(string(e.Artifact.ID), textOf(e.Artifact.Parts), e.Append)
		}
	case *a2a.TaskStatusUpdateEvent:
		t.taskID, t.contextID = e.TaskID, e.ContextID
		return t.status(e.Status, e.Metadata)
	}
	return relay.AskResponse{}, nil, false
}

// status applies a task status; done for a final one or a question.
func (t *askTask) status(st a2a.TaskStatus, meta map[string]any) (relay.AskResponse, *question, bool) {
	msgText, msgMeta := "", map[string]any(nil)
	if st.Message != nil {
		msgText, msgMeta = clean(textOf(st.Message.Parts)), st.Message.Metadata
	}
	lookup := func(key string) any {
		if v, ok := meta[key]; ok {
			return v
		}
		return msgMeta[key]
	}
	var out outcome
	mmOutcome := fromAny(lookup(OutcomeKey), &out)
	switch st.State {
	case a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateUnspecified:
		if ev, ok := decodeEvent(lookup(EventKey)); ok {
			t.show(cleanEvent(ev))
		} else {
			t.said(msgText, st.Message, lookup)
		}
		return relay.AskResponse{}, nil, false
	case a2a.TaskStateCompleted:
		return t.completed(msgText), nil, true
	case a2a.TaskStateCanceled:
		t.settle(false)
		if t.ctx.Err() == nil {
			// Not cancelled from here: the agent is stopping, or another
			// client cancelled the task. For the asking agent, a failure.
			return t.failed(fmt.Sprintf("the agent at %s cancelled the task before it answered (it may be stopping)", t.agent.URL)), nil, true
		}
		return relay.AskResponse{Status: relay.Cancelled, Answer: t.answer.String(), Error: "cancelled"}, nil, true
	case a2a.TaskStateInputRequired:
		q := &question{text: msgText}
		var cq consentQuestion
		if fromAny(lookup(ConsentKey), &cq) && cq.Tool != "" {
			// A consent question is one line the user answers: a newline
			// in it could draw a question of its own under it. What else
			// the remote hid in it is kept, for the question to write it
			// out (calls.ConsentQuestion): the user sees what they allow.
			cq.Tool, cq.Summary = flatKeep(cq.Tool), flatKeep(cq.Summary)
			for i := range cq.Path {
				cq.Path[i] = flatLine(cq.Path[i])
			}
			q.consent = &cq
		} else if strings.TrimSpace(msgText) == "" && onlyText(st.Message) {
			// No question: a conversational agent's turn is over.
			if resp, ok := t.ended(); ok {
				return resp, nil, true
			}
		}
		t.settle(false)
		return relay.AskResponse{}, q, true
	case a2a.TaskStateAuthRequired:
		t.settle(false)
		return t.failed(fmt.Sprintf("the agent at %s asks for an authentication mm cannot give", t.agent.URL)), nil, true
	}
	// failed, rejected, unknown
	if resp, ok := t.failure(); ok {
		return resp, nil, true
	}
	t.settle(false)
	if mmOutcome {
		// An mm peer: its outcome is typed like a local child's.
		resp := relay.AskResponse{Status: fromOutcome(out), Answer: t.answer.String(), Error: clean(out.Error)}
		switch resp.Status {
		case relay.Answered, relay.Cancelled: // not with a failed state
			resp.Status = relay.Failed
		case relay.CutOff:
			resp.CutOff = out.CutOff
		}
		if resp.Error == "" {
			resp.Error = fmt.Sprintf("%s failed", t.agent.Name)
		}
		return resp, nil, true
	}
	why := strings.TrimSpace(msgText)
	if why == "" {
		why = "task " + string(st.State)
	}
	return t.failed(fmt.Sprintf("the agent at %s failed: %s", t.agent.URL, oneLine(why, 300))), nil, true
}

// consent puts the consent question q to the asking mm's user and returns
// the answer message for the task; nil when the ask was cancelled
// meanwhile.
func (t *askTask) consent(ctx context.Context, q *question) *a2a.Message {
	answer, noOne := "n", false
	if t.req.Consent == nil {
		noOne = true
	} else {
		// The asking relay adds the asked agent to the path, as for a
		// local child.
		call := orchestrator.Call{
			ID: q.consent.CallID, Tool: q.consent.Tool, Agent: q.consent.Path,
			Summary: q.consent.Summary, Input: q.consent.Input,
		}
		ok, err := t.req.Consent.Allow(ctx, call)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			noOne = true
		case ok:
			answer = "y"
		}
	}
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: answer})
	msg.TaskID, msg.ContextID = t.taskID, t.contextID
	msg.Metadata = map[string]any{DepthKey: t.req.Depth}
	if noOne {
		msg.Metadata[ConsentKey] = ConsentNoOneToAsk
	}
	return msg
}

// text applies answer text: s for the artifact id ("" for text that is
// no artifact's: a message, a final status), appended to what the
// artifact had or replacing it; what reads on from what was shown is
// shown.
func (t *askTask) text(id, s string, appendTo bool) {
	s = clean(s)
	if s == "" && (appendTo || id == "") {
		return
	}
	if id != "" && id != saidID && t.toArtifacts(id) {
		appendTo = false
	}
	if t.answer.n+len(s) > maxAnswer {
		t.tooLarge = true
		return
	}
	t.answered = true
	if more := t.answer.put(id, s, appendTo); more != "" {
		t.show(orchestrator.Event{Kind: orchestrator.Text, Text: more})
	}
}

// answeredResp ends an answered ask. When the agent rewrote text already
// shown, the display stopped at the rewrite; the answer is then shown
// again in full on a line of its own, after a notice saying why, so what
// the user reads last is what the asking agent gets.
func (t *askTask) answeredResp() relay.AskResponse {
	full := t.answer.String()
	if t.answer.stale {
		t.show(orchestrator.Event{Kind: orchestrator.Notice, Text: "the agent rewrote its answer as it went; its final answer:"})
		t.show(orchestrator.Event{Kind: orchestrator.Text, Text: "\n" + full})
		t.answer.stale = false
	}
	return relay.AskResponse{Status: relay.Answered, Answer: full}
}

// answerText is a task's answer as its artifacts make it: each artifact's
// text in the order the artifacts first came, an update with append false
// (or absent) replacing the text its artifact had — A2A's rule — and one
// with append true adding to it.
type answerText struct {
	pieces []*textRun
	byID   map[string]*textRun
	n      int // the answer's length, bytes
	// stale: text already shown was since replaced, so the display no
	// longer reads as the start of the answer and shows nothing more.
	stale bool
}

// put applies one update and returns the text to show now: what it adds
// at the end of the answer as shown so far ("" once stale).
func (a *answerText) put(id, s string, appendTo bool) string {
	p := a.byID[id]
	if id == "" || p == nil {
		p = &textRun{}
		a.pieces = append(a.pieces, p)
		if id != "" {
			if a.byID == nil {
				a.byID = map[string]*textRun{}
			}
			a.byID[id] = p
		}
		appendTo = true
	}
	last := p == a.pieces[len(a.pieces)-1]
	if appendTo {
		a.n += len(s)
		p.WriteString(s)
		switch {
		case a.stale:
			return ""
		case last:
			return s
		case s != "":
			a.stale = true // text in the middle of what was shown
		}
		return ""
	}
	old := p.String()
	a.n += len(s) - len(old)
	p.Reset()
	p.WriteString(s)
	switch {
	case a.stale || s == old:
		return ""
	case last && strings.HasPrefix(s, old):
		return s[len(old):] // a rewrite that only adds: still the same start
	}
	a.stale = true
	return ""
}

func (a *answerText) String() string {
	var b strings.Builder
	b.Grow(a.n)
	for _, p := range a.pieces {
		for _, s := range p.parts {
			b.WriteString(s)
		}
	}
	return b.String()
}

// textRun is one artifact's text as the strings that came, joined only
// when asked: an answer of many megabytes in many updates is not copied
// again at each (a builder grows by a quarter at a time when large).
type textRun struct{ parts []string }

func (r *textRun) WriteString(s string) { r.parts = append(r.parts, s) }

func (r *textRun) Reset() { r.parts = nil }

func (r *textRun) String() string { return strings.Join(r.parts, "") }

func (t *askTask) failed(msg string) relay.AskResponse {
	return relay.AskResponse{Status: relay.Failed, Answer: t.answer.String(), Error: msg}
}

// cancelled ends an ask the user interrupted: the remote turn is cancelled
// with tasks/cancel (bounded: Ctrl-C must not hang on a dead peer). A
// cancel that reached a backend without the task fails the relay saying
// so: the turn goes on elsewhere, and the user must know.
func (t *askTask) cancelled(ctx context.Context) relay.AskResponse {
	if t.taskID != "" {
		cctx, cancel := withoutCancelTimeout(ctx, cancelTimeout)
		_, err := t.client.CancelTask(cctx, &a2a.TaskIDParams{ID: t.taskID})
		cancel()
		if isTaskNotFound(err) {
			return t.failed(t.agent.unknownTask(t.taskID))
		}
	}
	return relay.AskResponse{Status: relay.Cancelled, Answer: t.answer.String(), Error: "cancelled"}
}

// cleanEvent is ev from an mm peer with its text made safe to print.
func cleanEvent(ev orchestrator.Event) orchestrator.Event {
	ev.Text, ev.Reason, ev.Output, ev.Summary = clean(ev.Text), clean(ev.Reason), clean(ev.Output), clean(ev.Summary)
	ev.Call.Tool, ev.Call.Summary = clean(ev.Call.Tool), clean(ev.Call.Summary)
	if len(ev.Agent) > 0 {
		path := make(orchestrator.Path, len(ev.Agent))
		for i, name := range ev.Agent {
			path[i] = clean(name)
		}
		ev.Agent = path
	}
	return ev
}

// abandon ends an ask mm cannot go on with as a failed relay: the task,
// left waiting on the agent, is cancelled there (bounded, as for Ctrl-C).
func (t *askTask) abandon(ctx context.Context, why string) relay.AskResponse {
	if t.taskID != "" {
		cctx, cancel := withoutCancelTimeout(ctx, cancelTimeout)
		t.client.CancelTask(cctx, &a2a.TaskIDParams{ID: t.taskID})
		cancel()
	}
	if ctx.Err() != nil {
		return relay.AskResponse{Status: relay.Cancelled, Answer: t.answer.String(), Error: "cancelled"}
	}
	return t.failed(why)
}

// cardError says why the card at a.URL could not be read.
func (a *Agent) cardError(err error) error {
	var se *statusError
	var nf *agentcard.ErrStatusNotOK
	var tl *tooLargeError
	switch {
	case errors.As(err, &tl):
		return fmt.Errorf("the agent card at %s is larger than %s: mm reads no further", a.URL, bytesize.Name(tl.limit))
	case errors.As(err, &se) && (se.code == 401 || se.code == 403):
		return errors.New(a.refused(se))
	case errors.As(err, &se):
		return fmt.Errorf("no agent card at %s (%s)", a.URL, se)
	case errors.As(err, &nf):
		return fmt.Errorf("no agent card at %s (HTTP %s)", a.URL, nf.Status)
	case isNetError(err):
		return fmt.Errorf("cannot reach the agent at %s (%s); start it (mm -a2a), or fix mmConfigs.%s.url", a.URL, shortCause(err), a.Name)
	}
	return fmt.Errorf("the agent at %s has no readable agent card: %s", a.URL, oneLine(err.Error(), 200))
}

// wireError says why a call to the agent failed.
func (a *Agent) wireError(err error) string {
	var se *statusError
	var ie *idleError
	var re *rpcError
	var tl *tooLargeError
	switch {
	case errors.As(err, &tl):
		return fmt.Sprintf("the agent at %s sent %s larger than %s: the relay stopped there", a.URL, tl.what, bytesize.Name(tl.limit))
	case errors.As(err, &re):
		return fmt.Sprintf("the agent at %s answered an error: %s", a.URL, oneLine(re.Error(), 300))
	case errors.As(err, &ie):
		return fmt.Sprintf("the agent at %s sent nothing for %s (idleTimeout); the stream was dropped", a.URL, ie.after)
	case errors.As(err, &se) && (se.code == 401 || se.code == 403):
		return a.refused(se)
	case errors.As(err, &se):
		return fmt.Sprintf("the agent at %s answered %s", a.URL, se)
	case isNetError(err):
		return fmt.Sprintf("the agent at %s could not be reached or dropped the connection (%s)", a.URL, shortCause(err))
	}
	return fmt.Sprintf("the agent at %s answered an error: %s", a.URL, oneLine(err.Error(), 300))
}

func (a *Agent) refused(se *statusError) string {
	hint := fmt.Sprintf("give mmConfigs.%s a tokenEnv: naming the variable that holds its MM_A2A_TOKEN", a.Name)
	switch {
	case a.TokenEnv != "" && a.Token == "":
		hint = a.TokenEnv + " is not set"
	case a.TokenEnv != "":
		hint = "check the token in " + a.TokenEnv
	}
	return fmt.Sprintf("the agent at %s refused the request (%s): %s", a.URL, se, hint)
}

// traceHeader sends the relay's span as W3C traceparent with every call,
// so that the agent's turn (mm -a2a) is the relay's child in one trace.
type traceHeader struct {
	a2aclient.PassthroughInterceptor
}

func (traceHeader) Before(ctx context.Context, req *a2aclient.Request) (context.Context, error) {
	for k, v := range tracing.Inject(ctx) {
		req.Meta[k] = []string{v}
	}
	return ctx, nil
}
