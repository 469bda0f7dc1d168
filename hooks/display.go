package hooks

import (
	"fmt"
	"strings"
)

// The exact markers and notices of the hooks reference ("Effets sur le
// tour", "Échecs", "Affichage"). They are part of the contract: hooks and
// readers of session files look for them.
const (
	// BlockedNotice starts what the user reads when preGeneration stopped a
	// turn without a response of its own ("⛔ This request was blocked by a
	// hook: <reason>").
	BlockedNotice = "⛔ This request was blocked by a hook"
	// ContextMarker introduces each context a hook adds for a model.
	ContextMarker = "[context added by a hook]"
)

// BlockedMarker is what the history keeps instead of a prompt a
// preGeneration hook stopped: the prompt itself must reach no later turn.
func BlockedMarker(reason string) string {
	if reason == "" {
		return "[prompt blocked by a hook]"
	}
	return "[prompt blocked by a hook: " + reason + "]"
}

// DeniedOutput is the tool output the model reads for a call a preToolCall
// hook denied.
func DeniedOutput(reason string) string {
	if reason == "" {
		return "[denied by a hook]"
	}
	return "[denied by a hook: " + reason + "]"
}

// DeniedLine is what line mode prints instead of the tool line of a denied
// call: "🪝 <tool> <output>", output being what the model reads of the
// denial (DeniedOutput; ask_agent's is relay.DeniedOutput).
func DeniedLine(tool, output string) string { return "🪝 " + tool + " " + output }

// WithContexts appends each context to text, each introduced by the
// ContextMarker line: "<text>\n\n[context added by a hook]\n<context>".
func WithContexts(text string, contexts []string) string {
	if len(contexts) == 0 {
		return text
	}
	var b strings.Builder
	b.WriteString(text)
	for _, c := range contexts {
		b.WriteString("\n\n" + ContextMarker + "\n")
		b.WriteString(c)
	}
	return b.String()
}

// Line is the displayHooks line of the run, numbered n within the turn:
// "🪝 <n>. <event> [<tool or agent>] · <command> → <decision>".
func (r Run) Line(n int) string {
	target := ""
	if r.Target != "" {
		target = " [" + r.Target + "]"
	}
	return fmt.Sprintf("🪝 %d. %s%s · %s → %s", n, r.Event, target, r.Label(), r.Decision)
}

// FailureLine is the line that reports a failed run:
// "🪝 <event> hook `<command or URL>`: <failure>".
func (r Run) FailureLine() string {
	return fmt.Sprintf("🪝 %s hook `%s`: %s", r.Event, r.Label(), r.Failure)
}
