package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mm-agent/mm/internal/model"
	"github.com/mm-agent/mm/internal/procs"
	"github.com/mm-agent/mm/internal/sandbox"
	"github.com/mm-agent/mm/orchestrator"
)

// Output kept from a bash call: the first and the last half of bashCap.
const (
	bashCap  = 64 << 10
	bashHalf = bashCap / 2
)

// drainWait bounds how long Run waits for the output pipe to close after the
// command's process group has been killed (a process that left the group
// could otherwise hold it open forever).
const drainWait = 2 * time.Second

// drainGrace is how long Run waits for the pipe to close, once the group is
// dead, before it looks for a process that left the group and holds it.
const drainGrace = 50 * time.Millisecond

type bashTool struct {
	dir string
	box *sandbox.Sandbox // nil: no sandbox
	env []string         // nil: mm's own
}

func (t *bashTool) Def() model.ToolDef {
	return model.ToolDef{
		Name: "bash",
		Description: "Run a shell command with bash in the working directory and return its output " +
			"(stdout and stderr together) and exit status. No input is available to the command; " +
			"background processes are killed when it finishes." + t.box.Note(),
		Parameters: schema("command", "The bash command line to run, e.g. \"ls -la\" or \"go test ./...\"."),
	}
}

func (t *bashTool) Run(ctx context.Context, input json.RawMessage) orchestrator.Result {
	var args struct {
		Command *string `json:"command"`
	}
	if e := decode(input, &args); e != "" {
		return failure("%s", e)
	}
	if e := required("command", args.Command); e != "" {
		return failure("%s", e)
	}
	if ctx.Err() != nil {
		return orchestrator.CancelledResult("")
	}

	bash, err := bashPath()
	if err != nil {
		return failure("run: %s", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return failure("run: %s", err)
	}
	defer r.Close()

	cmd := exec.CommandContext(ctx, bash, "-c", *args.Command)
	cmd.Dir = t.dir
	t.box.Wrap(cmd)
	// What the sandbox cannot keep from being made (git's commondir, say)
	// is undone once nothing of the command is left, before any hook runs.
	swept := t.box.Watch(t.dir)
	cmd.Stdout = w // one *os.File for both: interleaved in the order written
	cmd.Stderr = w
	cmd.Env = t.env    // nil: mm's own
	procs.Prepare(cmd) // its own group, killed whole on cancel
	// The pipe is ours, so Wait does not wait on it; WaitDelay only guards
	// against a Cancel that fails to end bash.
	cmd.WaitDelay = time.Second

	g, err := procs.Start(cmd)
	w.Close() // the children hold the write end now
	if err != nil {
		return failure("run: %s", cleanErr(err))
	}
	defer g.Release()

	var out capBuffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(&out, r)
	}()

	waitErr := cmd.Wait()
	// bash is gone; whatever it left in its group goes too, so nothing
	// outlives the call or keeps the pipe open.
	g.Kill()
	_ = r.SetReadDeadline(time.Now().Add(drainWait))
	select {
	case <-done:
	case <-time.After(drainGrace):
		// A process that left the group (setsid) holds the pipe.
		g.KillEscaped()
		<-done
	}

	text := out.String()
	if note := swept(); note != "" {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += note
	}
	if ctx.Err() != nil {
		return orchestrator.CancelledResult(text)
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	st := cmd.ProcessState
	if st == nil {
		return orchestrator.Result{Output: text + orchestrator.ErrorPrefix + cleanErr(waitErr), Status: orchestrator.Failed}
	}
	if sig, ok := procs.Signal(st); ok {
		return output(text + fmt.Sprintf("[killed by signal %s]", sig))
	}
	return output(text + fmt.Sprintf("[exit status %d]", st.ExitCode()))
}

// cleanErr is err's text without the Go wrapping a model has no use for.
func cleanErr(err error) string {
	if err == nil {
		return "unknown error"
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

// capBuffer keeps the first and the last bashHalf bytes written to it and
// counts the rest.
type capBuffer struct {
	head  []byte
	tail  []byte // grows to at most 2*bashHalf, then is cut back to bashHalf
	total int
}

func (b *capBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.total += n
	if room := bashHalf - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) > 0 {
		b.tail = append(b.tail, p...)
		if len(b.tail) > 2*bashHalf {
			b.tail = append(b.tail[:0], b.tail[len(b.tail)-bashHalf:]...)
		}
	}
	return n, nil
}

// String is everything written when it fits in bashCap; otherwise the head,
// a line saying how much was cut, and the tail, cut on character boundaries.
func (b *capBuffer) String() string {
	if b.total <= bashCap {
		return string(b.head) + string(b.tail)
	}
	head := b.head
	for i := 0; i < utf8.UTFMax && len(head) > 0; i++ {
		if r, size := utf8.DecodeLastRune(head); r != utf8.RuneError || size != 1 {
			break
		}
		head = head[:len(head)-1]
	}
	tail := b.tail[len(b.tail)-bashHalf:]
	for i := 0; i < utf8.UTFMax && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	cut := b.total - len(head) - len(tail)
	var sb strings.Builder
	sb.Write(head)
	if len(head) > 0 && head[len(head)-1] != '\n' {
		sb.WriteByte('\n')
	}
	fmt.Fprintf(&sb, "[… %d bytes cut …]\n", cut)
	sb.Write(tail)
	return sb.String()
}
