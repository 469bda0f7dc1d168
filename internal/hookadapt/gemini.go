package hookadapt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mm-agent/mm/hooks"
)

// geminiInput is the JSON Gemini CLI gives a hook for t's event (its hooks
// reference, "Base input schema" and the event sections).
func (a Agent) geminiInput(t *Translated, env Env) object {
	in := t.in
	o := object{{"session_id", ""}, {"transcript_path", ""}, {"cwd", in.Cwd}, {"hook_event_name", t.Name}, {"timestamp", env.Now}}
	switch in.Event {
	case hooks.PreGeneration:
		o = append(o, field{"prompt", in.Prompt})
	case hooks.PreToolCall, hooks.PostToolCall:
		o = append(o, field{"tool_name", t.call.name}, field{"tool_input", t.call.input})
		if in.Event == hooks.PostToolCall {
			resp := object{{"llmContent", in.Output}, {"returnDisplay", in.Output}}
			if e, ok := strings.CutPrefix(in.Output, "error: "); ok {
				resp = append(resp, field{"error", e})
			}
			o = append(o, field{"tool_response", resp})
		}
		if m := t.call.mcp; m != nil {
			o = append(o, field{"mcp_context", object{{"server_name", m.server}, {"tool_name", m.tool}}})
		}
	case hooks.PreAsk, hooks.PostAsk:
		o = append(o, field{"tool_name", t.ask.name}, field{"tool_input", t.ask.input})
		if in.Event == hooks.PostAsk {
			resp := object{{"llmContent", in.Answer}, {"returnDisplay", in.Answer}}
			if in.Error != "" {
				resp = append(resp, field{"error", in.Error})
			}
			o = append(o, field{"tool_response", resp})
		}
	case hooks.PostGeneration:
		o = append(o, field{"prompt", in.Prompt}, field{"prompt_response", in.Answer}, field{"stop_hook_active", false})
	}
	return o
}

// geminiAnswer is the JSON a Gemini CLI hook may print (its hooks
// reference, "Common output fields" and the event sections).
type geminiAnswer struct {
	Continue       *bool  `json:"continue"`
	StopReason     string `json:"stopReason"`
	SuppressOutput bool   `json:"suppressOutput"` // the peer's screen only: dropped
	SystemMessage  string `json:"systemMessage"`  // the peer's screen only: dropped
	Decision       string `json:"decision"`
	Reason         string `json:"reason"`
	Specific       struct {
		HookEventName     string          `json:"hookEventName"`
		AdditionalContext string          `json:"additionalContext"`
		ToolInput         json.RawMessage `json:"tool_input"`
		ToolOutput        json.RawMessage `json:"tool_output"`
		ClearContext      bool            `json:"clearContext"`
	} `json:"hookSpecificOutput"`
}

// geminiReply turns a Gemini CLI hook's exit status 0 or 2 and its output
// into mm's reply.
func (t *Translated) geminiReply(res Result) (Reply, error) {
	if res.ExitCode == 2 {
		reason := message(res.Stderr)
		switch t.Event {
		case hooks.PreGeneration:
			return Reply{Action: "stop", Reason: reason}, nil
		case hooks.PreToolCall, hooks.PreAsk:
			return Reply{Action: "deny", Reason: reason}, nil
		case hooks.PostAsk:
			// Gemini CLI hides the tool's output behind stderr: on postAsk,
			// the answer the asking agent reads.
			return Reply{Answer: &reason}, nil
		case hooks.PostToolCall:
			return Reply{}, fmt.Errorf("exit status 2 on AfterTool hides the tool's output behind stderr%s; a postToolCall hook cannot replace a tool's output, only add context after it", because(reason))
		}
		return Reply{}, fmt.Errorf("exit status 2 on AfterAgent asks for another try%s; mm's postGeneration only observes", because(reason))
	}
	out := bytes.TrimSpace(res.Stdout)
	if len(out) > 0 && out[0] == '"' {
		var inner string // Gemini CLI reads a JSON string holding the object too
		if json.Unmarshal(out, &inner) == nil {
			out = bytes.TrimSpace([]byte(inner))
		}
	}
	if len(out) == 0 || out[0] != '{' {
		return Reply{}, nil // plain text is a message for the peer's screen
	}
	var ans geminiAnswer
	if err := decodeObject(out, &ans); err != nil {
		return Reply{}, err
	}
	stop := ans.Continue != nil && !*ans.Continue
	blocks := ans.Decision == "deny" || ans.Decision == "block"
	switch ans.Decision {
	case "", "allow", "approve", "deny", "block":
	case "ask":
		if t.Event == hooks.PreToolCall || t.Event == hooks.PreAsk {
			return Reply{}, fmt.Errorf(`decision "ask" has no counterpart in mm: a hook cannot ask the user (mm asks before a tool runs unless yolo is on)`)
		}
		fallthrough
	default:
		return Reply{}, fmt.Errorf("decision %q is not valid for %s (want allow or deny)", ans.Decision, t.Name)
	}
	spec := ans.Specific
	switch t.Event {
	case hooks.PreGeneration:
		switch {
		case blocks:
			return Reply{Action: "stop", Reason: ans.Reason}, nil
		case stop:
			return Reply{Action: "stop", Reason: first(ans.StopReason, ans.Reason)}, nil
		}
		return Reply{Context: spec.AdditionalContext}, nil

	case hooks.PreToolCall, hooks.PreAsk:
		switch {
		case blocks:
			return Reply{Action: "deny", Reason: ans.Reason}, nil
		case stop:
			// Gemini CLI would end its whole agent loop; mm can only refuse
			// this call.
			return Reply{Action: "deny", Reason: first(ans.StopReason, ans.Reason)}, nil
		}
		if present(spec.ToolInput) {
			merged, err := mergeOver(t.toolInput(), spec.ToolInput)
			if err != nil {
				return Reply{}, fmt.Errorf("hookSpecificOutput.tool_input: %w", err)
			}
			r, err := t.replaced(merged)
			if err != nil {
				return Reply{}, fmt.Errorf("hookSpecificOutput.tool_input: %w", err)
			}
			return r, nil
		}
		return Reply{}, nil

	case hooks.PostAsk:
		// A replaced output is the answer the asking agent reads.
		switch {
		case stop:
			return Reply{}, fmt.Errorf("continue: false on %s would end the turn; mm's postAsk cannot", t.Name)
		case blocks:
			r := ans.Reason
			return Reply{Answer: &r, Context: strings.TrimSpace(spec.AdditionalContext)}, nil
		case present(spec.ToolOutput):
			var s string
			if err := json.Unmarshal(spec.ToolOutput, &s); err != nil {
				return Reply{}, fmt.Errorf("hookSpecificOutput.tool_output on %s must be a string (the answer the asking agent reads)", t.Name)
			}
			return Reply{Answer: &s, Context: strings.TrimSpace(spec.AdditionalContext)}, nil
		}
		return Reply{Context: strings.TrimSpace(spec.AdditionalContext)}, nil

	case hooks.PostToolCall:
		switch {
		case stop:
			return Reply{}, fmt.Errorf("continue: false on %s would end the turn; mm's postToolCall cannot", t.Name)
		case blocks:
			return Reply{}, fmt.Errorf(`decision %q on %s replaces the tool's output; a postToolCall hook cannot, it can only add context after it`, ans.Decision, t.Name)
		case present(spec.ToolOutput):
			return Reply{}, fmt.Errorf("hookSpecificOutput.tool_output has no counterpart in mm: a postToolCall hook cannot replace a tool's output, only add context after it")
		}
		return Reply{Context: strings.TrimSpace(spec.AdditionalContext)}, nil
	}

	// postGeneration (AfterAgent): mm's turn is over and cannot be retried.
	switch {
	case blocks:
		return Reply{}, fmt.Errorf(`decision %q on %s asks for another try%s; mm's postGeneration only observes`, ans.Decision, t.Name, because(ans.Reason))
	case spec.ClearContext:
		return Reply{}, fmt.Errorf("hookSpecificOutput.clearContext has no counterpart in mm: a hook cannot clear the conversation")
	}
	return Reply{}, nil
}

// mergeOver is Gemini CLI's tool_input rule: the hook's object "merges
// with and overrides" the model's arguments.
func mergeOver(base, over json.RawMessage) (json.RawMessage, error) {
	var b, o map[string]json.RawMessage
	json.Unmarshal(base, &b)
	if err := json.Unmarshal(over, &o); err != nil || o == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	if b == nil {
		b = map[string]json.RawMessage{}
	}
	for k, v := range o {
		b[k] = v
	}
	var out object
	for _, k := range sortedKeys(b) {
		out = append(out, field{k, b[k]})
	}
	return out.MarshalJSON()
}
