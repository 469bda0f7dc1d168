package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mm-agent/mm/internal/mockmodel"
)

// The flags choose one mode, or say why they do not go together.
func TestMode(t *testing.T) {
	tests := []struct {
		name string
		o    rootOptions
		want mode
		err  string
	}{
		{"nothing", rootOptions{}, modeLine, ""},
		{"-p", rootOptions{promptSet: true, prompt: "hi"}, modePrompt, ""},
		{"-p -", rootOptions{promptSet: true, prompt: "-"}, modePrompt, ""},
		{"--ask", rootOptions{ask: "expert", args: []string{"q"}}, modeAsk, ""},
		{"--ask-with-context", rootOptions{askWithContext: "expert", args: []string{"q"}}, modeAsk, ""},
		{"-tui", rootOptions{tui: true}, modeWindow, ""},
		{"-acp", rootOptions{acp: true}, modeEditor, ""},
		{"-a2a", rootOptions{a2a: ":7433"}, modeServe, ""},
		{"two modes", rootOptions{tui: true, promptSet: true, prompt: "x"}, 0, "each start mm a different way"},
		{"both asks", rootOptions{ask: "a", askWithContext: "b", args: []string{"q"}}, 0, "go alone"},
		{"ask without question", rootOptions{ask: "a"}, 0, "--ask takes one question"},
		{"stray argument", rootOptions{args: []string{"hello"}}, 0, `unexpected argument "hello"`},
		{"stray bool value", rootOptions{yoloSet: true, args: []string{"false"}}, 0, `--yolo=false`},
		{"--json alone", rootOptions{json: true}, 0, "--json goes with -p"},
		{"blank prompt", rootOptions{promptSet: true, prompt: "  "}, 0, "the prompt is empty"},
		{"-a2a port alone", rootOptions{a2a: "7433"}, 0, `mm -a2a: "7433" is a port alone: use :7433 (every interface) or host:7433`},
		{"-a2a host alone", rootOptions{a2a: "gpu-box"}, 0, `use gpu-box:PORT, or :PORT for every interface`},
		{"-a2a [::]:7433", rootOptions{a2a: "[::]:7433"}, modeServe, ""},
		{"--resume alone", rootOptions{resumeSet: true, resume: resumeList}, modeList, ""},
		{"--resume id", rootOptions{resumeSet: true, resume: "x"}, modeLine, ""},
		{"--continue -p", rootOptions{cont: true, promptSet: true, prompt: "x"}, modePrompt, ""},
		{"--continue -acp", rootOptions{cont: true, acp: true}, 0, "go with line mode, -p or -tui"},
		{"--no-session --ask", rootOptions{noSession: true, ask: "a", args: []string{"q"}}, 0, "go with line mode, -p or -tui"},
		{"--session --continue", rootOptions{session: "f", cont: true}, 0, "give one"},
		{"--resume --no-session", rootOptions{resumeSet: true, resume: resumeList, noSession: true}, 0, "give one"},
		{"--ask-with-context --session", rootOptions{askWithContext: "a", session: "f", args: []string{"q"}}, modeAsk, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.o.mode()
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("error %v, want one saying %q", err, tt.err)
			case tt.err == "" && got != tt.want:
				t.Errorf("mode %v, want %v", got, tt.want)
			}
		})
	}
}

// A model that asks to run bash once, on a scripted model server.
func touchingModel(t *testing.T, path string) string {
	t.Helper()
	script, err := mockmodel.ParseScript([]byte(fmt.Sprintf(`replies:
  - match: 'make a file'
    toolCalls:
      - name: bash
        args: {command: "touch %s"}
  - match: '.'
    repeat: true
    text: done
`, path)))
	if err != nil {
		t.Fatal(err)
	}
	srv := mockmodel.New(script, "")
	url, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cfg := filepath.Join(t.TempDir(), "agent.yaml")
	if err := os.WriteFile(cfg, []byte("model: lab/m\nproviders:\n  lab: {baseURL: "+url+"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// -p puts consent questions to the terminal it was started from, and
// only to it: with no terminal the call is refused as no one could be
// asked; on a terminal the user's y lets it run.
func TestPromptConsent(t *testing.T) {
	tests := []struct {
		name  string
		tty   bool
		in    string
		ran   bool
		shows string
	}{
		{"no terminal", false, "y\n", false, "[denied: no one to ask for consent; set yolo: true to allow]"},
		{"terminal, y", true, "y\n", true, "? [y/N]"},
		{"terminal, n", true, "n\n", false, "[denied by the user]"},
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			made := filepath.Join(t.TempDir(), "made-it")
			cfg := touchingModel(t, made)
			ios, out, errOut := TestStreams(tt.in)
			ios.InTTY = tt.tty
			code := Run(context.Background(), []string{"-c", cfg, "-p", "make a file"}, ios)
			if code != exitOK {
				t.Fatalf("exit %d: %s%s", code, out, errOut)
			}
			if _, err := os.Stat(made); (err == nil) != tt.ran {
				t.Errorf("the command ran: %v, want %v:\n%s%s", err == nil, tt.ran, out, errOut)
			}
			if !strings.Contains(out.String(), tt.shows) {
				t.Errorf("stdout does not show %q:\n%s", tt.shows, out)
			}
		})
	}
}

// Flags that do not go together are refused before anything starts.
func TestRunRefusesFlags(t *testing.T) {
	ios, out, errOut := TestStreams("")
	if code := Run(context.Background(), []string{"-p", "x", "-tui"}, ios); code != exitFailure {
		t.Errorf("exit %d, want %d", code, exitFailure)
	}
	if out.Len() != 0 || !strings.Contains(errOut.String(), "each start mm a different way") {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
}

// -p keeps its session in the sessions directory; --continue resumes the
// latest of the directory, --resume <id> one by its id, --no-session
// keeps nothing; --resume alone lists them.
func TestKeptSessions(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("MM_SESSIONS_DIR", "")
	cfg := touchingModel(t, filepath.Join(t.TempDir(), "unused"))
	run := func(args ...string) (string, string) {
		t.Helper()
		ios, out, errOut := TestStreams("")
		if code := Run(context.Background(), append([]string{"-c", cfg}, args...), ios); code != exitOK {
			t.Fatalf("mm %v: exit %d: %s%s", args, code, out, errOut)
		}
		return out.String(), errOut.String()
	}
	dir := filepath.Join(state, "mm", "sessions")
	count := func() int {
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		return len(files)
	}
	run("-p", "first question")
	run("-p", "other", "--no-session")
	if n := count(); n != 1 {
		t.Fatalf("%d session files, want 1 (--no-session keeps nothing)", n)
	}
	run("-p", "second", "--continue")
	if n := count(); n != 1 {
		t.Fatalf("%d session files after --continue, want 1", n)
	}
	out, _ := run("--resume")
	if !strings.Contains(out, "  first question") || strings.Count(out, "\n") != 1 {
		t.Fatalf("--resume lists:\n%s", out)
	}
	id := strings.Fields(out)[0]
	b, err := os.ReadFile(filepath.Join(dir, id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "first question") || !strings.Contains(string(b), "second") {
		t.Errorf("the session file does not hold both turns:\n%s", b)
	}
	run("-p", "third", "--resume", id)
	if b, _ = os.ReadFile(filepath.Join(dir, id+".jsonl")); !strings.Contains(string(b), "third") {
		t.Errorf("--resume %s did not write to the session:\n%s", id, b)
	}
	ios, _, errOut := TestStreams("")
	if code := Run(context.Background(), []string{"-c", cfg, "-p", "x", "--resume", "nope"}, ios); code != exitFailure || !strings.Contains(errOut.String(), "no session nope") {
		t.Errorf("--resume nope: exit %d, %s", code, errOut)
	}
}

// -p appends a piped stdin to its prompt; more than 1 MiB is refused.
func TestPromptPipedStdin(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	cfg := touchingModel(t, filepath.Join(t.TempDir(), "unused"))
	ios, out, errOut := TestStreams(strings.Repeat("a", maxPiped+1))
	ios.InPiped = true
	if code := Run(context.Background(), []string{"-c", cfg, "-p", "q"}, ios); code != exitFailure || !strings.Contains(errOut.String(), "more than 1 MiB") {
		t.Errorf("exit %d: %s%s", code, out, errOut)
	}
}

// Typos are errors with a did-you-mean, never the help and exit 0.
func TestTypos(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"hooks", "tset", "preToolCall"}, `mm: unknown command "tset" for "mm hooks"; did you mean "test"?`},
		{[]string{"hooks", "lsit"}, `did you mean "list"?`},
		{[]string{"hoks"}, `mm: unknown command "hoks" for "mm"; did you mean "hooks"?`},
		{[]string{"--modle", "x"}, `mm: unknown flag: --modle; did you mean "--model"?`},
		{[]string{"hooks", "test", "preToolcall"}, `postAsk); did you mean "preToolCall"?`},
	}
	for _, tt := range tests {
		ios, out, errOut := TestStreams("")
		if code := Run(context.Background(), tt.args, ios); code != exitFailure || out.Len() != 0 || strings.TrimSpace(errOut.String()) != tt.want && !strings.Contains(errOut.String(), tt.want) {
			t.Errorf("mm %v: exit %d, stdout %q, stderr %q; want exit 1 and %q", tt.args, code, out, errOut, tt.want)
		}
	}
}
