//go:build unix

package procs

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/mm-agent/mm/internal/procs/earlywarden"
)

// wardenEnv, in a process's environment, makes it a warden as soon as
// this package initialises: mm (or any binary that links this package, a
// test binary too) runs itself again with it to get one. Its value is the
// token of the mm it watches.
const wardenEnv = earlywarden.Env

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
	pipe *os.File // the write end; nil before the first start and once it died
	pid  int
}

// ready starts the warden if it is not running: before the first process,
// and again if it died (someone killed it).
func ready() error {
	mu.Lock()
	defer mu.Unlock()
	if warden.pipe != nil {
		return nil
	}
	return startWarden()
}

// startWarden starts a warden and tells it every live group. mu is held.
func startWarden() error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("start mm's process warden: %w", err)
	}
	cmd := exec.Command(self(), "__warden")
	cmd.Args[0] = os.Args[0]
	for _, kv := range os.Environ() {
		if !hasPrefix(kv, TagEnv+"=") && !hasPrefix(kv, wardenEnv+"=") && !hasPrefix(kv, lifelineEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, wardenEnv+"="+token())
	cmd.Stdin = r // stdout and stderr: /dev/null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return fmt.Errorf("start mm's process warden: %w", err)
	}
	warden.pipe, warden.pid = w, cmd.Process.Pid
	// The warden's owner reaps it; should it die, the next registration
	// finds the pipe broken and starts another.
	go cmd.Wait()
	for pid := range groups {
		if err := send('+', pid); err != nil {
			return err
		}
	}
	return nil
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

// send writes one line to the warden. mu is held.
func send(op byte, pid int) error {
	w := warden.pipe
	if w == nil {
		return errors.New("no warden")
	}
	w.SetWriteDeadline(time.Now().Add(time.Second))
	_, err := w.Write([]byte(string(op) + strconv.Itoa(pid) + "\n"))
	if err != nil {
		// Dead or stuck: replace it.
		w.Close()
		warden.pipe = nil
		if warden.pid > 0 {
			syscall.Kill(warden.pid, syscall.SIGKILL)
		}
	}
	return err
}

// register tells the warden of a new group (starting a warden if there is
// none, which is then told of every live group, g among them). A group
// tied to mm's life (tiedToLife) starts no warden: the next one to start
// is told of it.
func register(g *Group, tied bool) error {
	mu.Lock()
	defer mu.Unlock()
	if tied && warden.pipe == nil {
		return nil
	}
	if send('+', g.pid) != nil {
		return startWarden()
	}
	return nil
}

func unregister(g *Group) {
	mu.Lock()
	defer mu.Unlock()
	if warden.pipe != nil {
		send('-', g.pid)
	}
}

// runWarden is the warden's life: it keeps the list of the groups mm has
// running, read from its stdin, until the pipe ends — mm is gone, however
// it went — then kills each group still listed, and every process carrying
// one of mm's tags (those that left their group).
func runWarden(tok string) {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	debug.FreeOSMemory() // what mm's packages set up at start is of no use here
	live := map[int]bool{}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 2 {
			continue
		}
		pid, err := strconv.Atoi(line[1:])
		if err != nil || pid <= 1 {
			continue
		}
		switch line[0] {
		case '+':
			live[pid] = true
		case '-':
			delete(live, pid)
		}
	}
	for pid := range live {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	hunt(func(tags string) bool { return hasTokenTag(tags, tok) })
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
