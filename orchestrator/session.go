package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/model"
	"github.com/mm-agent/mm/internal/tracing"
)

// Session is one conversation with an agent: the history the model reads,
// turn after turn. One turn runs at a time.
type Session struct {
	Agent *Agent
	// History is the conversation without the system message, as the
	// reference's tables say it is kept: a stopped prompt as its marker,
	// tool calls as the model wrote them.
	History []model.Message
	// Store, when set, keeps the history (a session file): each turn's
	// messages are appended when the turn ends, however it ends.
	Store Store

	// counted is the server's prompt-token count for the last request,
	// which held History[:countedAt]; 0 when no server said.
	counted, countedAt int
	// window is the context the server was seen to cut a prompt to, or
	// said it has when it refused one (0: not seen); cutSaid says the
	// session's one notice of a cut prompt was shown.
	window  int
	cutSaid bool

	mu sync.Mutex
}

// Store keeps a session's history.
type Store interface {
	AppendTurn(msgs []model.Message) error
	AppendCompaction(summary string, kept int) error
}

// NewSession starts an empty conversation with agent.
func NewSession(agent *Agent) *Session { return &Session{Agent: agent} }

// turn is the state of one Generate call.
type turn struct {
	s    *Session
	show func(Event)
	// consent is the caller's way of asking a person (nil: no one to ask).
	consent Consent
	// before is the length of History the store holds: this turn's
	// messages, from before on, are appended when the turn ends.
	before int
	// overflowed says the turn has compressed the history once after the
	// server refused a request longer than the model's context.
	overflowed bool
	// userAt is the index in History of this turn's user message and wire
	// its content as the model reads it (the rewritten prompt, then each
	// preGeneration context); the history keeps the rewritten prompt alone.
	userAt int
	wire   string

	mu  sync.Mutex // guards res and serialises show
	res TurnResult
}

// Generate runs one turn for prompt, showing what happens through show
// (called from one goroutine at a time) and putting each consent question
// to consent — the front end that asks, a child's parent, a served
// agent's client; nil refuses every call that needs consent (NoConsent).
// Both travel with the call, as the caller's own: the Agent is shared by
// every caller of a process. The order is the reference's: preGeneration,
// then the model ⇄ tool loop, then postGeneration, which runs however the
// turn ended, cancelled included.
func (s *Session) Generate(ctx context.Context, prompt string, show func(Event), consent Consent) (res TurnResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if show == nil {
		show = func(Event) {}
	}
	t := &turn{s: s, show: show, consent: consent}
	a := s.Agent
	ctx, span := tracing.Start(ctx, "mm.turn", tracing.Internal,
		tracing.String("gen_ai.operation.name", "invoke_agent"), tracing.String("mm.model", a.ModelRef))
	span.SetContent(tracing.String("mm.turn.prompt", prompt))
	defer func() { endTurnSpan(span, res) }()
	t.compactIfNeeded(ctx, prompt)
	t.before = len(s.History)
	defer func() {
		if s.Store != nil && len(s.History) > t.before {
			res.SaveErr = s.Store.AppendTurn(s.History[t.before:])
		}
	}()

	pre := a.Hooks.Run(ctx, hooks.Input{Event: hooks.PreGeneration, Prompt: prompt}, "")
	t.hookRuns(pre.Runs)
	if pre.Stop {
		marker := hooks.BlockedMarker(pre.Reason)
		s.History = append(s.History,
			model.Message{Role: "user", Content: marker},
			model.Message{Role: "assistant", Content: pre.Response})
		t.emit(Event{Kind: Text, Text: pre.Response})
		t.res.Answer, t.res.Stopped = pre.Response, true
		t.post(ctx, marker)
		return t.res
	}
	if pre.Prompt != nil {
		prompt = *pre.Prompt
	}
	if a.Expand != nil {
		prompt = a.Expand(prompt)
	}
	t.userAt = len(s.History)
	t.wire = hooks.WithContexts(prompt, pre.Contexts)
	s.History = append(s.History, model.Message{Role: "user", Content: prompt})

	t.res.Err = t.loop(ctx)
	if t.res.Err != nil {
		t.closeHistory()
	}
	t.post(ctx, prompt)
	return t.res
}

// endTurnSpan records how the turn ended on its span and ends it; the
// spans of the turn are then sent without waiting for the batch timer.
func endTurnSpan(span *tracing.Span, res TurnResult) {
	if span == nil {
		return
	}
	span.Set(tracing.Int("gen_ai.usage.input_tokens", res.Usage.PromptTokens),
		tracing.Int("gen_ai.usage.output_tokens", res.Usage.CompletionTokens),
		tracing.Int("mm.turn.tool_calls", len(res.Ran)))
	if res.Stopped {
		span.Set(tracing.Bool("mm.turn.stopped", true))
	}
	if res.CutOff != "" {
		span.Set(tracing.String("mm.turn.cut_off", res.CutOff))
	}
	span.SetContent(tracing.String("mm.turn.answer", res.Answer))
	if res.Err != nil {
		span.Error(res.Err)
	} else {
		span.OK()
	}
	span.End()
	tracing.FlushSoon()
}

// compactIfNeeded compresses the history before the turn when the history
// and the prompt near the context budget (estimated by EstimateTokens):
// three quarters of it.
func (t *turn) compactIfNeeded(ctx context.Context, prompt string) {
	a := t.s.Agent
	budget := t.s.budget()
	if budget <= 0 {
		return
	}
	if a.Expand != nil {
		prompt = a.Expand(prompt) // attachments count too
	}
	if t.s.contextTokens(prompt) <= budget*3/4 {
		return
	}
	// The last turn stays, unless the budget is the one taken from a
	// window the server cut a prompt to and the last turn alone is past
	// the mark: it is the prompt that was cut, and goes into the summary
	// too.
	s := t.s
	keep := s.lastUser()
	if keep >= 0 && a.ContextBudget <= 0 {
		rest := append([]model.Message{{Role: "system", Content: a.System}, {Role: "user", Content: prompt}}, s.History[keep:]...)
		if EstimateTokens(rest) > budget*3/4 {
			keep = len(s.History)
		}
	}
	n, err := s.compactFrom(ctx, keep, len(s.History))
	switch {
	case errors.Is(err, ErrNothingToCompact):
	case err != nil:
		t.emit(Event{Kind: Notice, Text: "⚙ the context could not be compressed: " + err.Error()})
	default:
		t.emit(Event{Kind: Notice, Text: fmt.Sprintf(CompactedNotice, n)})
	}
}

// contextTokens is the size of the next request with prompt: the server's
// own count of the last request when it gave one, plus the estimate
// (EstimateTokens) of what came after; the estimate of it all otherwise.
func (s *Session) contextTokens(prompt string) int {
	next := EstimateTokens([]model.Message{{Role: "user", Content: prompt}})
	if s.counted > 0 && s.countedAt <= len(s.History) {
		return s.counted + EstimateTokens(s.History[s.countedAt:]) + next
	}
	msgs := append([]model.Message{{Role: "system", Content: s.Agent.System}}, s.History...)
	return EstimateTokens(msgs) + next
}

// budget is the context budget turns are held to: the agent's
// contextBudget, else what the server showed of its window less a margin
// (AdoptedBudget), else none.
func (s *Session) budget() int {
	if s.Agent.ContextBudget > 0 {
		return s.Agent.ContextBudget
	}
	if s.window > 0 {
		return AdoptedBudget(s.window)
	}
	return 0
}

// AdoptedBudget is the budget mm holds a session to, without contextBudget,
// once the server showed its context window is n tokens: three quarters
// of it, the rest left for what mm's estimate does not count (the tools'
// definitions, the chat template) and for the answer.
func AdoptedBudget(n int) int { return n * 3 / 4 }

// Cut prompts: a server that counted fewer than half the tokens mm
// estimates it sent, for a prompt of at least cutMinTokens, kept only the
// end of it (Ollama cuts a prompt to num_ctx without an error).
const cutMinTokens = 1000

// CutPromptNotice is said once per session when the server cut a prompt to
// n tokens (the contract's "Local models as they are").
func CutPromptNotice(n int) string {
	return fmt.Sprintf("mm: the server cut the prompt to %d tokens (its context window): raise it (Ollama: OLLAMA_CONTEXT_LENGTH or num_ctx; llama-server: -c) or set contextBudget below it", n)
}

// AdoptedNotice follows CutPromptNotice when the session has no
// contextBudget and takes one from the window.
func AdoptedNotice(budget int) string {
	return fmt.Sprintf("mm: until then, contextBudget is %d for this session: older turns are compressed before it is reached", budget)
}

// sawPrompt compares the server's count of a request's prompt with mm's
// estimate of it. A prompt the server cut is said once per session, and
// without contextBudget the window becomes the session's budget; it
// reports whether the count is of a cut prompt (and so no measure of the
// history).
func (t *turn) sawPrompt(msgs []model.Message, counted int) bool {
	est := EstimateTokens(msgs)
	if counted <= 0 || est < cutMinTokens || counted*2 >= est {
		return false
	}
	s := t.s
	adopt := s.Agent.ContextBudget <= 0 && (s.window == 0 || counted < s.window)
	if adopt {
		s.window = counted
	}
	if !s.cutSaid {
		s.cutSaid = true
		t.emit(Event{Kind: Warning, Text: CutPromptNotice(counted)})
		if adopt {
			t.emit(Event{Kind: Warning, Text: AdoptedNotice(AdoptedBudget(counted))})
		}
	}
	return true
}

// OverflowNotice says the server refused a request longer than the
// model's context and mm compresses the history to try it once more.
func OverflowNotice(server string) string {
	return "mm: the conversation is longer than the model's context (" + server + "); compressing it and trying again"
}

// overflow handles a request the server refused as longer than the
// model's context: once a turn, the history before the turn is
// compressed and the request is made again. It reports whether to retry.
func (t *turn) overflow(ctx context.Context, err error) bool {
	var me *model.Error
	if t.overflowed || ctx.Err() != nil || !errors.As(err, &me) || me.Kind != model.ErrContextLength || !t.s.compactable(t.userAt) {
		return false
	}
	t.overflowed = true
	s := t.s
	if me.Window > 0 && s.Agent.ContextBudget <= 0 && (s.window == 0 || me.Window < s.window) {
		s.window = me.Window // the server said its window: later turns keep under it
	}
	t.emit(Event{Kind: Warning, Text: OverflowNotice(me.Cause)})
	n, cerr := s.compactFrom(ctx, t.userAt, t.before)
	if n > 0 {
		// The turn's messages now follow the summary and its
		// acknowledgement (even when the session file failed to record it).
		t.userAt, t.before = 2, 2
	}
	if cerr != nil {
		t.emit(Event{Kind: Notice, Text: "⚙ the context could not be compressed: " + cerr.Error()})
		return n > 0
	}
	t.emit(Event{Kind: Notice, Text: fmt.Sprintf(CompactedNotice, n)})
	return true
}

// CompactedNotice says a compression happened (with how many messages the
// summary replaced).
const CompactedNotice = "⚙ context compressed: %d earlier message(s) replaced by a summary"

// post runs postGeneration with the question the model read (or the
// marker) and the last answer; it is not cancelled with the turn.
func (t *turn) post(ctx context.Context, prompt string) {
	errText := errorText(t.res.Err)
	if errText == "" && t.res.CutOff != "" {
		errText = CutOffError(t.res.CutOff) // an answer cut off did not succeed
	}
	res := t.s.Agent.Hooks.Run(ctx, hooks.Input{
		Event: hooks.PostGeneration, Prompt: prompt,
		Answer: t.res.Answer, Error: errText,
	}, "")
	t.hookRuns(res.Runs)
}

// loop calls the model until it answers without tools, up to MaxSteps calls.
func (t *turn) loop(ctx context.Context) error {
	a := t.s.Agent
	defs := make([]model.ToolDef, len(a.Tools))
	for i, tool := range a.Tools {
		defs[i] = tool.Def()
	}
	var format json.RawMessage
	if a.Structured != nil {
		format = a.Structured.ResponseFormat()
	}
	retried := false
	for step := 0; ; step++ {
		if step >= a.MaxSteps {
			return maxStepsError(a.MaxSteps)
		}
		req := model.Request{Model: a.Name, Messages: t.request(), Tools: defs, ResponseFormat: format,
			OnReasoning: func(d string) { t.emit(Event{Kind: Reasoning, Text: d}) },
			OnRetry:     func(r model.Retry) { t.emit(Event{Kind: Warning, Text: "mm: " + r.String()}) },
		}
		at := len(t.s.History)
		reply, err := a.Model.Chat(ctx, req, func(d string) {
			if a.Structured == nil { // a structured answer shows once valid
				t.emit(Event{Kind: Text, Text: d})
			}
		})
		if reply.Usage != nil {
			t.res.Usage = t.res.Usage.Add(*reply.Usage)
			if t.sawPrompt(req.Messages, reply.Usage.PromptTokens) {
				t.s.counted, t.s.countedAt = 0, 0 // a cut prompt's count measures nothing of the history
			} else {
				t.s.counted, t.s.countedAt = reply.Usage.PromptTokens, at
			}
		}
		if err != nil && t.overflow(ctx, err) {
			step-- // the same request, shorter: not another step
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			if reply.Content != "" {
				// What was shown stays, marked as cut (the contract's
				// "Model replies").
				t.s.History = append(t.s.History, model.Message{Role: "assistant", Content: cutOff(reply.Content, cutCause(err))})
				t.res.Answer = reply.Content
			}
			return err
		}
		if reply.FinishReason == "length" {
			// Cut at the output token limit: the answer stays as shown,
			// marked; a tool call the limit cut is not run (its arguments
			// may be half written).
			t.s.History = append(t.s.History, model.Message{Role: "assistant", Content: cutOff(reply.Content, OutputLimit)})
			t.res.Answer, t.res.CutOff = reply.Content, OutputLimit
			t.emit(Event{Kind: Warning, Text: OutputLimitNotice})
			if a.Structured != nil {
				return ErrCutOff
			}
			return nil
		}
		msg := model.Message{Role: "assistant", Content: reply.Content}
		t.res.Empty, t.res.ReasoningOnly = false, false
		if reply.Content == "" && len(reply.ToolCalls) == 0 {
			if reply.Reasoning != "" {
				t.res.ReasoningOnly = true
			} else {
				t.res.Empty = true
			}
		}
		if len(reply.ToolCalls) == 0 {
			t.s.History = append(t.s.History, msg)
			if a.Structured != nil {
				if err := a.Structured.Validate(reply.Content); err != nil {
					if retried {
						return fmt.Errorf("%w after a retry: %v", ErrInvalidAnswer, err)
					}
					retried = true
					t.s.History = append(t.s.History, model.Message{Role: "user", Content: fmt.Sprintf(RetryFeedback, err)})
					continue
				}
				t.emit(Event{Kind: Text, Text: reply.Content})
			}
			t.res.Answer = reply.Content
			return nil
		}
		if reply.Content != "" {
			t.res.Answer = reply.Content
		}
		msg.ToolCalls = make([]model.ToolCall, len(reply.ToolCalls))
		for i, c := range reply.ToolCalls {
			c.Type = "function"
			if c.ID == "" {
				c.ID = fmt.Sprintf("call_%d_%d", step+1, i+1)
			}
			reply.ToolCalls[i].ID = c.ID
			if !jsonObject(c.Function.Arguments) {
				// The tool tells the model what was wrong; the history keeps a
				// call every server accepts again (Ollama rejects the whole
				// request when a past call's arguments are not an object).
				c.Function.Arguments = "{}"
			}
			msg.ToolCalls[i] = c
		}
		t.s.History = append(t.s.History, msg)
		outputs := t.runTools(ctx, reply.ToolCalls)
		for i, c := range msg.ToolCalls {
			t.s.History = append(t.s.History, model.Message{Role: "tool", ToolCallID: c.ID, Content: outputs[i]})
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// cutOff is an answer that did not end as the history keeps it: what was
// shown, then the marker.
func cutOff(answer, cause string) string {
	if answer == "" {
		return CutOffMarker(cause)
	}
	return answer + "\n\n" + CutOffMarker(cause)
}

// cutCause says in a few words why a reply stopped.
func cutCause(err error) string {
	var me *model.Error
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "cancelled"
	case errors.As(err, &me) && me.Cause != "":
		return me.Cause
	}
	return err.Error()
}

// request is the messages the model reads now: the system message, then
// the history with this turn's question as the model reads it.
func (t *turn) request() []model.Message {
	a := t.s.Agent
	msgs := make([]model.Message, 0, len(t.s.History)+1)
	if a.System != "" {
		msgs = append(msgs, model.Message{Role: "system", Content: a.System})
	}
	for i, m := range t.s.History {
		if i == t.userAt {
			m.Content = t.wire
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// closeHistory leaves a failed or cancelled turn's history consistent: every
// tool call answered, and the turn ending on an assistant message, so the
// next turn's request is one every server accepts.
func (t *turn) closeHistory() {
	h := t.s.History
	if n := len(h); n > 0 && h[n-1].Role == "assistant" && len(h[n-1].ToolCalls) == 0 {
		return
	}
	note := "[turn failed: " + errorText(t.res.Err) + "]"
	if t.res.Cancelled() {
		note = "[turn cancelled]"
	}
	t.s.History = append(h, model.Message{Role: "assistant", Content: note})
}

// runTools runs the calls of one model reply at the same time and returns
// their outputs in the calls' order. They run in two pools, each starting
// its calls in the reply's order: the asks (AskTool, at most
// Agent.ParallelAsks at once) and the others (at most Agent.Parallel).
func (t *turn) runTools(ctx context.Context, calls []model.ToolCall) []string {
	outputs := make([]string, len(calls))
	twins := twinRanks(calls)
	a := t.s.Agent
	asksLimit := a.ParallelAsks
	if asksLimit <= 0 {
		asksLimit = a.Parallel
	}
	var asks, others []int
	for i, c := range calls {
		if _, ok := a.tool(c.Function.Name).(AskTool); ok {
			asks = append(asks, i)
		} else {
			others = append(others, i)
		}
	}
	var wg sync.WaitGroup
	for _, pool := range []struct {
		calls []int
		limit int
	}{{others, a.Parallel}, {asks, asksLimit}} {
		if len(pool.calls) == 0 {
			continue
		}
		wg.Go(func() {
			var g errgroup.Group
			g.SetLimit(max(pool.limit, 1))
			for _, i := range pool.calls {
				g.Go(func() error {
					outputs[i] = t.middleware(ctx, calls[i], twins[i])
					return nil
				})
			}
			g.Wait()
		})
	}
	wg.Wait()
	return outputs
}

// twinRanks is, for each call of a reply, its rank among the calls of the
// same tool with the same summary (Turn.Twin): 0 for a call that has no
// such twin, else 1, 2, … in the reply's order.
func twinRanks(calls []model.ToolCall) []int {
	key := func(c model.ToolCall) string {
		return c.Function.Name + "\x00" + Summary(argsValue(c.Function.Arguments))
	}
	count := map[string]int{}
	for _, c := range calls {
		count[key(c)]++
	}
	ranks := make([]int, len(calls))
	seen := map[string]int{}
	for i, c := range calls {
		if k := key(c); count[k] > 1 {
			seen[k]++
			ranks[i] = seen[k]
		}
	}
	return ranks
}

// middleware is the reference's order around one tool call: preToolCall
// (which runs before consent, so a denied call never asks anyone and a
// guard holds under yolo), consent, the tool, postToolCall — which runs
// after each call that ran: not after a call preToolCall denied, consent
// refused, or whose own hook (preAsk) denied what it was to do. It
// returns what the model reads.
func (t *turn) middleware(ctx context.Context, c model.ToolCall, twin int) (out string) {
	a := t.s.Agent
	name := c.Function.Name
	ctx, span := tracing.Start(ctx, "execute_tool "+name, tracing.Internal,
		tracing.String("gen_ai.operation.name", "execute_tool"), tracing.String("gen_ai.tool.name", name),
		tracing.String("gen_ai.tool.call.id", c.ID))
	st, why := "ok", ""
	defer func() { endToolSpan(span, st, why, out) }()
	tool := a.tool(name)
	if tool == nil {
		st, why = "failed", fmt.Sprintf("unknown tool %q", name)
		return Failure(why).Output
	}
	input := argsValue(c.Function.Arguments)
	if tracing.Content() { // the arguments are not copied for a span that will not keep them
		span.SetContent(tracing.String("gen_ai.tool.call.arguments", string(input)))
	}

	pre := a.Hooks.Run(ctx, hooks.Input{Event: hooks.PreToolCall, Tool: &hooks.Tool{ID: c.ID, Name: name, Input: input}}, name)
	t.hookRuns(pre.Runs)
	call := Call{ID: c.ID, Tool: name, Input: input}
	if pre.Input != nil {
		call.Input = pre.Input
	}
	call.Summary = Summary(call.Input)
	if pre.Deny {
		out := hooks.DeniedOutput(pre.Reason)
		t.emit(Event{Kind: ToolDenied, Call: call, Reason: pre.Reason, Output: out, Status: Denied})
		st, why = "denied", "denied by a hook: "+pre.Reason
		return out
	}
	if ctx.Err() != nil {
		st, why = "cancelled", "cancelled"
		return CancelledOutput
	}
	t.emit(Event{Kind: ToolStart, Call: call})
	if !a.Yolo {
		if res, ok := t.allowed(ctx, call); !ok {
			t.emit(Event{Kind: ToolEnd, Call: call, Output: res.Output, Status: res.Status})
			st, why = "refused", "refused: "+res.Output
			if res.Status == Cancelled {
				st, why = "cancelled", "cancelled"
			}
			return res.Output
		}
	}
	t.mu.Lock()
	t.res.Ran = append(t.res.Ran, call)
	t.mu.Unlock()
	var res Result
	if tt, ok := tool.(TurnTool); ok {
		res = tt.RunInTurn(ctx, call.Input, Turn{
			Show: t.toolShow, Transcript: Transcript(t.s.History), Call: call, Consent: t.consent,
			Twin: twin,
		})
	} else {
		res = tool.Run(ctx, call.Input)
	}
	if res.Status == Denied {
		// A hook of the tool's own refused what it was to do (preAsk): the
		// call did not run, so it is not counted and postToolCall, which
		// runs after each call that ran, does not run.
		t.mu.Lock()
		t.res.Ran = slices.DeleteFunc(t.res.Ran, func(r Call) bool { return r.ID == call.ID })
		t.mu.Unlock()
		t.emit(Event{Kind: ToolDenied, Call: call, Reason: res.Reason, Output: res.Output, Status: Denied})
		st, why = "denied", "denied by a hook: "+res.Reason
		return res.Output
	}
	t.emit(Event{Kind: ToolEnd, Call: call, Output: res.Output, Summary: res.Summary, Status: res.Status})
	switch res.Status {
	case Failed:
		st, why = "failed", "the tool could not do its work" // its output is content
	case Cancelled:
		st, why = "cancelled", "cancelled"
	}

	post := a.Hooks.Run(ctx, hooks.Input{Event: hooks.PostToolCall, Tool: &hooks.Tool{ID: c.ID, Name: name, Input: call.Input}, Output: res.Output}, name)
	t.hookRuns(post.Runs)
	return hooks.WithContexts(res.Output, post.Contexts)
}

// endToolSpan ends a tool call's span: mm.tool.status is ok, failed,
// denied (by a hook), refused (consent) or cancelled, and every status but
// ok is the span's error, why its description.
func endToolSpan(span *tracing.Span, status, why, out string) {
	if span == nil {
		return
	}
	span.Set(tracing.String("mm.tool.status", status))
	span.SetContent(tracing.String("gen_ai.tool.call.result", out))
	if status == "ok" {
		span.OK()
	} else {
		span.Fail(why)
	}
	span.End()
}

// allowed asks whether call may run; when it may not, the result says why.
func (t *turn) allowed(ctx context.Context, call Call) (Result, bool) {
	c := t.consent
	if c == nil {
		return Result{Output: NoConsent, Status: NoOneToAsk}, false
	}
	ok, err := c.Allow(ctx, call)
	switch {
	case err != nil && ctx.Err() != nil:
		return CancelledResult(""), false
	case err != nil:
		return Result{Output: NoConsent, Status: NoOneToAsk}, false
	case !ok:
		return Result{Output: UserRefused, Status: Denied}, false
	}
	return Result{}, true
}

func (a *Agent) tool(name string) Tool {
	for _, t := range a.Tools {
		if t.Def().Name == name {
			return t
		}
	}
	return nil
}

// jsonObject reports whether s is a JSON object.
func jsonObject(s string) bool {
	var v map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &v) == nil && v != nil
}

// argsValue is the tool call's arguments as a JSON value: the model's text
// when it is valid JSON, {} when empty, else the text as a JSON string (the
// tool then reports the malformed arguments to the model).
func argsValue(args string) json.RawMessage {
	if args == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(args)
	return b
}

// toolShow shows what a TurnTool shows; the runs of its own hooks (preAsk,
// postAsk) belong to the turn's list like any other.
func (t *turn) toolShow(ev Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(ev.Agent) == 0 && ev.Kind == HookRun {
		t.res.HookRuns = append(t.res.HookRuns, ev.Run)
	}
	t.show(ev)
}

// emit shows ev, one event at a time.
func (t *turn) emit(ev Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.show(ev)
}

// hookRuns records the runs of a chain and shows their failure lines now.
func (t *turn) hookRuns(runs []hooks.Run) {
	if len(runs) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range runs {
		t.res.HookRuns = append(t.res.HookRuns, r)
		t.show(Event{Kind: HookRun, Run: r})
		if r.Reported() {
			t.show(Event{Kind: HookFailure, Text: r.FailureLine(), Run: r})
		}
	}
}

// Transcript renders a conversation as text another agent can read: the
// user's and the assistant's messages, each under a [user] or [assistant]
// line; tool calls and their outputs are left out.
func Transcript(history []model.Message) string {
	var b strings.Builder
	for _, m := range history {
		if (m.Role != "user" && m.Role != "assistant") || strings.TrimSpace(m.Content) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("[" + m.Role + "]\n" + m.Content)
	}
	return b.String()
}

// Transcript is the session's conversation so far, as text (see Transcript).
func (s *Session) Transcript() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Transcript(s.History)
}

// AddExchange records a relay the user ran outside a turn (/ask…): the
// question as it was sent, then the message "[<agent>'s answer]" with the
// answer, as the reference's postAsk table says.
func (s *Session) AddExchange(agent, question, answer string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	msgs := []model.Message{
		{Role: "user", Content: question},
		{Role: "assistant", Content: AnswerMessage(agent, answer)},
	}
	s.History = append(s.History, msgs...)
	if s.Store != nil {
		return s.Store.AppendTurn(msgs)
	}
	return nil
}

// AnswerMessage is the history message of an /ask… exchange.
func AnswerMessage(agent, answer string) string {
	return "[" + agent + "'s answer]\n" + answer
}
