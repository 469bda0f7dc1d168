// Package procs starts the processes mm runs — hook commands, bash tool
// calls, MCP servers, asked agents — so that none of them, nor anything they
// start, outlives mm, however mm ends: cleanly, by Ctrl-C, or by SIGKILL.
//
// Each process starts as the leader of a group of its own (a process group
// on Unix, so a Ctrl-C in the terminal reaches mm alone and a kill reaches
// the whole group; a job object on Windows, which also holds whatever the
// process starts). Its owner kills the group on timeout, on cancel and once
// the leader has exited, then releases it.
//
// For when the owner never gets the chance, three things on Unix:
//
//   - A warden: a process started with the first process (or beside mm's
//     start, Expect), in a process group of its own, ignoring terminal
//     signals, that blocks reading a pipe only mm writes to. When mm
//     dies, the pipe ends, and the warden kills every group listed in a
//     table mm keeps in shared memory, then every process carrying one of
//     mm's tags. On Linux it is /bin/sh, which runs mm's binary only then;
//     mm is the subreaper of what it starts, so that at its orderly end
//     (Shutdown) it kills what got away itself and tells the warden to
//     exit without a hunt. Elsewhere it is mm itself.
//   - A tag: every process mm starts carries MM_PROC_TAG in its environment,
//     naming the run and every mm above it, and passes it on to what it
//     starts. A process that left its group (setsid) keeps the tag, so it is
//     found and killed: by the run's owner when the run's pipes stay open
//     after its group is dead, and by the warden when mm is gone. (Found on
//     Linux through /proc and on macOS through sysctl; a process that clears
//     its environment is only reached through its group.)
//   - On Linux, the direct child also gets SIGKILL (a child mm, SIGTERM) the
//     moment mm dies (PR_SET_PDEATHSIG).
//
// A child mm on Linux is tied to mm's life twice over: the parent-death
// signal (from its first instruction) and its lifeline (a pipe only mm
// writes to) both make it kill what it started and exit, and its own
// warden covers what it started. No warden is started for it alone (a
// process start that every one-shot `mm --ask` paid for a child that needs
// none): the first process that is not so tied (a hook, a tool call, an
// MCP server) starts the warden, whose table lists every live group, the
// children's included. (What the warden alone would still do
// for such a child: SIGKILL one that is stopped, SIGSTOP, when mm dies;
// it gets its SIGTERM once it is continued.)
//
// On Windows, each group's job object is set to kill its processes when
// its last handle closes, which happens when mm dies; there is no warden.
package procs

import (
	"os"
	"os/exec"
	"strings"
	"sync"
)

// TagEnv is the environment variable every process mm starts carries: the
// tags of its run and of the runs above it, separated by spaces. A tag is
// "<token>.<n>": the token of the mm that started the run, and the run's
// number in that mm.
const TagEnv = "MM_PROC_TAG"

// Group is a process mm started with everything it starts in turn, until
// its owner releases it.
type Group struct {
	pid int
	tag string // this run's tag ("" where tags are not used)

	mu       sync.Mutex
	released bool
	sys      sysGroup // the platform's part (Windows: the job object)
}

var (
	mu     sync.Mutex
	groups = map[int]*Group{} // live groups, by leader pid
)

// Prepare sets cmd up the way mm starts every process: a group of its own,
// this run's tag in its environment (cmd.Env, or mm's own environment when
// nil; the slice is copied, never changed), and, for a cmd made by
// exec.CommandContext, a Cancel that kills the whole group. Call it last, after Env,
// and start cmd with Start (or Adopt it once something else started it).
func Prepare(cmd *exec.Cmd) {
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, TagEnv+"=") {
			out = append(out, kv)
		}
	}
	if tag := nextTag(); tag != "" {
		out = append(out, TagEnv+"="+strings.TrimSpace(inherited+" "+tag))
	}
	cmd.Env = out
	prepare(cmd)
	if cmd.Cancel != nil { // made by exec.CommandContext
		cmd.Cancel = func() error {
			if g := lookup(cmd.Process.Pid); g != nil {
				g.Kill()
				return nil
			}
			return cmd.Process.Kill()
		}
	}
}

// PrepareServer is Prepare for a process meant to live as long as mm (an
// MCP server): on Linux it also gets SIGKILL the moment mm dies. A library
// starts it, so the warden is started here, before it (Adopt would start
// one only after: should mm die in between — an asked agent's parent
// killed while its MCP servers start — what the server started would
// have no warden). A warden that cannot start now is started by Adopt.
func PrepareServer(cmd *exec.Cmd) {
	Prepare(cmd)
	prepareServer(cmd)
	ready()
}

// Expect starts the warden now, in the background, for an mm that knows it
// will start processes (its config has command hooks): the warden's start
// then overlaps mm's own, where it would otherwise delay the first hook.
// A process started before it is done waits for it.
func Expect() { go ready() }

// Start starts a prepared cmd and returns its group.
func Start(cmd *exec.Cmd) (*Group, error) {
	// A process tied to mm's life (a child mm with its lifeline, on Linux)
	// goes with mm without a warden: none is started for it.
	if !tiedToLife(cmd) {
		if err := ready(); err != nil {
			return nil, err
		}
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return Adopt(cmd)
}

// Adopt returns the group of a prepared cmd that something else (a
// library) started. The error, when the process cannot be guarded, comes
// after the process has been killed.
func Adopt(cmd *exec.Cmd) (*Group, error) {
	g := &Group{pid: cmd.Process.Pid, tag: runTag(cmd.Env)}
	if err := g.sys.attach(cmd.Process); err != nil {
		cmd.Process.Kill()
		return nil, err
	}
	return g, track(g, tiedToLife(cmd))
}

// track lists a started group and tells the warden; on error the group
// has been killed.
func track(g *Group, tied bool) error {
	mu.Lock()
	groups[g.pid] = g
	mu.Unlock()
	if err := register(g, tied); err != nil {
		g.Kill()
		g.Release()
		return err
	}
	return nil
}

// Pid is the pid of the group's leader.
func (g *Group) Pid() int { return g.pid }

// Kill kills every process of the group at once. Killing a group that has
// ended, or has been released, does nothing.
func (g *Group) Kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.released {
		g.sys.kill(g.pid)
	}
}

// Terminate asks the group's leader to go (SIGTERM on Unix: a child mm then
// kills what it started and exits); on Windows, where there is no asking,
// it kills the group.
func (g *Group) Terminate() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.released {
		g.sys.terminate(g.pid)
	}
}

// KillEscaped kills the processes of this run that left its group (a
// daemon that called setsid), found by their tag. It reads the process
// table, so owners call it only when something shows that a process got
// away: the run's pipes are still open after its group was killed.
func (g *Group) KillEscaped() {
	if g.tag != "" {
		hunt(func(tags string) bool { return hasTag(tags, g.tag) })
	}
}

// Release is for the owner, once the leader has been waited for and the
// group killed: mm stops tracking it (and the warden forgets it).
func (g *Group) Release() {
	g.mu.Lock()
	if g.released {
		g.mu.Unlock()
		return
	}
	g.released = true
	g.sys.release()
	g.mu.Unlock()
	mu.Lock()
	if groups[g.pid] == g {
		delete(groups, g.pid)
	}
	mu.Unlock()
	unregister(g)
}

// KillAll kills every group mm has running and every process carrying one
// of its tags: for an mm that must go at once (an asked agent whose parent
// died) and takes everything it started with it.
func KillAll() {
	mu.Lock()
	live := make([]*Group, 0, len(groups))
	for _, g := range groups {
		live = append(live, g)
	}
	mu.Unlock()
	for _, g := range live {
		g.Kill()
	}
	if t := token(); t != "" {
		hunt(func(tags string) bool { return hasTokenTag(tags, t) })
	}
}

func lookup(pid int) *Group {
	mu.Lock()
	defer mu.Unlock()
	return groups[pid]
}

// hasTag reports whether the space-separated tags hold tag.
func hasTag(tags, tag string) bool {
	for _, t := range strings.Fields(tags) {
		if t == tag {
			return true
		}
	}
	return false
}

// hasTokenTag reports whether tags hold a tag of the mm whose token is tok.
func hasTokenTag(tags, tok string) bool {
	for _, t := range strings.Fields(tags) {
		if strings.HasPrefix(t, tok+".") {
			return true
		}
	}
	return false
}

// runTag is the run's own tag in env: the last of TagEnv's, when this mm
// made it.
func runTag(env []string) string {
	tok := token()
	if tok == "" {
		return ""
	}
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], TagEnv+"="); ok {
			f := strings.Fields(v)
			if len(f) > 0 && strings.HasPrefix(f[len(f)-1], tok+".") {
				return f[len(f)-1]
			}
			return ""
		}
	}
	return ""
}
