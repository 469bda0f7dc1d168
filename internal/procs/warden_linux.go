package procs

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// shWarden is the warden on Linux: a subshell of /bin/sh that blocks
// reading the lifeline (descriptor 5) and, unless mm wrote that all is
// done, runs mm's binary (descriptor 4, through /proc, so a binary
// replaced on disk since does not matter) to do the work; package
// earlywarden does it there. The outer sh starts it in the background,
// prints its pid and exits, so the warden is not mm's child: see
// spawnWarden. A background subshell reads /dev/null as its stdin (POSIX),
// hence the lifeline on 5; its stdout and stderr are closed, so that the
// outer's output ends when the outer does.
//
// Starting sh costs a fraction of starting mm again (a Go runtime, a 30 MB
// binary: bench/README.md, "Hook cost in a real turn"), and mm, killed,
// needs its binary only then.
const shWarden = `trap '' INT TERM HUP QUIT
(read -r said <&5; [ "$said" = ok ] || exec /proc/self/fd/4) >&- 2>&- &
echo $!`

// spawnWarden starts the warden with files as its descriptors 3 to 5 and
// reports whether mm is now the subreaper of what it starts.
//
// With /bin/sh, it is the shWarden, which is not mm's child, and mm then
// becomes a child subreaper (PR_SET_CHILD_SUBREAPER): whatever it starts,
// and anything those start that outlives its parent, stays mm's child. So
// at its clean end mm tells whether anything is left with one call
// (waitid: no child at all), where the warden would otherwise look through
// every process on the machine after mm. The order matters: were mm a
// subreaper before the outer sh exits, the warden would become its child.
// Without /bin/sh, or if this fails, the warden is mm itself.
//
// A warden started once mm is a subreaper (one replacing a warden someone
// killed) becomes mm's child: mm can no longer tell "nothing left" from
// its children, and leaves the looking to that warden at its end.
func spawnWarden(files []*os.File) (pid int, reaper bool, err error) {
	if files[1] != nil && usable("/bin/sh") && usable("/proc/self/fd") {
		if pid, err := spawnShWarden(files); err == nil {
			if subreaper {
				return pid, false, nil
			}
			if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err == nil {
				subreaper = true
				return pid, true, nil
			}
			return pid, false, nil
		}
	}
	pid, err = spawnMMWarden(files)
	return pid, false, err
}

// subreaper: mm has made itself a child subreaper. Guarded by mu.
var subreaper bool

func subreaperSet() bool { return subreaper }

func usable(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// spawnShWarden runs the outer sh straight through syscall.ForkExec (no
// os/exec: no goroutine for its output, no first-start pidfd probe) and
// reads the warden's pid it prints.
func spawnShWarden(files []*os.File) (int, error) {
	out, err := cloexecPipe()
	if err != nil {
		return 0, err
	}
	defer syscall.Close(out[0])
	fds := []uintptr{^uintptr(0), uintptr(out[1]), ^uintptr(0)} // stdin and stderr closed
	for _, f := range files {
		fds = append(fds, f.Fd())
	}
	pid, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", shWarden, "mm-warden"}, &syscall.ProcAttr{
		Env: wardenEnviron(), Files: fds, Sys: &syscall.SysProcAttr{Setpgid: true},
	})
	syscall.Close(out[1])
	if err != nil {
		return 0, err
	}
	var said []byte
	var buf [32]byte
	for len(said) < 64 {
		n, err := syscall.Read(out[0], buf[:])
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 {
			break
		}
		said = append(said, buf[:n]...)
	}
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
			break
		}
	}
	warden, err := strconv.Atoi(strings.TrimSpace(string(said)))
	if err != nil || !ws.Exited() || ws.ExitStatus() != 0 {
		return 0, fmt.Errorf("the warden's shell printed %q and ended %v", said, ws)
	}
	return warden, nil
}

// cloexecPipe is a pipe whose ends no process mm starts inherits.
func cloexecPipe() (p [2]int, err error) {
	err = syscall.Pipe2(p[:], syscall.O_CLOEXEC)
	return p, err
}

// childless reports whether this process has no child left, reaping those
// that have ended (no owner waits for them any more: this is mm's end).
// What is left and carries mm's tag got away from its group and outlived
// its parent: it is killed here, and looked for again, as long as the
// warden's own hunt would. A child without the tag is not mm's to kill —
// one mm inherited from the shell that exec'd it (`server & exec mm`), or
// something that cleared its environment: mm is then not childless, and
// leaves the looking to the warden, which kills by tag too.
func childless() bool {
	for range 50 {
		if noChild() {
			return true
		}
		if killTaggedChildren() == 0 {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}

// killTaggedChildren kills this process's children still running that
// carry one of its tags (found through /proc: this kernel may not list a
// process's children) and returns how many.
func killTaggedChildren() int {
	n, tok := 0, token()
	mine := func(tags string) bool { return hasTokenTag(tags, tok) }
	for _, c := range children() {
		if !c.zombie && c.pid != warden.pid && carries(c.pid, mine) {
			syscall.Kill(c.pid, syscall.SIGKILL)
			n++
		}
	}
	return n
}

// child is one of this process's children, as /proc/<pid>/stat shows it.
type child struct {
	pid    int
	zombie bool
}

// children lists this process's children from /proc/*/stat: a read of
// every process's, for the rare times it is needed.
func children() []child {
	self := strconv.Itoa(os.Getpid())
	var out []child
	for _, pid := range procPids() {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold anything, so from its end.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		if f := strings.Fields(string(b[i+1:])); len(f) > 1 && f[1] == self {
			out = append(out, child{pid: pid, zombie: f[0] == "Z"})
		}
	}
	return out
}

// noChild reports whether this process has no child, reaping the ended
// ones.
func noChild() bool {
	for range 1000 {
		pid, err := waitable(unix.P_ALL, 0)
		switch {
		case err == syscall.ECHILD:
			return true
		case err != nil || pid == 0: // a child still running
			return false
		}
		reap(pid)
	}
	return false
}

// reapOrphans reaps the ended children mm inherited as a subreaper: the
// background children a group's kill ended, daemons that left their
// session (killed, or gone by themselves), a child mm's warden. No owner
// waits for those, and they would stay zombies for mm's whole session.
//
// It reaps only what mm cannot have started itself (orphan). waitid names
// the first ended child only, and one that is not an orphan (its owner
// has yet to wait for it, or nobody will: a `timeout` a hook left, which
// made a group of its own in mm's session) would stop the reaping for
// good: then, at most every scanEvery, the ended children are listed
// from /proc and the orphans among them reaped one by one. mu is held.
func reapOrphans() {
	for range 100 {
		pid, err := waitable(unix.P_ALL, 0)
		if err != nil || pid == 0 {
			return
		}
		if !orphan(pid) {
			if time.Since(lastScan) >= scanEvery {
				lastScan = time.Now()
				for _, c := range children() {
					if c.zombie && orphan(c.pid) {
						reap(c.pid)
					}
				}
			}
			return
		}
		reap(pid)
	}
}

// scanEvery bounds how often reapOrphans reads /proc (a read of every
// process's stat, some 0.3 ms); lastScan is when it last did (mu).
var (
	scanEvery = 10 * time.Second
	lastScan  time.Time
)

// orphan reports whether pid, a child of mm, is one mm cannot have
// started: a process mm starts leads a group of its own in mm's session,
// and its owner reaps it — even one that ended before its owner listed it
// (a start is not atomic with the listing) — and a library's child is in
// mm's own group. So: a member of another group, or the leader of another
// session. (No library mm uses starts a process that changes its own group
// or session: one that did would be taken for an orphan.)
func orphan(pid int) bool {
	pg, err := syscall.Getpgid(pid)
	if err != nil || pg == syscall.Getpgrp() {
		return false
	}
	return pg != pid || getsid(pid) != getsid(0)
}

func reap(pid int) {
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
}

func getsid(pid int) int {
	sid, err := unix.Getsid(pid)
	if err != nil {
		return -1
	}
	return sid
}

// waitable names a child that has ended, among those id and which say,
// without reaping it: 0 when none has, ECHILD when there are none at all.
func waitable(which, id int) (int, error) {
	var info unix.Siginfo
	if err := unix.Waitid(which, id, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil {
		return 0, err
	}
	return siginfoPid(&info), nil
}

// siginfoPid is si_pid, which x/sys/unix's Siginfo keeps in its padding:
// the kernel's union after three 32-bit fields, aligned as a pointer is
// (at 16 on 64-bit architectures, 12 on 32-bit ones).
func siginfoPid(info *unix.Siginfo) int {
	const ptr = unsafe.Sizeof(uintptr(0))
	return int(*(*int32)(unsafe.Add(unsafe.Pointer(info), (12+ptr-1)&^(ptr-1))))
}
