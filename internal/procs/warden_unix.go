//go:build unix

package procs

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/mm-agent/mm/internal/procs/earlywarden"
)

// wardenEnv, in a process's environment, makes it a warden as soon as
// this package initialises: mm (or any binary that links this package, a
// test binary too) runs itself again with it to get one. Its value is the
// token of the mm it watches.
const wardenEnv = earlywarden.Env

// The warden's file descriptors: the table (3), mm's binary (4, which
// the sh warden runs to do its work) and the lifeline (5).
const (
	tableFd = earlywarden.TableFd
	lifeFd  = earlywarden.LifeFd
)

// wardenOK is what mm writes on the lifeline when it ends with nothing
// left to kill: the warden then exits without looking for anything.
const wardenOK = "ok\n"

func init() {
	// On Linux the warden never gets here: package earlywarden, initialised
	// long before this one, runs it whole and exits.
	if t := os.Getenv(wardenEnv); t != "" {
		runWarden(t)
		os.Exit(0)
	}
}

// The warden of this process, guarded by mu (procs.go).
var warden struct {
	life  int // the lifeline's write end; -1 when no warden runs
	pid   int
	table *table // made with the first warden, kept for the next ones
	// reaper: mm is the subreaper of what it starts (PR_SET_CHILD_SUBREAPER,
	// Linux) and the warden is not its child, so at its end it can tell
	// whether anything it started is left.
	reaper bool
	// ended: Shutdown has run; a process still starting is refused, and
	// killed by track, as no warden would see it.
	ended bool
}

func init() { warden.life = -1 }

// ready starts the warden if it is not running: before the first process,
// and again if it died (someone killed it).
func ready() error {
	mu.Lock()
	defer mu.Unlock()
	if warden.ended {
		return errEnded
	}
	if warden.life >= 0 && wardenAlive() {
		return nil
	}
	return startWarden()
}

// wardenAlive reports whether the lifeline still has its reader: a pipe
// whose read end is closed polls as an error on its write end.
func wardenAlive() bool {
	fds := []unix.PollFd{{Fd: int32(warden.life), Events: unix.POLLOUT}}
	n, err := unix.Poll(fds, 0)
	return err != nil || n == 0 || fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) == 0
}

// startWarden starts a warden, with the table of every live group. mu is
// held.
func startWarden() error {
	if warden.table == nil {
		t, err := newTable()
		if err != nil {
			return wardenErr(err)
		}
		for pid := range groups {
			t.add(pid)
		}
		warden.table = t
	}
	if warden.life >= 0 {
		syscall.Close(warden.life)
		warden.life = -1
	}
	p, err := cloexecPipe()
	if err != nil {
		return wardenErr(err)
	}
	life := os.NewFile(uintptr(p[0]), "lifeline")
	exe, _ := os.Open(self()) // the sh warden's way back to mm's binary
	files := []*os.File{warden.table.file, exe, life}
	pid, reaper, err := spawnWarden(files)
	life.Close()
	if exe != nil {
		exe.Close()
	}
	if err != nil {
		syscall.Close(p[1])
		return wardenErr(err)
	}
	warden.life, warden.pid, warden.reaper = p[1], pid, reaper
	return nil
}

var errEnded = errors.New("mm is ending")

func wardenErr(err error) error {
	return &os.SyscallError{Syscall: "start mm's process warden", Err: err}
}

// wardenEnviron is all a warden's environment holds: the token it hunts.
func wardenEnviron() []string { return []string{wardenEnv + "=" + token()} }

// spawnMMWarden starts mm itself as the warden, with files as its
// descriptors 3 to 5; it waits on the lifeline. Its owner reaps it.
func spawnMMWarden(files []*os.File) (int, error) {
	cmd := exec.Command(self(), "__warden")
	cmd.Args[0] = os.Args[0]
	cmd.Env = wardenEnviron()
	cmd.ExtraFiles = files
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	go cmd.Wait()
	return cmd.Process.Pid, nil
}

func self() string {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe" // the running binary, even if its file was replaced
	}
	if p, err := os.Executable(); err == nil {
		return p
	}
	return os.Args[0]
}

// register lists a new group in the warden's table (starting a warden if
// there is none). A group tied to mm's life (tiedToLife) starts no warden:
// the next one to start lists it.
func register(g *Group, tied bool) error {
	mu.Lock()
	defer mu.Unlock()
	if warden.ended {
		return errEnded
	}
	if warden.table == nil {
		if tied {
			return nil
		}
		return startWarden() // lists every live group, g among them
	}
	return warden.table.add(g.pid)
}

func unregister(g *Group) {
	mu.Lock()
	defer mu.Unlock()
	if warden.table != nil {
		warden.table.remove(g.pid)
	}
	if subreaperSet() {
		reapOrphans()
	}
}

// Shutdown is for mm's last moment, once its owners have ended what they
// ran: it kills any group still running, as the warden would, and when
// nothing mm started is left (on Linux it knows: what left a group and
// outlived its parent is mm's child) tells the warden so, which then exits
// without looking through every process, and reports true. Otherwise the
// warden does its work as when mm is killed.
func Shutdown() (clean bool) {
	mu.Lock()
	defer mu.Unlock()
	warden.ended = true
	if warden.life < 0 {
		return len(groups) == 0
	}
	for pid := range groups {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	if warden.reaper && len(groups) == 0 && childless() {
		_, err := syscall.Write(warden.life, []byte(wardenOK))
		clean = err == nil
	}
	syscall.Close(warden.life)
	warden.life = -1
	return clean
}

// runWarden is the warden's life where package earlywarden does not run it
// (on Linux it does the same with syscall alone): wait on the
// lifeline until mm says all is done or is gone, however it went; then
// kill each group the table still lists and every process carrying one of
// mm's tags (those that left their group).
func runWarden(tok string) {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	debug.FreeOSMemory() // what mm's packages set up at start is of no use here
	said, _ := io.ReadAll(io.LimitReader(os.NewFile(lifeFd, "lifeline"), 16))
	if string(said) == wardenOK {
		return
	}
	b, _ := io.ReadAll(io.NewSectionReader(os.NewFile(tableFd, "table"), 0, tableSlots*4))
	for _, pid := range listed(b) {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	hunt(func(tags string) bool { return hasTokenTag(tags, tok) })
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
