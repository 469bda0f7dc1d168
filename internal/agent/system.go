package agent

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/mm-agent/mm/orchestrator"
)

// builtinSystem is the system message of an agent whose config has no
// system: key. Every peer agent tells its model what it is, where it
// works, on which system and day, and what its tools do; a local model,
// smaller, needs it more. system: "" in the config sends none.
func builtinSystem(dir string, tools []orchestrator.Tool, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are mm, a coding agent working in the directory %s on the user's computer (%s). Today is %s.\n",
		dir, osName(runtime.GOOS), now.Format("Monday 2 January 2006"))
	b.WriteString("Answer the user's request; use your tools to look at files and run commands rather than guess, and say what you changed.")
	if len(tools) > 0 {
		b.WriteString("\n\nYour tools:")
		for _, t := range tools {
			d := t.Def()
			fmt.Fprintf(&b, "\n- %s: %s", d.Name, firstSentence(d.Description))
		}
	}
	return b.String()
}

// osName is GOOS as people name it.
func osName(goos string) string {
	switch goos {
	case "linux":
		return "Linux"
	case "darwin":
		return "macOS"
	case "windows":
		return "Windows"
	case "freebsd":
		return "FreeBSD"
	}
	return goos
}

// firstSentence is a tool description's first sentence, on one line.
func firstSentence(desc string) string {
	desc = strings.Join(strings.Fields(desc), " ")
	if i := strings.Index(desc, ". "); i >= 0 {
		desc = desc[:i+1]
	}
	return desc
}
