package hooks

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mm-agent/mm/internal/procs"
)

// noPidfd and stdinPipeSize are for tests: run as on a kernel that gives
// no pidfd, or with the small stdin pipe a user over pipe-user-pages-soft
// gets.
var (
	noPidfd       bool
	stdinPipeSize int
)

// pidfdPolls reports whether the kernel gives pollable pidfds: Linux 5.3
// and later, where pidfd_open came (CLONE_PIDFD came in 5.2, but a 5.2
// pidfd polls readable at once). Elsewhere a waiter's pipe stands in.
var pidfdPolls = func() bool { return !noPidfd && pidfdOpens() }

var pidfdOpens = sync.OnceValue(func() bool {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	syscall.Close(fd)
	return true
})

// pollSlice bounds one wait of the run's loop, so that a cancel is seen
// even while something that left the group holds the pipes.
const pollSlice = 50 * time.Millisecond

// run is execute's work on Linux: the calling goroutine does it all in
// one loop around poll(2) over the pipes and the shell's pidfd — no
// goroutine, no timer and no registration with Go's poller a run (what a
// bare exec.Cmd.Run pays for its stdin's copy) — and starts the shell
// straight through syscall.ForkExec, so that a hook costs no more than its
// process (bench/README.md, "Hook cost in a real turn").
func run(ctx context.Context, sh, command, dir string, env []string, timeout time.Duration, stdin []byte) ([]byte, error) {
	deadline := time.Now().Add(timeout)

	// p: stdin's read and write ends, stdout's, stderr's. The parent's ends
	// are p[1], p[2], p[4]; stdout's and stderr's are read only when poll
	// says so; stdin's does not block (a pipe may hold less than the input:
	// a user over pipe-user-pages-soft gets 8 KiB ones).
	p := [6]int{-1, -1, -1, -1, -1, -1}
	closeFd := func(fd *int) {
		if *fd >= 0 {
			syscall.Close(*fd)
			*fd = -1
		}
	}
	defer func() {
		for i := range p {
			closeFd(&p[i])
		}
	}()
	for i := 0; i < 6; i += 2 {
		if err := syscall.Pipe2(p[i:i+2], syscall.O_CLOEXEC); err != nil {
			return nil, failure("start: " + err.Error())
		}
	}
	if len(stdin) > 0 {
		if err := syscall.SetNonblock(p[1], true); err != nil {
			return nil, failure("start: " + err.Error())
		}
		if stdinPipeSize > 0 {
			unix.FcntlInt(uintptr(p[1]), unix.F_SETPIPE_SZ, stdinPipeSize)
		}
	}

	cmd := exec.Command(sh, "-c", command)
	cmd.Dir = dir
	cmd.Env = env
	procs.Prepare(cmd)
	pidfd := -1
	if pidfdPolls() {
		cmd.SysProcAttr.PidFD = &pidfd
	}
	g, startErr := procs.StartFiles(cmd, []uintptr{uintptr(p[0]), uintptr(p[3]), uintptr(p[5])})
	closeFd(&p[0]) // the shell's ends: it holds them now
	closeFd(&p[3])
	closeFd(&p[5])
	if startErr != nil {
		closeFd(&pidfd)
		return nil, failure("start: " + startErr.Error())
	}
	defer g.Release()
	// exitFd polls readable once the shell has exited: its pidfd, or where
	// the kernel gives none (before Linux 5.2), a pipe a waiter closes.
	exitFd := pidfd
	defer closeFd(&exitFd)
	var (
		ws     syscall.WaitStatus
		waited chan struct{}
	)
	if exitFd < 0 {
		var w [2]int
		if err := syscall.Pipe2(w[:], syscall.O_CLOEXEC); err != nil {
			g.Kill()
			wait4(g.Pid(), &ws)
			return nil, failure("start: " + err.Error())
		}
		exitFd, waited = w[0], make(chan struct{})
		go func() {
			wait4(g.Pid(), &ws)
			syscall.Close(w[1])
			close(waited)
		}()
	}
	// A cancel kills the group: the loop sees the shell end, then the
	// cancel.
	defer context.AfterFunc(ctx, g.Kill)()

	// What fits in the pipe goes now (all of it, for most inputs); the rest
	// as the hook reads, in the loop.
	if len(stdin) > 0 {
		if m, _ := syscall.Write(p[1], stdin); m > 0 {
			stdin = stdin[m:]
		}
	}
	if len(stdin) == 0 {
		closeFd(&p[1])
	}

	var (
		out      = make([]byte, 0, 512)
		overflow bool
		errHead  = make([]byte, 0, stderrQuote)
		scratch  [4096]byte
		exited   bool
		drainBy  time.Time
		hunted   bool
		timedOut bool
		pollErr  error
		fds      [4]unix.PollFd
	)
	for p[2] >= 0 || p[4] >= 0 || !exited {
		if ctx.Err() != nil {
			break
		}
		now := time.Now()
		if !now.Before(deadline) {
			timedOut = true
			break
		}
		if exited && !hunted && !now.Before(drainBy) {
			// Something that left the group holds the pipes.
			g.KillEscaped()
			hunted = true
		}
		wait := min(deadline.Sub(now), pollSlice)
		if exited && !hunted {
			wait = min(wait, drainBy.Sub(now))
		}
		n := 0
		for _, fd := range []int{p[2], p[4], p[1]} {
			if fd >= 0 {
				ev := int16(unix.POLLIN)
				if fd == p[1] {
					ev = unix.POLLOUT
				}
				fds[n] = unix.PollFd{Fd: int32(fd), Events: ev}
				n++
			}
		}
		if !exited {
			fds[n] = unix.PollFd{Fd: int32(exitFd), Events: unix.POLLIN}
			n++
		}
		ms := int((wait + time.Millisecond - 1) / time.Millisecond)
		if _, err := unix.Poll(fds[:n], ms); err != nil && err != unix.EINTR {
			pollErr = err
			break
		}
		for _, f := range fds[:n] {
			if f.Revents == 0 {
				continue
			}
			switch int(f.Fd) {
			case p[2]:
				if len(out) == cap(out) {
					out = append(out, 0)[:len(out)] // grown as append grows, no copy aside
				}
				// Never more than one byte past the limit: a flood costs
				// its first MiB.
				m, err := syscall.Read(p[2], out[len(out):min(cap(out), maxStdout+1)])
				if m > 0 {
					out = out[:len(out)+m]
				}
				if len(out) > maxStdout {
					overflow = true
					out = nil
					g.Kill()
					closeFd(&p[2])
				} else if m == 0 || (err != nil && err != syscall.EINTR && err != syscall.EAGAIN) {
					closeFd(&p[2])
				}
			case p[4]:
				m, err := syscall.Read(p[4], scratch[:])
				if m > 0 {
					if room := cap(errHead) - len(errHead); room > 0 {
						errHead = append(errHead, scratch[:min(m, room)]...)
					}
				} else if m == 0 || (err != nil && err != syscall.EINTR && err != syscall.EAGAIN) {
					closeFd(&p[4])
				}
			case p[1]:
				m, err := syscall.Write(p[1], stdin)
				if m > 0 {
					stdin = stdin[m:]
				}
				// A hook may exit or close stdin without reading: not a
				// failure.
				if len(stdin) == 0 || (err != nil && err != syscall.EINTR && err != syscall.EAGAIN) {
					closeFd(&p[1])
				}
			case exitFd:
				exited = true
				g.Kill() // whatever the shell left behind
				drainBy = time.Now().Add(drainGrace)
			}
		}
	}
	cut := p[2] >= 0 || p[4] >= 0 // the pipes did not reach their end
	g.Kill()
	if cut && !hunted {
		g.KillEscaped()
	}
	var waitErr error
	if waited != nil {
		<-waited
	} else {
		waitErr = wait4(g.Pid(), &ws)
	}

	switch {
	case pollErr != nil:
		return nil, failure("wait: " + pollErr.Error())
	case ctx.Err() != nil:
		return nil, failure("cancelled")
	case timedOut:
		return nil, failure("timed out after " + timeout.String())
	case overflow:
		return nil, failure(fmt.Sprintf("stdout larger than %d bytes", maxStdout))
	}
	if waitErr != nil {
		return nil, failure("wait: " + waitErr.Error())
	}
	if ws.Exited() && ws.ExitStatus() == 0 {
		return out, nil
	}
	sig, signaled := procs.WaitSignal(ws)
	return nil, exitFailure(ws.ExitStatus(), sig, signaled, errHead)
}

// wait4 waits for pid to end and reaps it.
func wait4(pid int, ws *syscall.WaitStatus) error {
	for {
		_, err := syscall.Wait4(pid, ws, 0, nil)
		if err != syscall.EINTR {
			return err
		}
	}
}
