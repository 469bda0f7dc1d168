package hookadapt

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mm-agent/mm/hooks"
)

// A relay is, to the peers, a hand-off to a sub-agent: a tool call their
// PreToolUse/BeforeTool hooks guard and their PostToolUse/AfterTool hooks
// read the result of. So mm's preAsk and postAsk run the agent's tool
// events, for the tool the agent hands off with:
//
//   - Claude Code: its sub-agent tool, Task {description, prompt,
//     subagent_type} (its hooks reference names Task among the tools a
//     matcher selects; newer releases call it Agent, which --matcher
//     accepts too). The hook reads what the asked agent receives — the
//     prompt is the question, preceded by the conversation with
//     withContext — and subagent_type is the asked agent's name. Task,
//     rather than mm's own ask_agent: a guard written for Claude Code
//     knows Task, and preAsk sees every relay (the tool, /ask, mm --ask),
//     where the ask_agent tool's preToolCall sees the model's only.
//   - Codex CLI and Gemini CLI have no hand-off tool their hooks see; the
//     relay keeps mm's presentation of the ask_agent tool, as in
//     preToolCall: ask_agent {agent, question, withContext}.
//
// preToolCall on the ask_agent tool is unchanged (mm's own name for all
// three): a Task guard is for preAsk, which runs once per relay.

// claudeTask is Claude Code's sub-agent tool, as its hooks name it.
const claudeTask = "Task"

// askCall is one relay as the agent's hand-off tool call.
type askCall struct {
	agent   Agent
	name    string          // the agent's tool name
	input   json.RawMessage // the agent's arguments
	ask     hooks.Ask
	message string // Claude Code's prompt: what the asked agent receives
	// id stands for the tool call's id (tool_use_id), which a relay does
	// not have: the same for a relay's preAsk and postAsk (unless a preAsk
	// hook replaced the question), different for another question or
	// agent, so that a hook keeping state by the id does not mix relays.
	id string
}

func (a Agent) askCall(ask *hooks.Ask) *askCall {
	sum := sha256.Sum256([]byte(ask.Agent + "\x00" + strconv.Itoa(ask.Depth) + "\x00" + ask.Prompt))
	c := &askCall{agent: a, ask: *ask, id: "ask_" + hex.EncodeToString(sum[:8])}
	if a == ClaudeCode {
		c.name = claudeTask
		c.message = ask.Prompt
		if ask.Transcript != "" {
			c.message = ask.Transcript + "\n\n" + ask.Prompt // as package relay joins them
		}
		c.input, _ = object{{"description", "ask " + ask.Agent}, {"prompt", c.message}, {"subagent_type", ask.Agent}}.MarshalJSON()
		return c
	}
	c.name = askAgentTool
	c.input, _ = object{{"agent", ask.Agent}, {"question", ask.Prompt}, {"withContext", ask.WithContext}}.MarshalJSON()
	return c
}

// fromAgent maps a replaced input back to preAsk's reply: the question
// sent. What a preAsk hook cannot change — which agent is asked, whether
// the conversation goes with the question — is a failure naming it.
func (c *askCall) fromAgent(updated json.RawMessage) (*string, error) {
	var args map[string]json.RawMessage
	if err := json.Unmarshal(updated, &args); err != nil || args == nil {
		return nil, fmt.Errorf("the replaced input of %s is not a JSON object", c.name)
	}
	str := func(k string) (string, bool, error) {
		v, ok := args[k]
		if !ok {
			return "", false, nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", true, fmt.Errorf("%s.%s must be a string", c.name, k)
		}
		return s, true, nil
	}
	var prompt *string
	if c.agent == ClaudeCode {
		for k := range args {
			switch k {
			case "prompt", "subagent_type", "description": // description: the peer's screen only
			default:
				return nil, fmt.Errorf("%s.%s has no counterpart in mm's relay", c.name, k)
			}
		}
		if s, ok, err := str("subagent_type"); err != nil {
			return nil, err
		} else if ok && s != c.ask.Agent {
			return nil, fmt.Errorf("%s.subagent_type %q: a preAsk hook cannot send the question to another agent (%s is asked)", c.name, s, c.ask.Agent)
		}
		s, ok, err := str("prompt")
		switch {
		case err != nil:
			return nil, err
		case !ok || s == c.message:
			return nil, nil
		case c.ask.Transcript == "":
			return &s, nil
		}
		// The prompt holds the conversation, then the question: only a
		// question rewritten after the conversation maps back.
		head := c.ask.Transcript + "\n\n"
		if len(s) >= len(head) && s[:len(head)] == head {
			q := s[len(head):]
			return &q, nil
		}
		return nil, fmt.Errorf("%s.prompt: the conversation sent with the question was changed; a preAsk hook can only rewrite the question after it", c.name)
	}
	for k, v := range args {
		switch k {
		case "question":
		case "agent":
			var s string
			if json.Unmarshal(v, &s) != nil || s != c.ask.Agent {
				return nil, fmt.Errorf("%s.agent = %s: a preAsk hook cannot send the question to another agent (%s is asked)", c.name, compact(v), c.ask.Agent)
			}
		case "withContext":
			var b bool
			if json.Unmarshal(v, &b) != nil || b != c.ask.WithContext {
				return nil, fmt.Errorf("%s.withContext = %s has no counterpart in mm: a preAsk hook cannot change whether the conversation is sent", c.name, compact(v))
			}
		default:
			return nil, fmt.Errorf("%s.%s has no counterpart in mm's relay", c.name, k)
		}
	}
	s, ok, err := str("question")
	if err != nil || !ok || s == c.ask.Prompt {
		return nil, err
	}
	prompt = &s
	return prompt, nil
}
