package agent

import (
	"fmt"
	"io"
	"os"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/hooks"
)

// checkHookPrograms names at start each hook whose program (or script)
// cannot be found or is not executable in dir, with the fix: a warning on
// notices, or, for a hook under onError: fail, the config error that
// stops mm before anything runs. Found only at run time, a missing guard
// under the default onError: warn would let every call through.
func checkHookPrograms(cfg *config.Config, dir string, notices io.Writer) error {
	path := os.Getenv("PATH")
	for _, e := range hooks.Events {
		for i, h := range cfg.Hooks[e] {
			p := hooks.CheckProgram(h, dir, path)
			if p == nil {
				continue
			}
			what := fmt.Sprintf("hooks.%s[%d] `%s`: %s", e, i, h.Command, p)
			if h.OnError == hooks.Fail {
				return &config.Error{Path: cfg.Path, Msg: what}
			}
			if e == hooks.PreGeneration || e == hooks.PreToolCall || e == hooks.PreAsk {
				what += fmt.Sprintf(" (under onError: %s the hook fails open: what it guards goes on)", h.OnError)
			}
			fmt.Fprintln(notices, "mm: warning: "+what)
		}
	}
	return nil
}
