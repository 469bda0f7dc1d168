package hookadapt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mm-agent/mm/hooks"
)

// Claude Code and Codex CLI speak the same hook protocol (Codex copied
// Claude Code's: the same events, exit codes and JSON fields); they differ
// in the common input fields and in their tool names.

// claudeInput is the JSON Claude Code or Codex gives a hook for t's event.
// mm has no session id nor transcript file in a hook's input: session_id
// is empty, and transcript_path empty (Claude Code) or null (Codex, where
// it may be).
func (a Agent) claudeInput(t *Translated) object {
	in := t.in
	var o object
	if a == Codex {
		o = object{{"session_id", ""}, {"turn_id", ""}, {"transcript_path", nil}, {"cwd", in.Cwd},
			{"hook_event_name", t.Name}, {"model", in.Model}, {"permission_mode", "default"}}
	} else {
		o = object{{"session_id", ""}, {"transcript_path", ""}, {"cwd", in.Cwd},
			{"permission_mode", "default"}, {"hook_event_name", t.Name}}
	}
	switch in.Event {
	case hooks.PreGeneration:
		o = append(o, field{"prompt", in.Prompt})
	case hooks.PreToolCall:
		o = append(o, field{"tool_name", t.call.name}, field{"tool_input", t.call.input}, field{"tool_use_id", in.Tool.ID})
	case hooks.PostToolCall:
		o = append(o, field{"tool_name", t.call.name}, field{"tool_input", t.call.input},
			field{"tool_response", a.toolResponse(t.call, in.Output)}, field{"tool_use_id", in.Tool.ID})
	case hooks.PreAsk:
		o = append(o, field{"tool_name", t.ask.name}, field{"tool_input", t.ask.input}, field{"tool_use_id", t.ask.id})
	case hooks.PostAsk:
		// The answer as text: mm has the asked agent's answer, not Claude
		// Code's Task result object.
		o = append(o, field{"tool_name", t.ask.name}, field{"tool_input", t.ask.input},
			field{"tool_response", in.Answer}, field{"tool_use_id", t.ask.id})
	case hooks.PostGeneration:
		var last any = in.Answer
		if a == Codex && in.Answer == "" {
			last = nil
		}
		o = append(o, field{"stop_hook_active", false}, field{"last_assistant_message", last})
	}
	return o
}

// toolResponse is a tool's result as the agent's PostToolUse hooks read
// it. mm has one output string per call; Claude Code's built-in tools
// answer objects, so the string goes where a hook looks for it.
func (a Agent) toolResponse(c *call, output string) any {
	if a == Codex || c.t == nil {
		return output
	}
	var path string
	var args map[string]json.RawMessage
	if json.Unmarshal(c.input, &args) == nil {
		json.Unmarshal(args["file_path"], &path)
	}
	switch c.mmName {
	case "bash":
		return object{{"stdout", output}, {"stderr", ""}, {"interrupted", false}, {"isImage", false}}
	case "read_file":
		return object{{"type", "text"}, {"file", object{{"filePath", path}, {"content", output}}}}
	case "write_file", "edit_file":
		return object{{"filePath", path}, {"success", !strings.HasPrefix(output, "error: ")}}
	}
	return output
}

// claudeAnswer is the JSON a Claude Code or Codex hook may print on exit 0.
type claudeAnswer struct {
	Continue       *bool  `json:"continue"`
	StopReason     string `json:"stopReason"`
	SuppressOutput bool   `json:"suppressOutput"` // the peer's screen only: dropped
	SystemMessage  string `json:"systemMessage"`  // the peer's screen only: dropped
	Decision       string `json:"decision"`
	Reason         string `json:"reason"`
	Specific       struct {
		HookEventName            string          `json:"hookEventName"`
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
		UpdatedMCPToolOutput     json.RawMessage `json:"updatedMCPToolOutput"`
		UpdatedToolOutput        json.RawMessage `json:"updatedToolOutput"` // Codex
	} `json:"hookSpecificOutput"`
}

func present(v json.RawMessage) bool {
	s := string(bytes.TrimSpace(v))
	return s != "" && s != "null"
}

// claudeReply turns a Claude Code or Codex hook's exit status 0 or 2 and
// its output into mm's reply.
func (t *Translated) claudeReply(res Result) (Reply, error) {
	if res.ExitCode == 2 {
		// Exit 2 blocks; stderr is the reason and stdout is ignored.
		reason := message(res.Stderr)
		switch t.Event {
		case hooks.PreGeneration:
			return Reply{Action: "stop", Reason: reason}, nil
		case hooks.PreToolCall, hooks.PreAsk:
			return Reply{Action: "deny", Reason: reason}, nil
		case hooks.PostToolCall, hooks.PostAsk:
			return Reply{Context: reason}, nil // the tool already ran: stderr goes to the model
		}
		return Reply{}, fmt.Errorf("the %s hook exited with status 2 to keep the turn going%s; mm's postGeneration only observes", t.Name, because(reason))
	}
	out := bytes.TrimSpace(res.Stdout)
	if len(out) == 0 {
		return Reply{}, nil
	}
	if out[0] != '{' {
		if t.Event == hooks.PreGeneration {
			return Reply{Context: message(out)}, nil // plain stdout is context on UserPromptSubmit
		}
		return Reply{}, nil // elsewhere the peer only shows it in its transcript view
	}
	var ans claudeAnswer
	if err := decodeObject(out, &ans); err != nil {
		return Reply{}, err
	}
	stop := ans.Continue != nil && !*ans.Continue
	spec := ans.Specific
	switch t.Event {
	case hooks.PreGeneration:
		switch {
		case stop:
			return Reply{Action: "stop", Reason: first(ans.StopReason, ans.Reason)}, nil
		case ans.Decision == "block":
			return Reply{Action: "stop", Reason: ans.Reason}, nil
		}
		if err := t.noDecision(ans.Decision, `"block"`); err != nil {
			return Reply{}, err
		}
		return Reply{Context: spec.AdditionalContext}, nil

	case hooks.PreToolCall, hooks.PreAsk:
		if stop {
			// The peer would end its whole turn; mm can only refuse this call.
			return Reply{Action: "deny", Reason: first(ans.StopReason, ans.Reason)}, nil
		}
		switch spec.PermissionDecision {
		case "deny":
			return Reply{Action: "deny", Reason: spec.PermissionDecisionReason}, nil
		case "ask":
			return Reply{}, fmt.Errorf(`permissionDecision "ask" has no counterpart in mm: a hook cannot ask the user (mm asks before a tool runs unless yolo is on)`)
		case "allow", "defer":
		case "":
			// The deprecated top-level form: "block" and "approve".
			switch ans.Decision {
			case "block", "deny":
				return Reply{Action: "deny", Reason: ans.Reason}, nil
			}
			if err := t.noDecision(ans.Decision, `"block"`); err != nil {
				return Reply{}, err
			}
		default:
			return Reply{}, fmt.Errorf("permissionDecision %q is not valid for %s (want allow, deny or ask)", spec.PermissionDecision, t.Name)
		}
		if strings.TrimSpace(spec.AdditionalContext) != "" {
			if t.Event == hooks.PreAsk {
				return Reply{}, fmt.Errorf("additionalContext on %s has no counterpart in mm's preAsk: it would go to the model that asks, and preAsk's context goes to the asked agent", t.Name)
			}
			return Reply{}, fmt.Errorf("additionalContext on %s has no counterpart in mm: a preToolCall hook cannot add context (a postToolCall hook can)", t.Name)
		}
		if present(spec.UpdatedInput) {
			r, err := t.replaced(spec.UpdatedInput)
			if err != nil {
				return Reply{}, fmt.Errorf("updatedInput: %w", err)
			}
			return r, nil
		}
		return Reply{}, nil

	case hooks.PostToolCall, hooks.PostAsk:
		if stop {
			return Reply{}, fmt.Errorf("continue: false on %s would end the turn; mm's %s cannot", t.Name, t.Event)
		}
		var answer *string
		if t.Event == hooks.PostAsk && t.Agent == Codex && present(spec.UpdatedToolOutput) {
			// Codex replaces the tool's output: on postAsk, the answer.
			var s string
			if err := json.Unmarshal(spec.UpdatedToolOutput, &s); err != nil {
				return Reply{}, fmt.Errorf("updatedToolOutput on %s must be a string (the answer the asking agent reads)", t.Name)
			}
			answer, spec.UpdatedToolOutput = &s, nil
		}
		for _, o := range []struct {
			name string
			v    json.RawMessage
		}{{"updatedMCPToolOutput", spec.UpdatedMCPToolOutput}, {"updatedToolOutput", spec.UpdatedToolOutput}} {
			if present(o.v) {
				if t.Event == hooks.PostAsk {
					return Reply{}, fmt.Errorf("%s on %s has no counterpart in mm's postAsk: Claude Code replaces only an MCP tool's output, and a hand-off is not one", o.name, t.Name)
				}
				return Reply{}, fmt.Errorf("%s has no counterpart in mm: a postToolCall hook cannot replace a tool's output, only add context after it", o.name)
			}
		}
		var parts []string
		if ans.Decision == "block" {
			parts = append(parts, ans.Reason) // "prompts Claude with the reason"
		} else if err := t.noDecision(ans.Decision, `"block"`); err != nil {
			return Reply{}, err
		}
		parts = append(parts, spec.AdditionalContext)
		return Reply{Context: joinContext(parts), Answer: answer}, nil
	}

	// postGeneration (Stop): mm's turn is over and cannot be resumed.
	if ans.Decision == "block" {
		return Reply{}, fmt.Errorf(`decision "block" on %s asks to keep the turn going%s; mm's postGeneration only observes`, t.Name, because(ans.Reason))
	}
	return Reply{}, t.noDecision(ans.Decision, `"block"`)
}

// noDecision accepts an absent decision and the ones that change nothing.
func (t *Translated) noDecision(d, want string) error {
	switch d {
	case "", "approve", "allow":
		return nil
	}
	return fmt.Errorf("decision %q is not valid for %s (want %s)", d, t.Name, want)
}

func first(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

func because(reason string) string {
	if reason == "" {
		return ""
	}
	return " (" + reason + ")"
}

// joinContext joins a hook's pieces of context, blank ones dropped.
func joinContext(parts []string) string {
	var kept []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			kept = append(kept, strings.TrimSpace(p))
		}
	}
	return strings.Join(kept, "\n\n")
}
