package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mm-agent/mm/internal/tracing"
)

// Runner runs one agent's hooks. It is safe for concurrent use: the hooks
// of one event run one after the other, but two tool calls of one model
// reply may run their preToolCall chains at the same time.
type Runner struct {
	Hooks Set
	Cwd   string // the session's directory, absolute: where hooks run
	Model string // <provider>/<model>, for the input's model field
	Depth int    // the agent's relay depth; > 0 adds asked: {"depth": n}
	// Env is the environment hooks inherit; nil means mm's own.
	Env []string
	// Observe, when set, is called after every run, from the goroutine that
	// ran it (so possibly concurrently): display and audit log hang here.
	Observe func(Run)
}

// Run is the record of one hook execution, for the display and the log.
type Run struct {
	Event    Event
	Target   string // the tool or asked agent; "" for preGeneration and postGeneration
	Command  string // as written in the config; "" for a URL hook
	URL      string // a URL hook's URL; "" for a command hook
	Decision string // continue, stop, deny, failed, or what changed ("prompt replaced + context (12 chars)")
	Failure  string // why the run failed; "" when it did not
	OnError  OnError
	Start    time.Time
	Duration time.Duration
}

// Label is what the display shows of the hook that ran: its command, or
// its URL.
func (r Run) Label() string {
	if r.URL != "" {
		return r.URL
	}
	return r.Command
}

// Reported reports whether the run's failure line is shown: a failing run
// is reported unless its hook says onError: ignore.
func (r Run) Reported() bool { return r.Failure != "" && r.OnError != Ignore }

// Result is what an event's chain decided, with each run's record.
type Result struct {
	// Stop: a preGeneration hook stopped the turn (action stop, or a failure
	// under onError: fail). Response is what the user reads instead.
	Stop     bool
	Response string
	// Deny: a preToolCall or preAsk hook refused the call or the relay.
	Deny bool
	// Reason of a stop or deny ("" when the hook gave none).
	Reason string
	// What the chain left, nil when no hook changed it.
	Prompt     *string
	Transcript *string
	Answer     *string
	Input      json.RawMessage
	// Contexts, in hook order, blank ones dropped.
	Contexts []string
	Runs     []Run
}

// Run runs the hooks of in.Event that match target (a tool's or an asked
// agent's name; unused for the generation events), in order, each reading
// what the previous one left. It fills in the input's event, cwd, model and
// asked fields. postGeneration and postAsk hooks are not cancelled with ctx:
// they run after a cancelled turn too, bounded by their timeout.
func (r *Runner) Run(ctx context.Context, in Input, target string) Result {
	var res Result
	event := in.Event
	if r == nil || len(r.Hooks[event]) == 0 {
		return res
	}
	if event.SurvivesCancel() {
		ctx = context.WithoutCancel(ctx)
	}
	in = r.Complete(in)
	if in.Tool != nil {
		t := *in.Tool
		in.Tool = &t
	}
	if in.Ask != nil {
		a := *in.Ask
		in.Ask = &a
	}
	env := r.Env
	if env == nil {
		env = os.Environ()
	}
	for _, h := range r.Hooks[event] {
		if event.TakesMatcher() && !h.Matches(target) {
			continue
		}
		hctx, span := startSpan(ctx, event, h)
		run, reply, err := r.runOne(hctx, h, &in, env)
		run.Target = target
		if err != nil {
			run.Decision, run.Failure = "failed", err.Error()
			res.Runs = append(res.Runs, run)
			endSpan(span, run)
			r.observe(run)
			if h.OnError == Fail {
				reason := "hook failed: " + run.Failure
				switch event {
				case PreGeneration:
					res.Stop, res.Reason, res.Response = true, reason, blockedResponse(reason)
					return res
				case PreToolCall, PreAsk:
					res.Deny, res.Reason = true, reason
					return res
				}
			}
			continue
		}
		run.Decision = decision(event, reply)
		res.Runs = append(res.Runs, run)
		endSpan(span, run)
		r.observe(run)
		switch reply.Action {
		case "stop":
			res.Stop, res.Reason = true, reply.Reason
			res.Response = reply.Response
			if strings.TrimSpace(res.Response) == "" {
				res.Response = blockedResponse(reply.Reason)
			}
			return res
		case "deny":
			res.Deny, res.Reason = true, reply.Reason
			return res
		}
		res.apply(event, reply, &in)
	}
	return res
}

// apply records what a continuing reply changed and updates in, so the
// next hook of the chain reads what this one left.
func (res *Result) apply(event Event, reply Reply, in *Input) {
	if reply.Prompt != nil {
		res.Prompt = reply.Prompt
		if event == PreAsk {
			in.Ask.Prompt = *reply.Prompt
		} else {
			in.Prompt = *reply.Prompt
		}
	}
	if reply.Transcript != nil {
		res.Transcript = reply.Transcript
		in.Ask.Transcript = *reply.Transcript
	}
	if reply.Answer != nil {
		res.Answer = reply.Answer
		in.Answer = *reply.Answer
	}
	if reply.Input != nil {
		res.Input = reply.Input
		in.Tool.Input = reply.Input
	}
	if strings.TrimSpace(reply.Context) != "" && readsField(event, "context") {
		res.Contexts = append(res.Contexts, reply.Context)
	}
}

// Complete fills in the fields of in that the runner knows (cwd, model,
// asked), as Run does before the first hook reads it.
func (r *Runner) Complete(in Input) Input {
	in.Cwd, in.Model = r.Cwd, r.Model
	if r.Depth > 0 {
		in.Asked = &Asked{Depth: r.Depth}
	}
	return in
}

// startSpan is the span of one hook run: none, at no cost, with tracing
// off (a hook run is the product's hot path). A URL hook is named by its
// URL, a command hook by its command.
func startSpan(ctx context.Context, event Event, h Hook) (context.Context, *tracing.Span) {
	if !tracing.On() {
		return ctx, nil
	}
	which := tracing.String("mm.hook.command", h.Command)
	if h.URL != "" {
		which = tracing.String("mm.hook.url", h.URL)
	}
	return tracing.Start(ctx, "mm.hook "+string(event), tracing.Internal, tracing.String("mm.hook.event", string(event)), which)
}

// endSpan records a run on its span: the decision, the target it
// matched, and the failure as the span's error.
func endSpan(span *tracing.Span, run Run) {
	if span == nil {
		return
	}
	span.Set(tracing.String("mm.hook.decision", run.Decision))
	if run.Target != "" {
		span.Set(tracing.String("mm.hook.target", run.Target))
	}
	if run.Failure != "" {
		span.Set(tracing.String("mm.hook.failure", run.Failure), tracing.String("mm.hook.on_error", string(run.OnError)))
		span.Fail(run.Failure)
	} else {
		span.OK()
	}
	span.End()
}

func (r *Runner) observe(run Run) {
	if r.Observe != nil {
		r.Observe(run)
	}
}

// runOne executes one hook — a command, or a request to its URL — and
// decodes and checks its reply.
func (r *Runner) runOne(ctx context.Context, h Hook, in *Input, env []string) (Run, Reply, error) {
	run := Run{Event: in.Event, Command: h.Command, URL: h.URL, OnError: h.OnError, Start: time.Now()}
	stdin, err := in.encode()
	if err != nil {
		return run, Reply{}, failure("encode input: " + err.Error())
	}
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	var (
		out   []byte
		where = "on stdout"
	)
	if h.URL != "" {
		var status string
		out, status, err = post(ctx, h, in.Event, timeout, stdin)
		where = "in the response body (" + status + ")"
	} else {
		env = hookEnv(env, in.Event, h.ConfigDir)
		out, err = execute(ctx, h.Command, r.Cwd, env, timeout, stdin)
	}
	run.Duration = time.Since(run.Start)
	if err != nil {
		return run, Reply{}, err
	}
	reply, err := decodeReply(in.Event, out, where)
	if err != nil {
		return run, reply, err
	}
	switch reply.Action {
	case "", "continue":
		reply.Action = "continue"
	case "error":
		if strings.TrimSpace(reply.Error) != "" {
			return run, reply, failure(reply.Error)
		}
		return run, reply, failure("the hook reported an error")
	case "stop":
		if in.Event != PreGeneration {
			return run, reply, notValid(reply.Action, in.Event)
		}
	case "deny":
		if in.Event != PreToolCall && in.Event != PreAsk {
			return run, reply, notValid(reply.Action, in.Event)
		}
	default:
		return run, reply, notValid(reply.Action, in.Event)
	}
	return run, reply, nil
}

// hookEnv is env with the hook's two variables set: a copy, each variable
// once (an mm run by a hook has them already), as the shell is started
// without os/exec's de-duplication.
func hookEnv(env []string, e Event, configDir string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "MM_HOOK_EVENT=") && !strings.HasPrefix(kv, "MM_CONFIG_DIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "MM_HOOK_EVENT="+string(e), "MM_CONFIG_DIR="+configDir)
}

func notValid(action string, e Event) error {
	return failure(fmt.Sprintf("action %q is not valid for %s", action, e))
}

// blockedResponse is what the user reads when a preGeneration hook stopped
// the turn without a response of its own.
func blockedResponse(reason string) string {
	if reason == "" {
		return BlockedNotice
	}
	return BlockedNotice + ": " + reason
}

// decision names what a successful run decided, counting only the fields
// the event reads, in the reference's order.
func decision(event Event, reply Reply) string {
	if reply.Action == "stop" || reply.Action == "deny" {
		return reply.Action
	}
	var parts []string
	if reply.Prompt != nil {
		parts = append(parts, "prompt replaced")
	}
	if reply.Transcript != nil {
		parts = append(parts, "transcript replaced")
	}
	if reply.Answer != nil {
		parts = append(parts, "answer replaced")
	}
	if reply.Input != nil {
		parts = append(parts, "input replaced")
	}
	if strings.TrimSpace(reply.Context) != "" && readsField(event, "context") {
		parts = append(parts, fmt.Sprintf("context (%d chars)", utf8.RuneCountInString(reply.Context)))
	}
	if len(parts) == 0 {
		return "continue"
	}
	return strings.Join(parts, " + ")
}
