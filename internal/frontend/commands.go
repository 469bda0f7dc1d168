package frontend

import (
	"errors"
	"strings"

	"github.com/mm-agent/mm/relay"
)

// Command is what a line typed in a session asks for (the contract, "Line
// mode display": the slash commands).
type Command int

// The commands.
const (
	// Prompt is no command: a prompt for the model.
	Prompt  Command = iota
	Help            // /help
	Exit            // /exit, /quit
	Compact         // /compact
	// Abort (/abort) cancels the running turn, in front ends that can type
	// during one (the window); the others take it for an unknown command.
	Abort
	Ask     // /ask <agent> <question>, /ask-<agent> …, /ask-with-context-<agent> …
	Unknown // any other line starting with "/"
)

// Parse says what line asks for; line is as typed (white space around it
// does not count).
func Parse(line string) Command {
	line = strings.TrimSpace(line)
	switch line {
	case "/help":
		return Help
	case "/exit", "/quit":
		return Exit
	case "/compact":
		return Compact
	case "/abort":
		return Abort
	}
	if _, _, _, ok := ParseAsk(line); ok {
		return Ask
	}
	if strings.HasPrefix(line, "/") {
		return Unknown
	}
	return Prompt
}

// UnknownCommand is what the user reads after a line Parse does not know.
func UnknownCommand(line string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
	return "unknown command " + name + "; /help lists them"
}

// AskHelp is /help's part about asking agents, for an agent with
// mmConfigs (agents, sorted).
func AskHelp(agents []string) string {
	return "Ask another agent (" + strings.Join(agents, ", ") + `):
  /ask <agent> <question>
  /ask-<agent> <question>
  /ask-with-context-<agent> <question>   (sends this conversation too)`
}

// AskCommand is the command that asks agent a question, without its
// slash: "ask-expert", or "ask-with-context-expert" to send the
// conversation too (editors list commands by these names).
func AskCommand(agent string, withContext bool) string {
	if withContext {
		return "ask-with-context-" + agent
	}
	return "ask-" + agent
}

// ParseAsk parses /ask <name> <question>, /ask-<name> <question> and
// /ask-with-context-<name> <question>; ok is false for other lines.
func ParseAsk(line string) (name, question string, withContext, ok bool) {
	cmd, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	rest = strings.TrimSpace(rest)
	switch {
	case cmd == "/ask":
		name, question, _ = strings.Cut(rest, " ")
		return name, strings.TrimSpace(question), false, true
	case strings.HasPrefix(cmd, "/ask-with-context-"):
		return strings.TrimPrefix(cmd, "/ask-with-context-"), rest, true, true
	case strings.HasPrefix(cmd, "/ask-"):
		return strings.TrimPrefix(cmd, "/ask-"), rest, false, true
	}
	return "", "", false, false
}

// Errors of an /ask… command that could not run.
var (
	ErrNoAgents = errors.New("this agent has no mmConfigs to ask")
	ErrAskUsage = errors.New("usage: /ask <agent> <question>, /ask-<agent> <question> or /ask-with-context-<agent> <question>")
)

// AskFailure is what went wrong with the /ask… command line, as App.Ask
// returned (res, err), for the user to read; "" when the agent answered.
// A denial reads as the reference's "ask denied by a hook: <reason>".
func AskFailure(line string, res relay.Result, err error) string {
	name, _, _, _ := ParseAsk(line)
	switch {
	case err != nil:
		return err.Error()
	case res.Denied:
		return relay.DeniedError(res.Reason)
	case res.Status == relay.Cancelled:
		return "ask cancelled"
	case res.Err != nil:
		return "ask " + name + ": " + res.Err.Error()
	}
	return ""
}
