package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mm-agent/mm/internal/procs"
)

// Limits of one run, from the reference's Execution table.
const (
	maxStdout   = 1 << 20 // 1 MiB
	stderrQuote = 300
	// syncStdin is the largest input written before the process is waited
	// for; a pipe holds 64 KiB on Linux, so such a write never blocks even
	// when the hook does not read its stdin.
	syncStdin = 32 << 10
)

var shPath = func() string {
	if p, err := exec.LookPath("sh"); err == nil {
		return p
	}
	return "/bin/sh"
}()

// execute runs one hook command: sh -c in dir with env, stdin written then
// closed, stdout read up to 1 MiB, the first bytes of stderr kept. The
// command runs in its own process group, and the whole group is killed on
// timeout, on cancel, on a stdout flood and once the shell itself has exited,
// so no background child outlives the run or holds its pipes open.
//
// The returned error is a failure whose text is the reference's message.
func execute(ctx context.Context, command, dir string, env []string, timeout time.Duration, stdin []byte) ([]byte, error) {
	if ctx.Err() != nil {
		return nil, failure("cancelled")
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, failure("start: " + err.Error())
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, failure("start: " + err.Error())
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, failure("start: " + err.Error())
	}

	cmd := exec.CommandContext(tctx, shPath, "-c", command)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	startErr := cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if startErr != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, failure("start: " + startErr.Error())
	}
	pid := cmd.Process.Pid
	untrack := procs.Track(pid)
	defer untrack()

	// The readers own outR and errR and close them; out and tail are theirs
	// until wg.Wait returns.
	var (
		wg       sync.WaitGroup
		out      []byte
		overflow bool
		errHead  = make([]byte, 0, stderrQuote)
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer outR.Close()
		out, overflow = readLimited(outR, maxStdout)
		if overflow {
			killGroup(pid)
		}
	}()
	go func() {
		defer wg.Done()
		defer errR.Close()
		errHead = readHead(errR, errHead)
	}()
	if len(stdin) <= syncStdin {
		writeStdin(inW, stdin)
	} else {
		go writeStdin(inW, stdin)
	}

	waitErr := cmd.Wait()
	killGroup(pid) // whatever the shell left behind
	wg.Wait()

	switch {
	case ctx.Err() != nil:
		return nil, failure("cancelled")
	case tctx.Err() != nil:
		return nil, failure("timed out after " + timeout.String())
	case overflow:
		return nil, failure(fmt.Sprintf("stdout larger than %d bytes", maxStdout))
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		msg := fmt.Sprintf("exit status %d", ee.ExitCode())
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			msg = "killed by signal " + unix.SignalName(ws.Signal())
		}
		if q := quote(errHead); q != "" {
			msg += ": " + q
		}
		return nil, failure(msg)
	}
	if waitErr != nil {
		return nil, failure(waitErr.Error())
	}
	return out, nil
}

func writeStdin(w *os.File, b []byte) {
	w.Write(b) // a hook may exit or close stdin without reading: not a failure
	w.Close()
}

func killGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }

// readLimited reads r to EOF, keeping at most limit bytes; it stops as soon
// as more arrive and reports the overflow, so a flood costs mm no memory.
func readLimited(r io.Reader, limit int) ([]byte, bool) {
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			if len(buf) > limit {
				return nil, true
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if len(buf) > limit {
			return nil, true
		}
		if err != nil {
			return buf, false
		}
	}
}

// readHead keeps the first cap(head) bytes of r and discards the rest, so a
// hook that floods stderr neither blocks nor costs memory.
func readHead(r io.Reader, head []byte) []byte {
	var scratch [4096]byte
	for {
		n, err := r.Read(scratch[:])
		if room := cap(head) - len(head); room > 0 {
			head = append(head, scratch[:min(n, room)]...)
		}
		if err != nil {
			return head
		}
	}
}
