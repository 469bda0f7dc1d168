// Package cli is mm's command line: the cobra commands, the flags of the
// contract, and the one place where errors become messages and exit codes.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/mm-agent/mm/internal/procs"
	"github.com/mm-agent/mm/internal/termtext"
	"github.com/mm-agent/mm/internal/tracing"
)

// Exit codes of the contract.
const (
	exitOK          = 0
	exitFailure     = 1
	exitInterrupted = 130
)

// IOStreams are the process's standard streams, passed to every front end
// so tests can drive them; nothing in mm writes to os.Stdout directly.
type IOStreams struct {
	In            io.Reader
	Out, Err      io.Writer
	InTTY, OutTTY bool
	ErrTTY        bool // stderr is a terminal: line mode's thinking… indicator may be drawn there
	// InPiped: stdin is a pipe or a file (git diff | mm -p "review this"),
	// not a terminal or /dev/null: -p appends what it reads to its prompt.
	InPiped bool
	Color   bool // dim lines allowed: stdout is a terminal and NO_COLOR is unset
}

// System returns the process's own streams.
func System() *IOStreams {
	inTTY := term.IsTerminal(int(os.Stdin.Fd()))
	outTTY := term.IsTerminal(int(os.Stdout.Fd()))
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		InTTY: inTTY, OutTTY: outTTY, ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		InPiped: !inTTY && piped(os.Stdin),
		Color:   outTTY && os.Getenv("NO_COLOR") == "",
	}
}

// piped says f is a pipe or a regular file: something was given to read,
// unlike a terminal or /dev/null (a character device).
func piped(f *os.File) bool {
	st, err := f.Stat()
	if err != nil {
		return false
	}
	m := st.Mode()
	return m&os.ModeNamedPipe != 0 || m.IsRegular()
}

// exitError carries an exit code through cobra; its message, when not
// empty, has already been decided (one line for the user).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// errInterrupted ends a run the user interrupted (exit 130).
var errInterrupted = &exitError{code: exitInterrupted}

// Main runs mm with the process's arguments and returns its exit code.
func Main() int {
	// Traces are exported only with the OTEL_* endpoint variables set; the
	// last flush is bounded, so that mm ends within a second of its work.
	stop := tracing.Setup(os.Stderr)
	code := Run(context.Background(), os.Args[1:], System())
	stop()
	// Last: what mm started has ended; the process warden needs to know.
	procs.Shutdown()
	return code
}

// Run runs mm with args and returns its exit code.
func Run(ctx context.Context, args []string, io *IOStreams) int {
	root := NewCmdRoot(io)
	root.SetArgs(normalizeArgs(args))
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.Err)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(io.Err, io.errText(ee.msg))
		}
		return ee.code
	}
	fmt.Fprintln(io.Err, io.errText(userMessage(err)))
	return exitFailure
}

// errText is s as stderr gets it: an error may quote what a model server,
// a hook or a remote agent wrote, so on a terminal it is cleaned of escape
// sequences and control characters (termtext.Clean); a pipe gets it as it
// is.
func (ios *IOStreams) errText(s string) string {
	if ios.ErrTTY {
		return termtext.Clean(s)
	}
	return s
}

// userMessage is err as the user reads it: "mm: " and the error, unless
// it is one of the contract's bracketed messages ("[config error: …]").
func userMessage(err error) string {
	msg := err.Error()
	if !strings.HasPrefix(msg, "[") {
		msg = "mm: " + msg
	}
	return msg
}

// longOneDash are the long flags the references write with one dash
// (-tui, -acp); any long flag may be written so.
var longOneDash = map[string]bool{
	"tui": true, "acp": true, "config": true, "model": true, "yolo": true,
	"prompt": true, "ask": true, "ask-with-context": true, "version": true, "help": true,
	"session": true, "a2a": true, "log": true, "json": true,
	"continue": true, "resume": true, "no-session": true, "public-url": true,
}

// normalizeArgs lets one-dash long flags (-tui, -acp) and the two-dash
// spelling of -p (--p) work as the contract says, before cobra parses.
func normalizeArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		switch {
		case strings.HasPrefix(a, "--p") && (a == "--p" || strings.HasPrefix(a, "--p=")):
			a = "-p" + strings.TrimPrefix(a, "--p")
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && longOneDash[name]:
			a = "--" + name
			if hasValue {
				a += "=" + value
			}
		}
		out = append(out, a)
	}
	return out
}

// NewCmdRoot builds the mm command.
func NewCmdRoot(io *IOStreams) *cobra.Command {
	opts := &rootOptions{io: io}
	cmd := &cobra.Command{
		Use:   "mm",
		Short: "A command-line agent for local models, with hooks and relays to other agents",
		Long: `mm runs turns against a local model (llmman, Ollama, llama.cpp) with tools,
user hooks around every step, and relays to other agents.

With no flags it starts line mode: one prompt per line, from the terminal or a pipe.`,
		Args:          cobra.ArbitraryArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       fullVersion(),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && !opts.asking() && !cmd.Flags().Changed("resume") && len(cmd.SuggestionsFor(args[0])) > 0 {
				return unknownCommand(cmd, args[0]) // mm hoks list
			}
			opts.args = args
			opts.yoloSet = cmd.Flags().Changed("yolo")
			opts.promptSet = cmd.Flags().Changed("prompt")
			opts.resumeSet = cmd.Flags().Changed("resume")
			if opts.resumeSet && opts.resume == resumeList && len(args) == 1 && !opts.asking() {
				// --resume <id>: pflag binds an optional value only after "=".
				opts.resume, opts.args = args[0], nil
			}
			return opts.run(cmd.Context())
		},
	}
	cmd.SetVersionTemplate("mm {{.Version}}\n")
	cmd.SetFlagErrorFunc(flagError)
	cmd.SuggestionsMinimumDistance = 2
	f := cmd.Flags()
	f.StringVarP(&opts.prompt, "prompt", "p", "", `run one turn with this prompt and exit ("-" reads it from stdin)`)
	cmd.PersistentFlags().StringVarP(&opts.configPath, "config", "c", "", "the agent's config file (default ./agent.yaml, else ~/.config/mm/agent.yaml, when it exists)")
	f.StringVar(&opts.model, "model", "", "the model, <provider>/<model>, overriding the config")
	f.BoolVar(&opts.yolo, "yolo", false, "run tools without asking (overrides the config's yolo)")
	f.BoolVar(&opts.tui, "tui", false, "the window front end (full-screen terminal UI)")
	f.BoolVar(&opts.acp, "acp", false, "the editor front end (Agent Client Protocol over stdio)")
	f.StringVar(&opts.ask, "ask", "", `relay a question to an agent of mmConfigs: mm --ask <agent> "<question>"`)
	f.StringVar(&opts.askWithContext, "ask-with-context", "", "like --ask, sending the conversation read from stdin (or from --session)")
	f.StringVar(&opts.a2a, "a2a", "", "serve this config's agent to other machines over A2A (Agent2Agent protocol) at <host:port>")
	f.StringVar(&opts.publicURL, "public-url", "", "with -a2a: the `URL` clients reach the agent at (a proxy's or load balancer's), given in its card")
	f.StringVar(&opts.logPath, "log", "", "append diagnostics (asked agents' starts, failed handshakes) to this file (MM_LOG=FILE does too)")
	f.StringVar(&opts.session, "session", "", "keep the conversation in this JSON Lines file, and resume it when it exists")
	f.BoolVar(&opts.cont, "continue", false, "resume the latest session kept for this directory")
	f.StringVar(&opts.resume, "resume", "", "resume the kept session `id`; alone (or =list), list this directory's sessions, newest first")
	f.Lookup("resume").NoOptDefVal = resumeList
	f.BoolVar(&opts.noSession, "no-session", false, "keep nothing of this session (sessions are kept by default, see --resume)")
	f.BoolVar(&opts.json, "json", false, "with -p: write the turn as JSON Lines events on stdout, the last one its result")
	cmd.AddCommand(newCmdVersion(io), newCmdServeAgent(io, opts), newCmdHooks(io, opts), newCmdModels(io, opts))
	cobra.AddTemplateFunc("oneDash", oneDash)
	cmd.SetUsageTemplate(strings.Replace(cmd.UsageTemplate(), "{{.LocalFlags.FlagUsages", "{{oneDash .LocalFlags.FlagUsages", 1))
	return cmd
}

// oneDash writes the flags the references spell with one dash (-tui, -acp,
// -a2a) that way in the help, as the README, the docs and the errors do;
// the two-dash spellings keep working (normalizeArgs).
func oneDash(usages string) string {
	for _, name := range []string{"tui", "acp", "a2a"} {
		// "      --a2a string   …" → "      -a2a string    …": the same width.
		i := strings.Index(usages, "      --"+name+" ")
		if i < 0 {
			continue
		}
		i += len("      -")
		gap := strings.Index(usages[i:], "  ")
		if gap < 0 {
			continue
		}
		gap += i
		usages = usages[:i] + usages[i+1:gap] + " " + usages[gap:]
	}
	return usages
}

func newCmdVersion(io *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print mm's version (and the commit it was built from, when it knows it)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(io.Out, "mm "+fullVersion())
			return nil
		},
	}
}
