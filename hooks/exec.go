package hooks

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"
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

// Shell is the sh that hook commands run with: the first on PATH, else
// /bin/sh on Unix. On Windows it must be on PATH (Git for Windows has one):
// the error, when it is not, says what to install, and mm gives it at start
// when the config has hooks, rather than running none of them.
func Shell() (string, error) { return shell() }

var shell = sync.OnceValues(func() (string, error) {
	if p, err := exec.LookPath("sh"); err == nil {
		return p, nil
	}
	return noShell()
})

// drainGrace is how long the run waits, once its shell has exited and its
// group has been killed, for its pipes to close before it looks for a
// process that left the group and still holds them.
const drainGrace = 50 * time.Millisecond

// execute runs one hook command: sh -c in dir with env, stdin written then
// closed, stdout read up to 1 MiB, the first bytes of stderr kept. The
// command runs in a process group of its own (procs), and the whole group
// is killed on timeout, on cancel, on a stdout flood and once the shell
// itself has exited, so no background child outlives the run. The timeout
// bounds the whole run, pipes included: a process that left the group
// (setsid) and holds the pipes is looked for and killed, and if the pipes
// are still open at the deadline the run has timed out. (run, by platform,
// does it.)
//
// The returned error is a failure whose text is the reference's message.
func execute(ctx context.Context, command, dir string, env []string, timeout time.Duration, stdin []byte) ([]byte, error) {
	if ctx.Err() != nil {
		return nil, failure("cancelled")
	}
	sh, err := Shell()
	if err != nil {
		return nil, failure("start: " + err.Error())
	}
	return run(ctx, sh, command, dir, env, timeout, stdin)
}

// exitFailure is the failure of a shell that ended with status (killed by
// signal sig, when signaled), stderr's first bytes quoted after it.
func exitFailure(status int, sig string, signaled bool, errHead []byte) error {
	msg := fmt.Sprintf("exit status %d", status)
	if signaled {
		msg = "killed by signal " + sig
	}
	if q := quote(errHead); q != "" {
		msg += ": " + q
	}
	return failure(msg)
}

// readLimited reads r to its end, keeping at most limit bytes; it stops as
// soon as more arrive and reports the overflow, so a flood costs mm no
// memory. err is what ended the reading (io.EOF at the end).
func readLimited(r io.Reader, limit int) (_ []byte, overflow bool, err error) {
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			if len(buf) > limit {
				return nil, true, nil
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if len(buf) > limit {
			return nil, true, nil
		}
		if err != nil {
			return buf, false, err
		}
	}
}

// readHead keeps the first cap(head) bytes of r and discards the rest, so a
// hook that floods stderr neither blocks nor costs memory. err is what
// ended the reading (io.EOF at the end).
func readHead(r io.Reader, head []byte) ([]byte, error) {
	var scratch [4096]byte
	for {
		n, err := r.Read(scratch[:])
		if room := cap(head) - len(head); room > 0 {
			head = append(head, scratch[:min(n, room)]...)
		}
		if err != nil {
			return head, err
		}
	}
}
