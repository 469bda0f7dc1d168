package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mm-agent/mm/internal/calls"
	"github.com/mm-agent/mm/internal/termtext"

	"github.com/spf13/cobra"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/hooks"
	"github.com/mm-agent/mm/internal/agent"
	"github.com/mm-agent/mm/internal/hookadapt"
	"github.com/mm-agent/mm/internal/tools"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// Exit statuses of mm hooks test, so a team's CI can check its hooks.
const (
	exitHookStops = 3 // the chain stops the turn or denies the call or relay
)

func newCmdHooks(ios *IOStreams, root *rootOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Show the configured hooks, try a hook chain without a model, run hooks written for other agents",
	}
	cmd.AddCommand(newCmdHooksList(ios, root), newCmdHooksTest(ios, root), newCmdHooksAdapt(ios), newCmdHooksImport(ios))
	subcommandsOnly(cmd)
	return cmd
}

// newCmdHooksList is mm hooks list: the hooks per event in run order, with
// matcher, timeout and onError, what each matcher selects, and warnings
// for matchers that select nothing known.
func newCmdHooksList(ios *IOStreams, root *rootOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the configured hooks per event, in run order",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, err := root.loadConfig()
			if err != nil {
				return err
			}
			w := ios.Out
			path := cfg.Path
			if path == "" {
				path = "none (built-in defaults)"
			}
			fmt.Fprintf(w, "config: %s\n", path)
			if cfg.Hooks.Count() == 0 {
				fmt.Fprintln(w, "no hooks")
				return nil
			}
			toolNames := cfg.Tools
			if len(toolNames) == 0 {
				toolNames = tools.Names
			}
			if len(cfg.MMConfigs) > 0 {
				toolNames = append(append([]string(nil), toolNames...), relay.ToolName)
			}
			var warnings []string
			anyOpen := false
			wd, err := os.Getwd() // where hooks run, as for mm here
			if err != nil {
				return err
			}
			for _, e := range hooks.Events {
				list := cfg.Hooks[e]
				if len(list) == 0 {
					continue
				}
				fmt.Fprintln(w, e)
				for i, h := range list {
					fmt.Fprintf(w, "  %d. %s\n", i+1, h.Label())
					var parts []string
					if h.URL != "" {
						parts = append(parts, urlHookPart(h))
						if strings.HasPrefix(strings.ToLower(h.URL), "http://") && !hooks.Loopback(h.URL) {
							warnings = append(warnings, fmt.Sprintf("hooks.%s[%d]: %s is plain http to a host that is not loopback: hook inputs cross the network unencrypted; use https://", e, i, h.URL))
						}
					}
					if e.TakesMatcher() {
						known, kind := toolNames, "tool"
						if e == hooks.PreAsk || e == hooks.PostAsk {
							known, kind = cfg.AgentNames(), "agent of mmConfigs"
						}
						var sel []string
						for _, n := range known {
							if h.Matches(n) {
								if ra, ok := cfg.RemoteAgents[n]; ok && kind != "tool" {
									n += " at " + ra.URL // a remote agent, asked over A2A
								}
								sel = append(sel, n)
							}
						}
						switch {
						case h.Matcher == nil:
							parts = append(parts, "every "+kind+" ("+strings.Join(sel, ", ")+")")
						case len(sel) == 0:
							parts = append(parts, "matcher "+h.Matcher.String()+" → selects nothing")
							warnings = append(warnings, fmt.Sprintf("hooks.%s[%d]: matcher %s selects no known %s (%s)", e, i, h.Matcher, kind, orNone(known)))
						default:
							parts = append(parts, "matcher "+h.Matcher.String()+" → "+strings.Join(sel, ", "))
						}
					}
					if a, ok, err := hookadapt.Wraps(h.Command); err != nil {
						parts = append([]string{"adapts: " + err.Error()}, parts...)
						warnings = append(warnings, fmt.Sprintf("hooks.%s[%d]: mm hooks adapt: %v: every run of this hook fails", e, i, err))
					} else if ok {
						if name, err := a.Event(e); err == nil {
							parts = append([]string{"adapts " + string(a) + " " + name}, parts...)
						} else {
							parts = append([]string{"adapts " + string(a) + ": no counterpart"}, parts...)
							warnings = append(warnings, fmt.Sprintf("hooks.%s[%d]: %s has no hook event for %s: every run of this hook fails", e, i, a, e))
						}
					}
					if p := hooks.CheckProgram(h, wd, os.Getenv("PATH")); p != nil {
						parts = append([]string{"✗ " + p.Program + " " + p.Problem}, parts...)
						warnings = append(warnings, fmt.Sprintf("hooks.%s[%d]: %s", e, i, p))
					}
					onError := "onError " + string(h.OnError)
					if open := failsOpen(e, h.OnError); open != "" {
						onError += " (" + open + ")"
						anyOpen = true
					}
					parts = append(parts, "timeout "+h.Timeout.String(), onError)
					fmt.Fprintf(w, "     %s\n", strings.Join(parts, " · "))
				}
			}
			if anyOpen {
				fmt.Fprintln(w, failsOpenNote)
			}
			for _, warn := range warnings {
				fmt.Fprintln(ios.Err, "warning: "+warn)
			}
			return nil
		},
	}
}

// urlHookPart says what a URL hook's runs send: a POST, with the names of
// its headers (never their values, which may hold a token).
func urlHookPart(h hooks.Hook) string {
	if len(h.Headers) == 0 {
		return "POST"
	}
	names := make([]string, len(h.Headers))
	for i, hd := range h.Headers {
		names[i] = hd.Name
	}
	return "POST with " + strings.Join(names, ", ")
}

// failsOpenNote explains the "(fails open)" mark of mm hooks list.
const failsOpenNote = "(fails open): when the hook cannot run — a crash, a timeout, a bad reply — the prompt, call or relay it guards goes on; onError: fail stops it instead"

// failsOpen says how a hook of a guarding event (one that runs before a
// step and can stop it) lets the step through when it cannot run: under
// warn, the reference's default, with a failure line; under ignore,
// silently. "" for onError: fail and for the events that only observe.
func failsOpen(e hooks.Event, onError hooks.OnError) string {
	if e != hooks.PreGeneration && e != hooks.PreToolCall && e != hooks.PreAsk {
		return ""
	}
	switch onError {
	case hooks.Warn:
		return "fails open"
	case hooks.Ignore:
		return "fails open, silently"
	}
	return ""
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "there are none"
	}
	return "known: " + strings.Join(names, ", ")
}

type hooksTestOptions struct {
	prompt, tool, input, output      string
	agent, question, transcript, via string
	withContext                      bool
	answer, errText                  string
	durationMs                       int64
	depth                            int
	depthSet                         bool // --depth given: MM_ASK_DEPTH is not read
	stdinJSON, jsonOut               bool
}

// newCmdHooksTest is mm hooks test: it builds the input the engine would
// build for the event, runs the event's chain with the real runner, and
// says what the turn would do, in the reference's words.
func newCmdHooksTest(ios *IOStreams, root *rootOptions) *cobra.Command {
	o := &hooksTestOptions{}
	cmd := &cobra.Command{
		Use:   "test <event>",
		Short: "Run an event's hook chain on a given input, without a model",
		Long: `Run the hooks of one event on the input the engine would build, and print
each run and the net effect: what the model would read, what the history
would keep, what the user would see.

Exit status: 0 the chain continues, 3 it stops the turn or denies the call
or relay, 1 a hook failed under onError: fail (or bad usage).`,
		Args: func(_ *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return &exitError{exitFailure, "mm: hooks test needs an event: one of " + eventList()}
			case len(args) > 1:
				return &exitError{exitFailure, fmt.Sprintf("mm: hooks test takes one event, not %d arguments (%s)", len(args), strings.Join(args, " "))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := root.loadConfig()
			if err != nil {
				return err
			}
			if !hooks.Known(args[0]) {
				names := make([]string, len(hooks.Events))
				for i, e := range hooks.Events {
					names[i] = string(e)
				}
				// As the config says it: the events, then the nearest.
				return &exitError{exitFailure, fmt.Sprintf("mm: unknown event %q (want one of %s)%s", args[0], eventList(), config.DidYouMean(args[0], names))}
			}
			o.depthSet = cmd.Flags().Changed("depth")
			return o.run(cmd.Context(), ios, cfg, hooks.Event(args[0]))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.prompt, "prompt", "", "the question (preGeneration, postGeneration)")
	f.StringVar(&o.tool, "tool", "", "the tool's name (preToolCall, postToolCall)")
	f.StringVar(&o.input, "input", "{}", "the tool call's arguments, JSON")
	f.StringVar(&o.output, "output", "", "the tool's output (postToolCall)")
	f.StringVar(&o.agent, "agent", "", "the asked agent's name in mmConfigs (preAsk, postAsk)")
	f.StringVar(&o.question, "question", "", "the question sent to the asked agent")
	f.StringVar(&o.transcript, "transcript", "", "the conversation sent with --with-context")
	f.StringVar(&o.via, "via", "tool", "how the relay started: tool, command or cli")
	f.BoolVar(&o.withContext, "with-context", false, "the relay sends the conversation")
	f.StringVar(&o.answer, "answer", "", "the answer (postGeneration, postAsk)")
	f.StringVar(&o.errText, "error", "", "the turn's or relay's error (postGeneration, postAsk)")
	f.Int64Var(&o.durationMs, "duration-ms", 0, "the asked agent's time (postAsk)")
	f.IntVar(&o.depth, "depth", 0, "the agent's relay depth (default: MM_ASK_DEPTH, else 0)")
	f.BoolVar(&o.stdinJSON, "stdin-json", false, "read the whole input object from stdin instead")
	f.BoolVar(&o.jsonOut, "json", false, "print the result as JSON")
	return cmd
}

func (o *hooksTestOptions) run(ctx context.Context, ios *IOStreams, cfg *config.Config, event hooks.Event) error {
	environ := os.Environ()
	if o.depthSet {
		// --depth says the depth: an inherited MM_ASK_DEPTH does not count.
		environ = slices.DeleteFunc(environ, func(kv string) bool { return strings.HasPrefix(kv, agent.DepthVar+"=") })
	}
	env, err := agent.ReadEnv(environ, executable())
	if err != nil {
		return &exitError{exitFailure, "mm: " + err.Error()}
	}
	depth := env.Depth
	if o.depthSet {
		depth = max(o.depth, 0)
	}
	in, target, err := o.buildInput(ios, cfg, event, depth)
	if err != nil {
		return &exitError{exitFailure, "mm: " + err.Error()}
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	runner := &hooks.Runner{Hooks: cfg.Hooks, Cwd: wd, Model: cfg.Model, Depth: depth, Env: env.For(cfg.File, depth)}
	res := runner.Run(ctx, in, target)
	in = runner.Complete(in)

	failed := false
	for _, r := range res.Runs {
		if r.Failure != "" && r.OnError == hooks.Fail {
			failed = true
		}
	}
	outcome := "continue"
	switch {
	case failed:
		outcome = "failed"
	case res.Stop:
		outcome = "stop"
	case res.Deny:
		outcome = "deny"
	}
	eff := effect(event, in, res)
	if o.jsonOut {
		type jsonRun struct {
			Command    string  `json:"command,omitempty"`
			URL        string  `json:"url,omitempty"`
			Decision   string  `json:"decision"`
			DurationMs float64 `json:"durationMs"`
			Failure    string  `json:"failure,omitempty"`
			OnError    string  `json:"onError"`
		}
		runs := make([]jsonRun, 0, len(res.Runs))
		for _, r := range res.Runs {
			runs = append(runs, jsonRun{r.Command, r.URL, r.Decision, float64(r.Duration.Microseconds()) / 1000, r.Failure, string(r.OnError)})
		}
		enc := json.NewEncoder(ios.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		enc.Encode(struct {
			Event   hooks.Event  `json:"event"`
			Input   hooks.Input  `json:"input"`
			Runs    []jsonRun    `json:"runs"`
			Outcome string       `json:"outcome"`
			Effect  []effectLine `json:"effect"`
		}{event, in, runs, outcome, eff})
	} else {
		w := ios.Out
		title := string(event)
		if target != "" {
			title += " [" + target + "]"
		}
		fmt.Fprintln(w, title)
		matched := 0
		for i, r := range res.Runs {
			matched++
			line := fmt.Sprintf("  %d. %s → %s (%s)", i+1, r.Label(), r.Decision, r.Duration.Round(time.Millisecond/10))
			if r.Failure != "" {
				line += "\n     " + r.FailureLine() + " [onError: " + string(r.OnError) + "]"
			}
			fmt.Fprintln(w, termtext.Clean(line)) // the decision and failure are the hook's text
		}
		if matched == 0 {
			fmt.Fprintln(w, "  no hook runs for this input")
		}
		fmt.Fprintln(w, "effect:")
		for _, l := range eff {
			fmt.Fprintf(w, "  %s: %s\n", l.Who, termtext.Clean(indent(l.What)))
		}
	}
	switch outcome {
	case "failed":
		return &exitError{code: exitFailure}
	case "stop", "deny":
		return &exitError{code: exitHookStops}
	}
	return nil
}

// eventList names the six events, in the reference's order.
func eventList() string {
	names := make([]string, len(hooks.Events))
	for i, e := range hooks.Events {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n    ") }

// buildInput makes the hook input the engine would make for the event.
func (o *hooksTestOptions) buildInput(ios *IOStreams, cfg *config.Config, event hooks.Event, depth int) (hooks.Input, string, error) {
	in := hooks.Input{Event: event}
	if o.stdinJSON {
		b, err := io.ReadAll(ios.In)
		if err != nil {
			return in, "", err
		}
		if err := json.Unmarshal(b, &in); err != nil {
			return in, "", fmt.Errorf("--stdin-json: %v", err)
		}
		if in.Event == "" {
			in.Event = event
		}
		if in.Event != event {
			return in, "", fmt.Errorf("--stdin-json: the input's event is %q, not %q", in.Event, event)
		}
		switch {
		case in.Tool != nil:
			return in, in.Tool.Name, nil
		case in.Ask != nil:
			return in, in.Ask.Agent, nil
		}
		return in, "", nil
	}
	switch event {
	case hooks.PreGeneration:
		in.Prompt = o.prompt
	case hooks.PostGeneration:
		in.Prompt, in.Answer, in.Error = o.prompt, o.answer, o.errText
	case hooks.PreToolCall, hooks.PostToolCall:
		if o.tool == "" {
			return in, "", fmt.Errorf("%s needs --tool NAME (and --input JSON)", event)
		}
		if !json.Valid([]byte(o.input)) {
			return in, "", fmt.Errorf("--input is not valid JSON: %s", o.input)
		}
		in.Tool = &hooks.Tool{ID: "call_test", Name: o.tool, Input: json.RawMessage(o.input)}
		if event == hooks.PostToolCall {
			in.Output = o.output
		}
		return in, o.tool, nil
	case hooks.PreAsk, hooks.PostAsk:
		path, ok := cfg.MMConfigs[o.agent]
		if !ok {
			return in, "", fmt.Errorf("%s needs --agent NAME, one of the config's mmConfigs (%s)", event, orNone(cfg.AgentNames()))
		}
		switch relay.Via(o.via) {
		case relay.ViaTool, relay.ViaCommand, relay.ViaCLI:
		default:
			return in, "", fmt.Errorf("--via must be tool, command or cli")
		}
		ask := &hooks.Ask{Agent: o.agent, Config: path, Via: o.via, WithContext: o.withContext, Depth: depth, Prompt: o.question}
		if m, ok := config.ModelOf(path); ok {
			ask.AgentModel = m
		}
		if o.withContext {
			ask.Transcript = o.transcript
		}
		in.Ask = ask
		if event == hooks.PostAsk {
			in.Answer, in.Error, in.DurationMs = o.answer, o.errText, o.durationMs
		}
		return in, o.agent, nil
	}
	return in, "", nil
}

// effectLine is one consequence of a chain: who sees what.
type effectLine struct {
	Who  string `json:"who"`
	What string `json:"what"`
}

// effect says what the engine would do with the chain's result, built from
// the same markers and rules the engine applies (packages hooks, relay).
func effect(event hooks.Event, in hooks.Input, res hooks.Result) []effectLine {
	var out []effectLine
	add := func(who, what string) { out = append(out, effectLine{who, what}) }
	switch event {
	case hooks.PreGeneration:
		if res.Stop {
			add("the model", "nothing: the model is not called")
			add("the history", hooks.BlockedMarker(res.Reason)+"\nthen, as the answer: "+res.Response)
			add("the user", res.Response)
			return out
		}
		prompt := in.Prompt
		if res.Prompt != nil {
			prompt = *res.Prompt
		}
		add("the model", hooks.WithContexts(prompt, res.Contexts))
		add("the history", prompt)
	case hooks.PreToolCall:
		if res.Deny {
			add("the tool", "would not run, and no one is asked for consent")
			add("the model", hooks.DeniedOutput(res.Reason))
			add("the user", hooks.DeniedLine(in.Tool.Name, hooks.DeniedOutput(res.Reason)))
			return out
		}
		input := in.Tool.Input
		if res.Input != nil {
			input = res.Input
		}
		add("the tool", "would run with "+string(input))
		add("the history", "keeps the call as the model wrote it: "+string(in.Tool.Input))
		add("the user", calls.ToolLine(orchestrator.Call{Tool: in.Tool.Name, Summary: orchestrator.Summary(input)}))
	case hooks.PostToolCall:
		add("the model", hooks.WithContexts(in.Output, res.Contexts))
		add("the user", "the tool's output, unchanged")
	case hooks.PostGeneration:
		add("the turn", "no effect: postGeneration only observes")
	case hooks.PreAsk:
		if res.Deny {
			add("the asked agent", "is neither started nor asked")
			switch relay.Via(in.Ask.Via) {
			case relay.ViaTool:
				add("the model", relay.DeniedOutput(res.Reason))
				add("the user", hooks.DeniedLine(relay.ToolName, relay.DeniedOutput(res.Reason)))
			case relay.ViaCommand:
				add("the user", "the command fails with: "+relay.DeniedError(res.Reason))
				add("the history", "unchanged")
			case relay.ViaCLI:
				add("the user", "[ask: "+relay.DeniedError(res.Reason)+"] on stderr, exit status 1")
			}
			return out
		}
		prompt, transcript := in.Ask.Prompt, in.Ask.Transcript
		if res.Prompt != nil {
			prompt = *res.Prompt
		}
		if res.Transcript != nil {
			transcript = *res.Transcript
		}
		add("the asked agent", hooks.WithContexts(relay.Message(transcript, prompt), res.Contexts))
		if relay.Via(in.Ask.Via) == relay.ViaCommand {
			add("the history", "keeps the question as sent: "+prompt)
		}
	case hooks.PostAsk:
		answer := in.Answer
		if res.Answer != nil && in.Error != "cancelled" {
			answer = *res.Answer
			add("the user", "the answer as it was shown, then: "+relay.ReplacedNotice(in.Ask.Agent))
		} else if in.Error != "" {
			add("the asking agent", "the relay fails: "+in.Error)
			return out
		}
		add("the asking agent", hooks.WithContexts(answer, res.Contexts))
	}
	return out
}

// newCmdHooksAdapt is mm hooks adapt: a hook written for Claude Code,
// Codex CLI or Gemini CLI, run as an mm hook's command (package hookadapt
// does the translation both ways).
func newCmdHooksAdapt(ios *IOStreams) *cobra.Command {
	var matcher string
	cmd := &cobra.Command{
		Use:   "adapt <claude-code|codex|gemini> -- <command> [args…]",
		Short: "Run a hook written for Claude Code, Codex CLI or Gemini CLI as an mm hook",
		Long: `Used as a hook's command, runs <command> as that agent would: it reads mm's
hook input on stdin, gives <command> the agent's input (its event name, tool
names, argument names and common fields), and turns its exit status and JSON
answer into mm's reply. Exit status 2 denies the call or stops the prompt,
with stderr as the reason; any other non-zero exit is a failure, handled by
the hook's onError.

  hooks:
    preToolCall:
      - command: '"$MM_BIN" hooks adapt claude-code -- ./hooks/block-rm.sh'
        onError: fail

--matcher applies the agent's own matcher (Claude Code's rule) to the agent's
tool names; mm hooks import writes it where mm's matcher cannot say the same.
The mapping of events, tools and fields: docs/reference/hooks-adapt.md.`,
		Args: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			switch {
			case len(args) == 0:
				return &exitError{exitFailure, "mm: hooks adapt needs an agent and a command: mm hooks adapt <claude-code|codex|gemini> -- <command> [args…]"}
			case dash < 0 || dash > 1 || len(args) == dash:
				return &exitError{exitFailure, "mm: hooks adapt runs the command after --: mm hooks adapt <claude-code|codex|gemini> -- <command> [args…]"}
			case dash == 0:
				return &exitError{exitFailure, "mm: hooks adapt needs the agent the hook was written for before --: claude-code, codex or gemini"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			agent, err := hookadapt.ParseAgent(args[0])
			if err != nil {
				return &exitError{exitFailure, "mm: hooks adapt: " + err.Error()}
			}
			m, err := hookadapt.ParseMatcher(matcher)
			if err != nil {
				return &exitError{exitFailure, "mm: hooks adapt: --" + err.Error()}
			}
			r := &hookadapt.Runner{Agent: agent, Matcher: m, Command: args[1:], Env: os.Environ(), MCPServers: configMCPServers}
			reply := r.Run(cmd.Context(), ios.In)
			enc := json.NewEncoder(ios.Out)
			enc.SetEscapeHTML(false)
			return enc.Encode(reply)
		},
	}
	cmd.Flags().StringVar(&matcher, "matcher", "", "run only for the tools the agent's matcher selects, by the agent's names")
	return cmd
}

// configMCPServers are the MCP servers of the config of the mm that runs
// the hook (MM_CONFIG), to tell an MCP tool's server from its tool name.
func configMCPServers() []string {
	path := os.Getenv("MM_CONFIG")
	if path == "" {
		return nil
	}
	cfg, err := config.Load(path)
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(cfg.MCPServers))
	for n := range cfg.MCPServers {
		names = append(names, n)
	}
	return names
}

// newCmdHooksImport is mm hooks import: another agent's hook settings as
// mm's hooks block, every command wrapped in the adapter.
func newCmdHooksImport(ios *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "import <claude-code|codex|gemini> <settings.json>",
		Short: "Print the hooks: block for the hooks of a Claude Code (or Codex, Gemini CLI) settings file",
		Long: `Reads the "hooks" of a settings file — Claude Code's .claude/settings.json or a
plugin's hooks/hooks.json, Codex's hooks.json, Gemini CLI's settings.json —
and prints mm's hooks: block for them on stdout: each command wrapped in
mm hooks adapt, each guard (preGeneration, preToolCall) with onError: fail.
Hooks with no counterpart in mm are left out, each with a note on stderr.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return &exitError{exitFailure, "mm: hooks import takes an agent and a settings file: mm hooks import claude-code .claude/settings.json"}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			agent, err := hookadapt.ParseAgent(args[0])
			if err != nil {
				return &exitError{exitFailure, "mm: hooks import: " + err.Error()}
			}
			data, err := os.ReadFile(args[1])
			if err != nil {
				return &exitError{exitFailure, "mm: hooks import: " + err.Error()}
			}
			out, notes, err := hookadapt.Import(agent, data)
			for _, n := range notes {
				fmt.Fprintln(ios.Err, "note: "+n)
			}
			if err != nil {
				return &exitError{exitFailure, fmt.Sprintf("mm: hooks import: %s: %v", args[1], err)}
			}
			_, err = ios.Out.Write(out)
			return err
		},
	}
}
