package hookadapt

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mm-agent/mm/hooks"
)

func input(event hooks.Event, tool string, args string) hooks.Input {
	in := hooks.Input{Event: event, Cwd: "/work/p", Model: "llmman/m"}
	if tool != "" {
		in.Tool = &hooks.Tool{ID: "call_1", Name: tool, Input: json.RawMessage(args)}
	}
	return in
}

func translate(t *testing.T, a Agent, in hooks.Input, servers ...string) *Translated {
	t.Helper()
	tr, err := a.Translate(in, Env{MCPServers: func() []string { return servers }, Now: "2026-11-29T13:54:04.123Z"})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	return tr
}

// TestTranslateInput pins the whole input each agent's hook reads, field
// order included, for each event.
func TestTranslateInput(t *testing.T) {
	post := input(hooks.PostToolCall, "bash", `{"command":"ls && pwd"}`)
	post.Output = "a\n[exit status 0]"
	gen := hooks.Input{Event: hooks.PostGeneration, Cwd: "/work/p", Model: "llmman/m", Prompt: "hi", Answer: "hello"}
	for _, c := range []struct {
		name string
		a    Agent
		in   hooks.Input
		want string
	}{
		{"claude prompt", ClaudeCode, hooks.Input{Event: hooks.PreGeneration, Cwd: "/work/p", Prompt: "list <files>"},
			`{"session_id":"","transcript_path":"","cwd":"/work/p","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"list <files>"}`},
		{"claude empty prompt is still there", ClaudeCode, hooks.Input{Event: hooks.PreGeneration, Cwd: "/work/p"},
			`{"session_id":"","transcript_path":"","cwd":"/work/p","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":""}`},
		{"claude bash", ClaudeCode, input(hooks.PreToolCall, "bash", `{"command":"rm -rf build && ls"}`),
			`{"session_id":"","transcript_path":"","cwd":"/work/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf build && ls"},"tool_use_id":"call_1"}`},
		{"claude write, path made absolute", ClaudeCode, input(hooks.PreToolCall, "write_file", `{"path":"src/a.go","content":"x"}`),
			`{"session_id":"","transcript_path":"","cwd":"/work/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/work/p/src/a.go","content":"x"},"tool_use_id":"call_1"}`},
		{"claude edit", ClaudeCode, input(hooks.PreToolCall, "edit_file", `{"path":"/abs/a.go","old":"a","new":"b"}`),
			`{"session_id":"","transcript_path":"","cwd":"/work/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"/abs/a.go","old_string":"a","new_string":"b"},"tool_use_id":"call_1"}`},
		{"claude read", ClaudeCode, input(hooks.PreToolCall, "read_file", `{"path":".env"}`),
			`{"session_id":"","transcript_path":"","cwd":"/work/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/work/p/.env"},"tool_use_id":"call_1"}`},
		{"claude ask_agent keeps its name", ClaudeCode, input(hooks.PreToolCall, "ask_agent", `{"agent":"expert","question":"q"}`),
			`{"session_id":"","transcript_path":"","cwd":"/work/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"ask_agent","tool_input":{"agent":"expert","question":"q"},"tool_use_id":"call_1"}`},
		{"claude post bash", ClaudeCode, post,
			`{"session_id":"","transcript_path":"","cwd":"/work/p","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls && pwd"},"tool_response":{"stdout":"a\n[exit status 0]","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"call_1"}`},
		{"claude stop", ClaudeCode, gen,
			`{"session_id":"","transcript_path":"","cwd":"/work/p","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"hello"}`},
		{"codex bash", Codex, input(hooks.PreToolCall, "bash", `{"command":"ls"}`),
			`{"session_id":"","turn_id":"","transcript_path":null,"cwd":"/work/p","hook_event_name":"PreToolUse","model":"llmman/m","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"call_1"}`},
		{"codex write is apply_patch", Codex, input(hooks.PreToolCall, "write_file", `{"path":"a.txt","content":"one\ntwo\n"}`),
			`{"session_id":"","turn_id":"","transcript_path":null,"cwd":"/work/p","hook_event_name":"PreToolUse","model":"llmman/m","permission_mode":"default","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** End Patch\n"},"tool_use_id":"call_1"}`},
		{"codex edit is apply_patch", Codex, input(hooks.PreToolCall, "edit_file", `{"path":"a.txt","old":"one","new":"uno"}`),
			`{"session_id":"","turn_id":"","transcript_path":null,"cwd":"/work/p","hook_event_name":"PreToolUse","model":"llmman/m","permission_mode":"default","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n*** End Patch\n"},"tool_use_id":"call_1"}`},
		{"codex read keeps mm's name", Codex, input(hooks.PreToolCall, "read_file", `{"path":"a.txt"}`),
			`{"session_id":"","turn_id":"","transcript_path":null,"cwd":"/work/p","hook_event_name":"PreToolUse","model":"llmman/m","permission_mode":"default","tool_name":"read_file","tool_input":{"path":"a.txt"},"tool_use_id":"call_1"}`},
		{"codex post", Codex, post,
			`{"session_id":"","turn_id":"","transcript_path":null,"cwd":"/work/p","hook_event_name":"PostToolUse","model":"llmman/m","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls && pwd"},"tool_response":"a\n[exit status 0]","tool_use_id":"call_1"}`},
		{"codex stop with no answer", Codex, hooks.Input{Event: hooks.PostGeneration, Cwd: "/work/p", Model: "llmman/m", Error: "cancelled"},
			`{"session_id":"","turn_id":"","transcript_path":null,"cwd":"/work/p","hook_event_name":"Stop","model":"llmman/m","permission_mode":"default","stop_hook_active":false,"last_assistant_message":null}`},
		{"gemini prompt", Gemini, hooks.Input{Event: hooks.PreGeneration, Cwd: "/work/p", Prompt: "hi"},
			`{"session_id":"","transcript_path":"","cwd":"/work/p","hook_event_name":"BeforeAgent","timestamp":"2026-11-29T13:54:04.123Z","prompt":"hi"}`},
		{"gemini bash", Gemini, input(hooks.PreToolCall, "bash", `{"command":"ls"}`),
			`{"session_id":"","transcript_path":"","cwd":"/work/p","hook_event_name":"BeforeTool","timestamp":"2026-11-29T13:54:04.123Z","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`},
		{"gemini edit is replace", Gemini, input(hooks.PreToolCall, "edit_file", `{"path":"a","old":"x","new":"y"}`),
			`{"session_id":"","transcript_path":"","cwd":"/work/p","hook_event_name":"BeforeTool","timestamp":"2026-11-29T13:54:04.123Z","tool_name":"replace","tool_input":{"file_path":"/work/p/a","old_string":"x","new_string":"y"}}`},
		{"gemini after tool", Gemini, post,
			`{"session_id":"","transcript_path":"","cwd":"/work/p","hook_event_name":"AfterTool","timestamp":"2026-11-29T13:54:04.123Z","tool_name":"run_shell_command","tool_input":{"command":"ls && pwd"},"tool_response":{"llmContent":"a\n[exit status 0]","returnDisplay":"a\n[exit status 0]"}}`},
		{"gemini after agent", Gemini, gen,
			`{"session_id":"","transcript_path":"","cwd":"/work/p","hook_event_name":"AfterAgent","timestamp":"2026-11-29T13:54:04.123Z","prompt":"hi","prompt_response":"hello","stop_hook_active":false}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := strings.TrimSpace(string(translate(t, c.a, c.in).Stdin))
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestTranslateMCP(t *testing.T) {
	servers := []string{"fs", "fs_extra", "memory"}
	for _, c := range []struct {
		a          Agent
		mm, want   string
		mcpContext string
	}{
		{ClaudeCode, "memory_create_entities", "mcp__memory__create_entities", ""},
		{ClaudeCode, "fs_extra_read_file", "mcp__fs_extra__read_file", ""},
		{ClaudeCode, "fs_read_file", "mcp__fs__read_file", ""},
		{Codex, "memory_create_entities", "mcp__memory__create_entities", ""},
		{Gemini, "fs_read_file", "mcp_fs_read_file", `"mcp_context":{"server_name":"fs","tool_name":"read_file"}`},
		// Not a server of the config (an editor's, say): the name is kept.
		{ClaudeCode, "web_fetch", "web_fetch", ""},
	} {
		tr := translate(t, c.a, input(hooks.PreToolCall, c.mm, `{"x":1}`), servers...)
		if tr.ToolName != c.want {
			t.Errorf("%s %s: tool name %q, want %q", c.a, c.mm, tr.ToolName, c.want)
		}
		if !strings.Contains(string(tr.Stdin), `"tool_input":{"x":1}`) {
			t.Errorf("%s %s: arguments changed: %s", c.a, c.mm, tr.Stdin)
		}
		if c.mcpContext != "" && !strings.Contains(string(tr.Stdin), c.mcpContext) {
			t.Errorf("%s %s: no %s in %s", c.a, c.mm, c.mcpContext, tr.Stdin)
		}
	}
	// Built-in tools never ask for the config.
	asked := false
	ClaudeCode.Translate(input(hooks.PreToolCall, "bash", `{}`), Env{MCPServers: func() []string { asked = true; return nil }})
	if asked {
		t.Error("the config was read for a built-in tool")
	}
}

// TestAsk pins a relay as each agent's hand-off: preAsk and postAsk run
// its tool events, Claude Code's Task or mm's own ask_agent.
func TestAskInput(t *testing.T) {
	ask := &hooks.Ask{Agent: "expert", Via: "cli", Prompt: "what is an inode?"}
	withCtx := &hooks.Ask{Agent: "expert", Via: "tool", WithContext: true, Prompt: "and this?", Transcript: "[user] hi"}
	pre := func(a *hooks.Ask) hooks.Input {
		return hooks.Input{Event: hooks.PreAsk, Cwd: "/work/p", Model: "llmman/m", Ask: a}
	}
	post := hooks.Input{Event: hooks.PostAsk, Cwd: "/work/p", Model: "llmman/m", Ask: ask, Answer: "a number"}
	for _, c := range []struct {
		name string
		a    Agent
		in   hooks.Input
		want string
	}{
		{"claude preAsk is Task", ClaudeCode, pre(ask),
			`{"session_id":"","transcript_path":"","cwd":"/work/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Task","tool_input":{"description":"ask expert","prompt":"what is an inode?","subagent_type":"expert"},"tool_use_id":"ask_d4c8dba7f8033d14"}`},
		{"claude preAsk prompt holds the conversation", ClaudeCode, pre(withCtx),
			`{"session_id":"","transcript_path":"","cwd":"/work/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Task","tool_input":{"description":"ask expert","prompt":"[user] hi\n\nand this?","subagent_type":"expert"},"tool_use_id":"ask_f443c6d4188f1662"}`},
		{"claude postAsk", ClaudeCode, post,
			`{"session_id":"","transcript_path":"","cwd":"/work/p","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Task","tool_input":{"description":"ask expert","prompt":"what is an inode?","subagent_type":"expert"},"tool_response":"a number","tool_use_id":"ask_d4c8dba7f8033d14"}`},
		{"codex preAsk is ask_agent", Codex, pre(withCtx),
			`{"session_id":"","turn_id":"","transcript_path":null,"cwd":"/work/p","hook_event_name":"PreToolUse","model":"llmman/m","permission_mode":"default","tool_name":"ask_agent","tool_input":{"agent":"expert","question":"and this?","withContext":true},"tool_use_id":"ask_f443c6d4188f1662"}`},
		{"gemini preAsk is ask_agent", Gemini, pre(ask),
			`{"session_id":"","transcript_path":"","cwd":"/work/p","hook_event_name":"BeforeTool","timestamp":"2026-11-29T13:54:04.123Z","tool_name":"ask_agent","tool_input":{"agent":"expert","question":"what is an inode?","withContext":false}}`},
		{"gemini postAsk", Gemini, post,
			`{"session_id":"","transcript_path":"","cwd":"/work/p","hook_event_name":"AfterTool","timestamp":"2026-11-29T13:54:04.123Z","tool_name":"ask_agent","tool_input":{"agent":"expert","question":"what is an inode?","withContext":false},"tool_response":{"llmContent":"a number","returnDisplay":"a number"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := translate(t, c.a, c.in)
			if got := strings.TrimSpace(string(tr.Stdin)); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
	if _, err := ClaudeCode.Translate(hooks.Input{Event: hooks.PreAsk}, Env{}); err == nil {
		t.Error("a preAsk input with no ask object was translated")
	}
}

// TestAskReply: the answers of a hand-off guard, mapped to preAsk's and
// postAsk's replies.
func TestAskReply(t *testing.T) {
	ask := &hooks.Ask{Agent: "expert", Prompt: "q"}
	withCtx := &hooks.Ask{Agent: "expert", WithContext: true, Prompt: "q", Transcript: "T"}
	pre := func(a *hooks.Ask) hooks.Input { return hooks.Input{Event: hooks.PreAsk, Cwd: "/work/p", Ask: a} }
	post := hooks.Input{Event: hooks.PostAsk, Cwd: "/work/p", Ask: ask, Answer: "A"}
	for _, c := range []struct {
		name   string
		a      Agent
		in     hooks.Input
		exit   int
		stdout string
		stderr string
		want   string
	}{
		{"claude exit 2 denies the relay", ClaudeCode, pre(ask), 2, "", "no secrets\n", `{"action":"deny","reason":"no secrets"}`},
		{"codex exit 2 denies", Codex, pre(ask), 2, "", "no", `{"action":"deny","reason":"no"}`},
		{"gemini exit 2 denies", Gemini, pre(ask), 2, "", "no", `{"action":"deny","reason":"no"}`},
		{"exit 1 fails", ClaudeCode, pre(ask), 1, "", "boom", `{"action":"error","error":"exit status 1: boom"}`},
		{"claude permissionDecision deny", ClaudeCode, pre(ask), 0, `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"r"}}`, "", `{"action":"deny","reason":"r"}`},
		{"claude block", ClaudeCode, pre(ask), 0, `{"decision":"block","reason":"r"}`, "", `{"action":"deny","reason":"r"}`},
		{"claude continue false denies the relay", ClaudeCode, pre(ask), 0, `{"continue":false,"stopReason":"halt"}`, "", `{"action":"deny","reason":"halt"}`},
		{"gemini deny", Gemini, pre(ask), 0, `{"decision":"deny","reason":"r"}`, "", `{"action":"deny","reason":"r"}`},
		{"gemini ask", Gemini, pre(ask), 0, `{"decision":"ask"}`, "", `{"action":"error","error":"gemini: decision \"ask\" has no counterpart in mm: a hook cannot ask the user (mm asks before a tool runs unless yolo is on)"}`},
		{"claude rewrites the prompt", ClaudeCode, pre(ask), 0, `{"hookSpecificOutput":{"updatedInput":{"description":"x","prompt":"q2","subagent_type":"expert"}}}`, "", `{"prompt":"q2"}`},
		{"claude rewrites the question after the conversation", ClaudeCode, pre(withCtx), 0, `{"hookSpecificOutput":{"updatedInput":{"prompt":"T\n\nq2","subagent_type":"expert"}}}`, "", `{"prompt":"q2"}`},
		{"claude rewrites the conversation", ClaudeCode, pre(withCtx), 0, `{"hookSpecificOutput":{"updatedInput":{"prompt":"q2"}}}`, "", `{"action":"error","error":"claude-code: updatedInput: Task.prompt: the conversation sent with the question was changed; a preAsk hook can only rewrite the question after it"}`},
		{"claude another subagent", ClaudeCode, pre(ask), 0, `{"hookSpecificOutput":{"updatedInput":{"prompt":"q","subagent_type":"Explore"}}}`, "", `{"action":"error","error":"claude-code: updatedInput: Task.subagent_type \"Explore\": a preAsk hook cannot send the question to another agent (expert is asked)"}`},
		{"claude context goes nowhere", ClaudeCode, pre(ask), 0, `{"hookSpecificOutput":{"additionalContext":"c"}}`, "", `{"action":"error","error":"claude-code: additionalContext on PreToolUse has no counterpart in mm's preAsk: it would go to the model that asks, and preAsk's context goes to the asked agent"}`},
		{"codex rewrites the question", Codex, pre(ask), 0, `{"hookSpecificOutput":{"updatedInput":{"agent":"expert","question":"q2"}}}`, "", `{"prompt":"q2"}`},
		{"codex another agent", Codex, pre(ask), 0, `{"hookSpecificOutput":{"updatedInput":{"agent":"intern","question":"q"}}}`, "", `{"action":"error","error":"codex: updatedInput: ask_agent.agent = \"intern\": a preAsk hook cannot send the question to another agent (expert is asked)"}`},
		{"gemini merges the question", Gemini, pre(ask), 0, `{"hookSpecificOutput":{"tool_input":{"question":"q2"}}}`, "", `{"prompt":"q2"}`},
		{"gemini withContext refused", Gemini, pre(ask), 0, `{"hookSpecificOutput":{"tool_input":{"withContext":true}}}`, "", `{"action":"error","error":"gemini: hookSpecificOutput.tool_input: ask_agent.withContext = true has no counterpart in mm: a preAsk hook cannot change whether the conversation is sent"}`},
		// postAsk: context after the answer, or a replaced answer.
		{"claude post exit 2 is context", ClaudeCode, post, 2, "", "check it", `{"context":"check it"}`},
		{"claude post block and context", ClaudeCode, post, 0, `{"decision":"block","reason":"r","hookSpecificOutput":{"additionalContext":"c"}}`, "", `{"context":"r\n\nc"}`},
		{"claude post MCP output", ClaudeCode, post, 0, `{"hookSpecificOutput":{"updatedMCPToolOutput":"x"}}`, "", `{"action":"error","error":"claude-code: updatedMCPToolOutput on PostToolUse has no counterpart in mm's postAsk: Claude Code replaces only an MCP tool's output, and a hand-off is not one"}`},
		{"codex post replaces the answer", Codex, post, 0, `{"hookSpecificOutput":{"updatedToolOutput":"B"}}`, "", `{"answer":"B"}`},
		{"claude has no updatedToolOutput", ClaudeCode, post, 0, `{"hookSpecificOutput":{"updatedToolOutput":"B"}}`, "", `{"action":"error","error":"claude-code: updatedToolOutput on PostToolUse has no counterpart in mm's postAsk: Claude Code replaces only an MCP tool's output, and a hand-off is not one"}`},
		{"gemini post exit 2 replaces the answer", Gemini, post, 2, "", "hidden", `{"answer":"hidden"}`},
		{"gemini post deny replaces the answer", Gemini, post, 0, `{"decision":"deny","reason":"redacted"}`, "", `{"answer":"redacted"}`},
		{"gemini post context", Gemini, post, 0, `{"hookSpecificOutput":{"additionalContext":"c"}}`, "", `{"context":"c"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := translate(t, c.a, c.in)
			r := tr.Reply(Result{ExitCode: c.exit, Stdout: []byte(c.stdout), Stderr: []byte(c.stderr)})
			got, _ := marshal(r)
			if !jsonEqual(got, json.RawMessage(c.want)) {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestWraps: a command is adapted only when it runs mm's hooks adapt, read
// as the shell splits it and as the adapt command reads its flags.
func TestWraps(t *testing.T) {
	for _, c := range []struct {
		command string
		agent   Agent
		ok      bool
		err     string
	}{
		{`"$MM_BIN" hooks adapt claude-code -- ./guard.sh`, ClaudeCode, true, ""},
		{`"$MM_BIN" hooks adapt --matcher Bash claude-code -- sh -c "exit 2"`, ClaudeCode, true, ""},
		{`"$MM_BIN" hooks adapt --matcher=Bash gemini -- ./g`, Gemini, true, ""},
		{`"$MM_BIN" hooks adapt codex --matcher 'Write|Edit' -- ./g`, Codex, true, ""},
		{`${MM_BIN} -c agent.yaml hooks adapt codex -- ./g`, Codex, true, ""},
		{`FOO=1 exec /usr/local/bin/mm hooks adapt gemini -- ./g`, Gemini, true, ""},
		{`mm hooks adapt gemini --matcher x -- ./x.sh`, Gemini, true, ""},
		{`"$MM_BIN" hooks adapt  codex -- sh -c 'exit 2'`, Codex, true, ""},
		{`"$MM_BIN" hooks adapt claude -- ./g`, "", true, `unknown agent "claude" (want claude-code, codex or gemini)`},
		{`"$MM_BIN" hooks adapt --matcher Bash -- ./g`, "", true, "no agent before -- (want claude-code, codex or gemini)"},
		{`"$MM_BIN" hooks adapt claude-code ./g`, "", true, "no command after -- (mm hooks adapt <agent> -- <command> [args…])"},
		{`"$MM_BIN" hooks adapt --verbose claude-code -- ./g`, "", true, "unknown flag --verbose"},
		{`./guard.sh`, "", false, ""},
		{`echo "hooks adapt claude-code -- x"`, "", false, ""},
		{`sh -c '"$MM_BIN" hooks adapt claude-code -- ./g'`, "", false, ""},
		{`./my-hooks adapt claude-code -- ./g`, "", false, ""},
		{`"$MM_BIN" hooks test preToolCall`, "", false, ""},
	} {
		a, ok, err := Wraps(c.command)
		var msg string
		if err != nil {
			msg = err.Error()
		}
		if a != c.agent || ok != c.ok || msg != c.err {
			t.Errorf("Wraps(%s) = %q, %v, %q; want %q, %v, %q", c.command, a, ok, msg, c.agent, c.ok, c.err)
		}
	}
}

// TestReply covers the answers of each agent on each event: what maps to
// mm's reply, what is refused with a message.
func TestReply(t *testing.T) {
	bash := input(hooks.PreToolCall, "bash", `{"command":"rm -rf x"}`)
	write := input(hooks.PreToolCall, "write_file", `{"path":"a.txt","content":"x"}`)
	edit := input(hooks.PreToolCall, "edit_file", `{"path":"a.txt","old":"x","new":"y"}`)
	post := input(hooks.PostToolCall, "bash", `{"command":"ls"}`)
	prompt := hooks.Input{Event: hooks.PreGeneration, Cwd: "/work/p", Prompt: "hi"}
	stop := hooks.Input{Event: hooks.PostGeneration, Cwd: "/work/p"}
	for _, c := range []struct {
		name   string
		a      Agent
		in     hooks.Input
		exit   int
		stdout string
		stderr string
		want   string // mm's reply, as JSON
	}{
		// Exit status 2, the block of all three.
		{"claude exit 2 denies", ClaudeCode, bash, 2, `{"ignored":true}`, "no rm -rf\n", `{"action":"deny","reason":"no rm -rf"}`},
		{"claude exit 2 stops the prompt", ClaudeCode, prompt, 2, "", "frozen", `{"action":"stop","reason":"frozen"}`},
		{"claude exit 2 after a tool is context", ClaudeCode, post, 2, "", "lint failed", `{"context":"lint failed"}`},
		{"claude exit 2 on Stop", ClaudeCode, stop, 2, "", "tests fail", `{"action":"error","error":"claude-code: the Stop hook exited with status 2 to keep the turn going (tests fail); mm's postGeneration only observes"}`},
		{"codex exit 2 denies", Codex, bash, 2, "", "no", `{"action":"deny","reason":"no"}`},
		{"gemini exit 2 denies", Gemini, bash, 2, "", "no", `{"action":"deny","reason":"no"}`},
		{"gemini exit 2 stops", Gemini, prompt, 2, "", "no", `{"action":"stop","reason":"no"}`},
		{"gemini exit 2 after a tool", Gemini, post, 2, "", "secret", `{"action":"error","error":"gemini: exit status 2 on AfterTool hides the tool's output behind stderr (secret); a postToolCall hook cannot replace a tool's output, only add context after it"}`},
		// Other exit statuses fail, as an mm hook's do.
		{"exit 1 fails", ClaudeCode, bash, 1, "", "Traceback: boom\n", `{"action":"error","error":"exit status 1: Traceback: boom"}`},
		{"gemini exit 3 fails", Gemini, bash, 3, "", "", `{"action":"error","error":"exit status 3"}`},
		// Exit 0, nothing: continue.
		{"empty", ClaudeCode, bash, 0, "  \n", "", `{}`},
		// Claude Code / Codex JSON.
		{"permissionDecision deny", ClaudeCode, bash, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"nope"}}`, "", `{"action":"deny","reason":"nope"}`},
		{"legacy decision block", ClaudeCode, bash, 0, `{"decision":"block","reason":"old style"}`, "", `{"action":"deny","reason":"old style"}`},
		{"legacy decision approve", ClaudeCode, bash, 0, `{"decision":"approve"}`, "", `{}`},
		{"allow", Codex, bash, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo safe"}}}`, "", `{"input":{"command":"echo safe"}}`},
		{"continue false on PreToolUse denies", ClaudeCode, bash, 0, `{"continue":false,"stopReason":"halt"}`, "", `{"action":"deny","reason":"halt"}`},
		{"ask", ClaudeCode, bash, 0, `{"hookSpecificOutput":{"permissionDecision":"ask"}}`, "", `{"action":"error","error":"claude-code: permissionDecision \"ask\" has no counterpart in mm: a hook cannot ask the user (mm asks before a tool runs unless yolo is on)"}`},
		{"context on PreToolUse", ClaudeCode, bash, 0, `{"hookSpecificOutput":{"additionalContext":"careful"}}`, "", `{"action":"error","error":"claude-code: additionalContext on PreToolUse has no counterpart in mm: a preToolCall hook cannot add context (a postToolCall hook can)"}`},
		{"deny wins over context", ClaudeCode, bash, 0, `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"r","additionalContext":"c"}}`, "", `{"action":"deny","reason":"r"}`},
		{"unknown permissionDecision", ClaudeCode, bash, 0, `{"hookSpecificOutput":{"permissionDecision":"maybe"}}`, "", `{"action":"error","error":"claude-code: permissionDecision \"maybe\" is not valid for PreToolUse (want allow, deny or ask)"}`},
		{"system message dropped", ClaudeCode, bash, 0, `{"systemMessage":"hi user","suppressOutput":true}`, "", `{}`},
		{"invalid JSON", ClaudeCode, bash, 0, `{"decision":`, "", `{"action":"error","error":"claude-code: invalid JSON on stdout: unexpected end of JSON input"}`},
		{"wrong type", ClaudeCode, bash, 0, `{"continue":"no"}`, "", `{"action":"error","error":"claude-code: invalid JSON on stdout: \"continue\" must be a boolean, not string"}`},
		{"plain text on PreToolUse ignored", ClaudeCode, bash, 0, "checked", "", `{}`},
		{"plain text on UserPromptSubmit is context", Codex, prompt, 0, "branch: main\n", "", `{"context":"branch: main"}`},
		{"block prompt", ClaudeCode, prompt, 0, `{"decision":"block","reason":"no"}`, "", `{"action":"stop","reason":"no"}`},
		{"continue false on prompt", Codex, prompt, 0, `{"continue":false,"stopReason":"paused"}`, "", `{"action":"stop","reason":"paused"}`},
		{"prompt context", ClaudeCode, prompt, 0, `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ctx"}}`, "", `{"context":"ctx"}`},
		{"post block and context", ClaudeCode, post, 0, `{"decision":"block","reason":"fix lint","hookSpecificOutput":{"additionalContext":"3 warnings"}}`, "", `{"context":"fix lint\n\n3 warnings"}`},
		{"post replaces MCP output", ClaudeCode, post, 0, `{"hookSpecificOutput":{"updatedMCPToolOutput":"x"}}`, "", `{"action":"error","error":"claude-code: updatedMCPToolOutput has no counterpart in mm: a postToolCall hook cannot replace a tool's output, only add context after it"}`},
		{"stop block", ClaudeCode, stop, 0, `{"decision":"block","reason":"go on"}`, "", `{"action":"error","error":"claude-code: decision \"block\" on Stop asks to keep the turn going (go on); mm's postGeneration only observes"}`},
		{"stop continue false", ClaudeCode, stop, 0, `{"continue":false}`, "", `{}`},
		// updatedInput mapped back to mm's names.
		{"updated write path", ClaudeCode, write, 0, `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"file_path":"/work/p/b.txt","content":"y"}}}`, "", `{"input":{"content":"y","path":"/work/p/b.txt"}}`},
		{"unchanged path kept as written", ClaudeCode, write, 0, `{"hookSpecificOutput":{"updatedInput":{"file_path":"/work/p/a.txt","content":"redacted"}}}`, "", `{"input":{"content":"redacted","path":"a.txt"}}`},
		{"bash description dropped", ClaudeCode, bash, 0, `{"hookSpecificOutput":{"updatedInput":{"command":"ls","description":"list","run_in_background":false}}}`, "", `{"input":{"command":"ls"}}`},
		{"background refused", ClaudeCode, bash, 0, `{"hookSpecificOutput":{"updatedInput":{"command":"ls","run_in_background":true}}}`, "", `{"action":"error","error":"claude-code: updatedInput: Bash.run_in_background = true has no counterpart in mm's bash"}`},
		{"unknown argument refused", ClaudeCode, edit, 0, `{"hookSpecificOutput":{"updatedInput":{"file_path":"a.txt","old_string":"x","new_string":"z","offset":3}}}`, "", `{"action":"error","error":"claude-code: updatedInput: Edit.offset has no counterpart in mm's edit_file"}`},
		{"replace_all false dropped", ClaudeCode, edit, 0, `{"hookSpecificOutput":{"updatedInput":{"file_path":"/work/p/a.txt","old_string":"x","new_string":"z","replace_all":false}}}`, "", `{"input":{"new":"z","old":"x","path":"a.txt"}}`},
		{"codex patch unchanged", Codex, write, 0, `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n"}}}`, "", `{"input":{"path":"a.txt","content":"x"}}`},
		{"codex patch changed", Codex, write, 0, `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"*** Begin Patch\n*** End Patch\n"}}}`, "", `{"action":"error","error":"codex: updatedInput: updatedInput for apply_patch (mm's write_file) cannot be mapped back: mm does not apply patches"}`},
		// Gemini CLI JSON.
		{"gemini deny", Gemini, bash, 0, `{"decision":"deny","reason":"policy"}`, "", `{"action":"deny","reason":"policy"}`},
		{"gemini block alias", Gemini, bash, 0, `{"decision":"block","reason":"policy"}`, "", `{"action":"deny","reason":"policy"}`},
		{"gemini allow", Gemini, bash, 0, `{"decision":"allow"}`, "", `{}`},
		{"gemini ask", Gemini, bash, 0, `{"decision":"ask"}`, "", `{"action":"error","error":"gemini: decision \"ask\" has no counterpart in mm: a hook cannot ask the user (mm asks before a tool runs unless yolo is on)"}`},
		{"gemini tool_input merges", Gemini, edit, 0, `{"hookSpecificOutput":{"tool_input":{"new_string":"safe"}}}`, "", `{"input":{"path":"a.txt","new":"safe","old":"x"}}`},
		{"gemini string-encoded", Gemini, bash, 0, `"{\"decision\":\"deny\",\"reason\":\"twice\"}"`, "", `{"action":"deny","reason":"twice"}`},
		{"gemini plain text", Gemini, bash, 0, "all good", "", `{}`},
		{"gemini continue false on BeforeAgent", Gemini, prompt, 0, `{"continue":false,"reason":"saved but stopped"}`, "", `{"action":"stop","reason":"saved but stopped"}`},
		{"gemini prompt context", Gemini, prompt, 0, `{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"ctx"}}`, "", `{"context":"ctx"}`},
		{"gemini after tool context", Gemini, post, 0, `{"hookSpecificOutput":{"additionalContext":" more "}}`, "", `{"context":"more"}`},
		{"gemini after tool deny", Gemini, post, 0, `{"decision":"deny","reason":"redacted"}`, "", `{"action":"error","error":"gemini: decision \"deny\" on AfterTool replaces the tool's output; a postToolCall hook cannot, it can only add context after it"}`},
		{"gemini after agent retry", Gemini, stop, 0, `{"decision":"deny","reason":"try again"}`, "", `{"action":"error","error":"gemini: decision \"deny\" on AfterAgent asks for another try (try again); mm's postGeneration only observes"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := translate(t, c.a, c.in)
			r := tr.Reply(Result{ExitCode: c.exit, Stdout: []byte(c.stdout), Stderr: []byte(c.stderr)})
			got, _ := marshal(r)
			if !jsonEqual(got, json.RawMessage(c.want)) {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestMatcher(t *testing.T) {
	for _, c := range []struct {
		matcher string
		a       Agent
		name    string
		want    bool
	}{
		{"Bash", ClaudeCode, "Bash", true},
		{"Bash", ClaudeCode, "Bashful", false}, // plain names match exactly
		{"Edit|Write", ClaudeCode, "Write", true},
		{"Edit|Write", Codex, "apply_patch", true}, // Codex's aliases
		{"mcp__memory__.*", ClaudeCode, "mcp__memory__create", true},
		{"mcp__.*__write.*", ClaudeCode, "mcp__fs__read", false},
		{"run_shell", Gemini, "run_shell_command", false},
		{"run_shell.*", Gemini, "run_shell_command", true},
	} {
		m, err := ParseMatcher(c.matcher)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Match(c.a, c.name); got != c.want {
			t.Errorf("%q matches %s %q: %v, want %v", c.matcher, c.a, c.name, got, c.want)
		}
	}
	for _, all := range []string{"", "*", " "} {
		if m, err := ParseMatcher(all); m != nil || err != nil {
			t.Errorf("%q: %v %v, want every tool", all, m, err)
		}
	}
	if _, err := ParseMatcher("(unclosed"); err == nil {
		t.Error("a bad regular expression was accepted")
	}
}

// TestImport: Claude Code and Codex count seconds, Gemini CLI
// milliseconds; Codex's Write and Edit are apply_patch, hence mm's two.
func TestImport(t *testing.T) {
	y, notes, err := Import(Gemini, []byte(`{"hooks":{"BeforeTool":[{"matcher":"run_shell_command|replace","hooks":[{"type":"command","command":"./g.sh","timeout":5000}]}]}}`))
	if err != nil || len(notes) != 0 {
		t.Fatal(err, notes)
	}
	for _, want := range []string{"matcher: ^(bash|edit_file)$", "timeout: 5s", "hooks adapt gemini -- sh -c './g.sh'", "onError: fail"} {
		if !strings.Contains(string(y), want) {
			t.Errorf("no %q in\n%s", want, y)
		}
	}
	y, _, err = Import(Codex, []byte(`{"hooks":{"PostToolUse":[{"matcher":"Write","hooks":[{"command":"./c.sh","timeout":2.5}]}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"matcher: ^(write_file|edit_file)$", "timeout: 2.5s"} {
		if !strings.Contains(string(y), want) {
			t.Errorf("no %q in\n%s", want, y)
		}
	}
	// A hook with no timeout gets its agent's default, written out: not mm's 10 s.
	for a, want := range map[Agent]string{ClaudeCode: "timeout: 600s", Codex: "timeout: 600s", Gemini: "timeout: 60s"} {
		event := "PreToolUse"
		if a == Gemini {
			event = "BeforeTool"
		}
		y, _, err := Import(a, []byte(`{"hooks":{"`+event+`":[{"hooks":[{"type":"command","command":"./g.sh"}]}]}}`))
		if err != nil || !strings.Contains(string(y), want) {
			t.Errorf("%s: no %q in\n%s (%v)", a, want, y, err)
		}
	}
	if strings.Contains(string(y), "onError") {
		t.Errorf("an observer got onError:\n%s", y)
	}
	if _, _, err := Import(ClaudeCode, []byte(`{"hooks": [}`)); err == nil || !strings.HasPrefix(err.Error(), "not a claude-code settings file: ") {
		t.Errorf("bad JSON: %v", err)
	}
}

// TestRun drives real commands through the Runner.
func TestRun(t *testing.T) {
	bash := `{"event":"preToolCall","cwd":"/tmp","tool":{"id":"c","name":"bash","input":{"command":"rm -rf /"}}}`
	run := func(argv []string, stdin string, m *Matcher) Reply {
		r := &Runner{Agent: ClaudeCode, Command: argv, Env: os.Environ(), Matcher: m}
		return r.Run(context.Background(), strings.NewReader(stdin))
	}
	if r := run([]string{"sh", "-c", `jq -e '.tool_input.command == "rm -rf /"' >/dev/null && echo "$CLAUDE_PROJECT_DIR" >&2 && exit 2`}, bash, nil); r.Action != "deny" || r.Reason != "/tmp" {
		t.Errorf("exit 2: %+v", r)
	}
	m, _ := ParseMatcher("Write")
	if r := run([]string{"sh", "-c", "exit 2"}, bash, m); r.Action != "" {
		t.Errorf("a hook for Write ran for Bash: %+v", r)
	}
	if r := run([]string{"./no-such-hook.sh"}, bash, nil); r.Action != "error" || r.Error != "start ./no-such-hook.sh: no such file or directory" {
		t.Errorf("missing command: %+v", r)
	}
	if r := run([]string{"sh", "-c", "kill -9 $$"}, bash, nil); r.Action != "error" || r.Error != "killed by signal SIGKILL" {
		t.Errorf("killed: %+v", r)
	}
	if r := run([]string{"sh", "-c", "head -c 2000000 /dev/zero"}, bash, nil); r.Error != "stdout larger than 1048576 bytes" {
		t.Errorf("flood: %+v", r)
	}
	if r := run([]string{"true"}, "not json", nil); r.Action != "error" || !strings.HasPrefix(r.Error, "the input on stdin is not an mm hook input: ") {
		t.Errorf("bad input: %+v", r)
	}
	// A background child holding the pipes does not hold the run.
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	if r := run([]string{"sh", "-c", "sleep 30 & echo $! > " + pidFile + "; echo '{}'"}, bash, nil); r.Action != "" {
		t.Errorf("background: %+v", r)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a background child held the run for %s", d)
	}
	// mm kills the hook's process group once the adapter returns; here the
	// test does.
	if b, err := os.ReadFile(pidFile); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}
	}
}
