// Package relay is one ask: an agent handing a question to another agent
// of its mmConfigs, whatever the way (the ask_agent tool, /ask… in a
// session, mm --ask). It builds the ask object, runs the asking agent's
// preAsk and postAsk hooks around the asked agent's turn, streams what the
// asked agent writes to the display, and hands back what the asking agent
// reads. How the asked agent is reached — a child process (agentproc) or
// an agent on another machine (remote) — is behind the Asker interface.
//
// A relay's outcome is typed end to end: the asked agent's turn ends
// Answered, Failed, Cancelled, MaxSteps or CutOff (FromTurn), crosses the
// process or the network as such (AskResponse), and is an *Error on the
// asking side that errors.Is sees through — orchestrator.ErrMaxSteps for
// a child stopped at maxSteps — never a string to parse. What the asked
// agent shows reaches the display labelled with its orchestrator.Path.
package relay

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/tracing"
	"github.com/mm-agent/mm/orchestrator"
)

// Via says which way a relay was started (the ask object's via).
type Via string

// The three ways.
const (
	ViaTool    Via = "tool"    // the ask_agent tool
	ViaCommand Via = "command" // /ask, /ask-<name>, /ask-with-context-<name>
	ViaCLI     Via = "cli"     // mm --ask, mm --ask-with-context
)

// Status is how an asked agent's turn ended.
type Status int

// The typed outcomes of a relay: an answer is never cut silently.
const (
	Answered Status = iota
	Failed
	Cancelled
	MaxSteps
	// CutOff: the asked agent's answer did not end (its model's output
	// token limit); the asking agent reads it followed by the marker, and
	// postAsk's error says so.
	CutOff
)

var statusNames = [...]string{Answered: "answered", Failed: "failed", Cancelled: "cancelled", MaxSteps: "maxSteps", CutOff: "cutOff"}

// String is the status's name, for logs.
func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// AskRequest is what an Asker needs to run one ask.
type AskRequest struct {
	Agent  string // its name in mmConfigs
	Config string // its config file, absolute, or a remote agent's URL
	Depth  int    // the asked agent's depth (the asking one's + 1)
	// Prompt is everything the asked agent's turn gets: the conversation
	// (withContext), the question, the preAsk contexts.
	Prompt string
	// Show displays what the asked agent shows, as it happens.
	Show func(orchestrator.Event)
	// Consent answers the asked agent's consent questions (the front end
	// of the agent a person started, possibly through several relays).
	Consent orchestrator.Consent
}

// AskResponse is how the asked agent's turn ended. It crosses process
// boundaries (the child protocol, A2A) as it is: a status, the answer, a
// message — so that the asking side types the outcome as the asked side
// did (Err).
type AskResponse struct {
	Status Status
	Answer string // the complete answer (partial when cancelled or failed)
	Error  string // why it did not answer, as postAsk's error reads it
	// CutOff, for Status CutOff, is why the answer did not end
	// (orchestrator.OutputLimit): the asking agent reads the marker
	// "[answer cut off: <CutOff>]" after it.
	CutOff string
}

// Err is the response's outcome as an error: nil for an answer, else an
// *Error that errors.Is sees through — orchestrator.ErrMaxSteps for an
// asked agent stopped at maxSteps, orchestrator.ErrCutOff for an answer
// cut off, context.Canceled for a cancelled one — whichever process or
// machine the asked agent ran on.
func (r AskResponse) Err() error {
	if r.Status == Answered {
		return nil
	}
	return &Error{Status: r.Status, Msg: r.Error}
}

// Error is a relay that did not answer: how the asked agent's turn ended
// and what it said of it.
type Error struct {
	Status Status // Failed, Cancelled, MaxSteps or CutOff
	Msg    string // as postAsk's error reads it
}

func (e *Error) Error() string { return e.Msg }

// Unwrap is the sentinel of the outcome, nil for a plain failure.
func (e *Error) Unwrap() error {
	switch e.Status {
	case MaxSteps:
		return orchestrator.ErrMaxSteps
	case CutOff:
		return orchestrator.ErrCutOff
	case Cancelled:
		return context.Canceled
	}
	return nil
}

// Asker runs asks in asked agents: local child processes
// (agentproc.Supervisor) or agents on other machines (remote.Agent).
type Asker interface {
	Ask(ctx context.Context, req AskRequest) AskResponse
}

// ModelReader is an Asker that can tell the ask object's agentModel better
// than the agent's config file: a remote agent announces its model on its
// card. ok is false when the model is not known.
type ModelReader interface {
	AgentModel(ctx context.Context, agent, config string) (model string, ok bool)
}

// Router sends each ask to the Asker of its agent, so a Relay never knows
// which kind of agent it talks to.
type Router struct {
	ByAgent map[string]Asker // agents with an Asker of their own
	Default Asker            // every other agent
}

var (
	_ Asker       = (*Router)(nil)
	_ ModelReader = (*Router)(nil)
)

func (r *Router) asker(agent string) Asker {
	if a, ok := r.ByAgent[agent]; ok {
		return a
	}
	return r.Default
}

// Ask runs the ask with the agent's Asker.
func (r *Router) Ask(ctx context.Context, req AskRequest) AskResponse {
	a := r.asker(req.Agent)
	if a == nil {
		return AskResponse{Status: Failed, Error: fmt.Sprintf("no way to ask %s", req.Agent)}
	}
	return a.Ask(ctx, req)
}

// AgentModel asks the agent's Asker when it can tell, else reads the
// agent's config file.
func (r *Router) AgentModel(ctx context.Context, agent, config string) (string, bool) {
	return agentModel(ctx, r.asker(agent), agent, config)
}

func agentModel(ctx context.Context, a Asker, agent, cfg string) (string, bool) {
	if mr, ok := a.(ModelReader); ok {
		return mr.AgentModel(ctx, agent, cfg)
	}
	return config.ModelOf(cfg)
}

// Relay is one agent's ability to ask the agents of its mmConfigs.
type Relay struct {
	Agents   map[string]string // name → config file, absolute (a remote agent's URL)
	Hooks    *hooks.Runner     // the asking agent's: preAsk and postAsk
	Asker    Asker
	Depth    int // the asking agent's depth
	MaxDepth int // maxAskDepth
}

// Request is one relay.
type Request struct {
	Agent       string
	Question    string
	WithContext bool
	Transcript  string // the conversation, sent with WithContext
	Via         Via
	// Show displays the asked agent's events (labelled with its name) and
	// the relay's notices; nil shows nothing.
	Show func(orchestrator.Event)
	// Consent answers the asked agent's consent questions: the front end
	// that asks (the caller's, as Show is); nil refuses every call that
	// needs one.
	Consent orchestrator.Consent
	// Twin, when not 0, is the rank of this relay among those of one model
	// reply to the same agent (orchestrator.Turn.Twin): they run at the
	// same time, and what each shows is labelled "<agent>#<twin>".
	Twin int
}

// Label is how the display names the asked agent of a relay: its name, or
// "<name>#<n>" for the nth of several relays of one reply to it.
func Label(agent string, twin int) string {
	if twin == 0 {
		return agent
	}
	return agent + "#" + strconv.Itoa(twin)
}

// Result is what a relay produced.
type Result struct {
	// Denied: a preAsk hook refused the relay (Reason says why); the asked
	// agent was neither started nor asked.
	Denied bool
	Reason string
	// Status of the asked agent's turn, as postAsk left it: a failed relay
	// whose answer a postAsk hook replaced counts as answered.
	Status Status
	// Answer is what the asking agent reads: the asked agent's answer, or
	// the postAsk replacement, then each postAsk context.
	Answer string
	// Err is why the relay failed (not denied, not answered).
	Err error
	// Sent is the question as it was sent (after preAsk), which /ask…
	// keeps in the history.
	Sent string
	// Replaced: a postAsk hook replaced the answer; ReplacedLen is the
	// replacement's length in characters.
	Replaced    bool
	ReplacedLen int
}

// ErrDepth is the error of a relay that would go deeper than maxAskDepth.
var ErrDepth = errors.New("ask depth limit reached")

// Ask runs one relay: preAsk, the asked agent's turn, postAsk.
func (r *Relay) Ask(ctx context.Context, req Request) (res Result) {
	ctx, span := tracing.Start(ctx, "mm.ask "+req.Agent, tracing.Client,
		tracing.String("mm.ask.agent", req.Agent), tracing.String("mm.ask.via", string(req.Via)),
		tracing.Int("mm.ask.depth", r.Depth+1), tracing.Bool("mm.ask.with_context", req.WithContext))
	span.SetContent(tracing.String("mm.ask.question", req.Question))
	defer func() { endSpan(span, res) }()
	show := req.Show
	if show == nil {
		show = func(orchestrator.Event) {}
	}
	cfgPath, ok := r.Agents[req.Agent]
	if !ok {
		return Result{Status: Failed, Err: fmt.Errorf("unknown agent %q (%s)", req.Agent, r.known())}
	}
	if r.Depth+1 > r.MaxDepth {
		return Result{Status: Failed, Err: fmt.Errorf("%w (%d)", ErrDepth, r.MaxDepth)}
	}
	ask := &hooks.Ask{
		Agent: req.Agent, Config: cfgPath, Via: string(req.Via),
		WithContext: req.WithContext, Depth: r.Depth, Prompt: req.Question,
	}
	if m, ok := agentModel(ctx, r.Asker, req.Agent, cfgPath); ok {
		ask.AgentModel = m
	}
	if req.WithContext {
		ask.Transcript = req.Transcript
	}
	pre := r.Hooks.Run(ctx, hooks.Input{Event: hooks.PreAsk, Ask: ask}, req.Agent)
	r.showRuns(pre.Runs, show)
	if pre.Deny {
		res.Denied, res.Reason = true, pre.Reason
		return res
	}
	if pre.Prompt != nil {
		ask.Prompt = *pre.Prompt
	}
	// "transcript: the conversation sent (withContext only); absent
	// otherwise": a relay without the conversation sends none, whatever a
	// preAsk hook answered.
	if pre.Transcript != nil && req.WithContext {
		ask.Transcript = *pre.Transcript
	}
	res.Sent = ask.Prompt

	consent := req.Consent
	start := time.Now()
	name := Label(req.Agent, req.Twin)
	label := func(ev orchestrator.Event) {
		ev.Agent = ev.Agent.Of(name)
		show(ev)
	}
	if consent != nil {
		consent = pathConsent{consent, req.Agent}
	}
	show(orchestrator.Event{Kind: orchestrator.AskStart, Agent: orchestrator.Path{name},
		Ask: &orchestrator.AskInfo{Via: string(req.Via), WithContext: req.WithContext}})
	resp := r.Asker.Ask(ctx, AskRequest{
		Agent: req.Agent, Config: cfgPath, Depth: r.Depth + 1,
		Prompt:  hooks.WithContexts(Message(ask.Transcript, ask.Prompt), pre.Contexts),
		Show:    label,
		Consent: consent,
	})
	if resp.Status == Answered && ctx.Err() != nil {
		resp.Status, resp.Error = Cancelled, "cancelled"
	}
	show(orchestrator.Event{Kind: orchestrator.AskEnd, Agent: orchestrator.Path{name},
		Ask: &orchestrator.AskInfo{Via: string(req.Via), WithContext: req.WithContext, Err: resp.Err()}})
	in := hooks.Input{
		Event: hooks.PostAsk, Ask: ask, Answer: resp.Answer,
		Error: resp.Error, DurationMs: max(time.Since(start).Milliseconds(), 1),
	}
	post := r.Hooks.Run(ctx, in, req.Agent)
	r.showRuns(post.Runs, show)

	res.Status, res.Answer = resp.Status, resp.Answer
	if post.Answer != nil && resp.Status != Cancelled {
		res.Status, res.Answer, res.Replaced = Answered, *post.Answer, true
		res.ReplacedLen = utf8.RuneCountInString(res.Answer)
		show(orchestrator.Event{Kind: orchestrator.Notice, Text: ReplacedNotice(req.Agent)})
	}
	if res.Status == CutOff {
		// An answer is never cut silently: the asking agent reads the
		// marker after it, as the asked agent's history keeps it.
		res.Err = resp.Err()
		cause := resp.CutOff
		if cause == "" {
			cause = orchestrator.OutputLimit
		}
		if res.Answer == "" {
			res.Answer = orchestrator.CutOffMarker(cause)
		} else {
			res.Answer += "\n\n" + orchestrator.CutOffMarker(cause)
		}
		res.Answer = hooks.WithContexts(res.Answer, post.Contexts)
		return res
	}
	if res.Status != Answered {
		res.Err = resp.Err()
		return res
	}
	res.Answer = hooks.WithContexts(res.Answer, post.Contexts)
	return res
}

// endSpan records how a relay ended on its span: mm.ask.status is
// answered, failed, cancelled, maxSteps, cutOff or denied (by a preAsk
// hook), and every status but answered is the span's error.
func endSpan(span *tracing.Span, res Result) {
	if span == nil {
		return
	}
	status := res.Status.String()
	if res.Denied {
		status = "denied"
	}
	span.Set(tracing.String("mm.ask.status", status))
	span.SetContent(tracing.String("mm.ask.answer", res.Answer))
	switch {
	case res.Denied:
		span.Fail("denied by a hook: " + res.Reason)
	case res.Err != nil:
		span.Fail(status + ": " + res.Err.Error())
	default:
		span.OK()
	}
	span.End()
}

// pathConsent puts an asked agent's consent questions through c, each
// call's Agent path starting with the asked agent's name (the name, not
// its twin's label: "always allow expert › bash" is for every relay to
// expert).
type pathConsent struct {
	c     orchestrator.Consent
	agent string
}

func (p pathConsent) Allow(ctx context.Context, call orchestrator.Call) (bool, error) {
	call.Agent = call.Agent.Of(p.agent)
	return p.c.Allow(ctx, call)
}

// Message is the asked agent's question: the conversation first when one
// is sent.
func Message(transcript, prompt string) string {
	if transcript == "" {
		return prompt
	}
	return transcript + "\n\n" + prompt
}

// showRuns shows each run (a turn lists them with displayHooks) and its
// failure line.
func (r *Relay) showRuns(runs []hooks.Run, show func(orchestrator.Event)) {
	for _, run := range runs {
		show(orchestrator.Event{Kind: orchestrator.HookRun, Run: run})
		if run.Reported() {
			show(orchestrator.Event{Kind: orchestrator.HookFailure, Text: run.FailureLine(), Run: run})
		}
	}
}

func (r *Relay) known() string {
	names := make([]string, 0, len(r.Agents))
	for n := range r.Agents {
		names = append(names, n)
	}
	if len(names) == 0 {
		return "this agent has no mmConfigs"
	}
	sort.Strings(names)
	return "want one of " + strings.Join(names, ", ")
}

// The exact texts of the reference's preAsk and postAsk tables.

// DeniedOutput is what the asking model reads for an ask_agent call a
// preAsk hook denied.
func DeniedOutput(reason string) string { return "[" + DeniedError(reason) + "]" }

// DeniedError is the failure of a denied /ask… command, and, in brackets
// after "ask: ", of mm --ask.
func DeniedError(reason string) string {
	if reason == "" {
		return "ask denied by a hook"
	}
	return "ask denied by a hook: " + reason
}

// ReplacedNotice is shown after a displayed answer a postAsk hook replaced.
func ReplacedNotice(agent string) string {
	return "🪝 postAsk: " + agent + "'s answer was replaced by a hook — the asking agent reads the new one"
}

// Summary is the ask_agent call's summary for front ends that title calls.
func Summary(agent string, res Result) string {
	if res.Replaced {
		return fmt.Sprintf("%s answered; a hook replaced the answer (%d characters)", agent, res.ReplacedLen)
	}
	switch res.Status {
	case Answered:
		return agent + " answered"
	case CutOff:
		return agent + "'s answer was cut off"
	}
	return agent + " failed"
}

// FromTurn is how an asked agent's turn ended, typed for the asking side:
// what an asked agent's process (mm __agent) and a served agent (mm -a2a)
// send back.
func FromTurn(res orchestrator.TurnResult) AskResponse {
	switch {
	case res.Err == nil && res.CutOff != "":
		return AskResponse{Status: CutOff, Answer: res.Answer, Error: orchestrator.CutOffError(res.CutOff), CutOff: res.CutOff}
	case res.Err == nil:
		return AskResponse{Status: Answered, Answer: res.Answer}
	case res.Cancelled():
		return AskResponse{Status: Cancelled, Answer: res.Answer, Error: "cancelled"}
	case errors.Is(res.Err, orchestrator.ErrMaxSteps):
		return AskResponse{Status: MaxSteps, Answer: res.Answer, Error: res.Err.Error()}
	}
	return AskResponse{Status: Failed, Answer: res.Answer, Error: res.Err.Error()}
}
