// Package procs keeps the process groups mm has started and not yet
// reaped (hooks, bash tool calls), so that an mm that must go away at once
// — an asked agent whose parent died — can take everything it started with
// it. Each group is also killed by its owner on timeout or cancel; this is
// the backstop for when the owner never gets the chance.
package procs

import (
	"sync"
	"syscall"
)

var (
	mu     sync.Mutex
	groups = map[int]struct{}{}
)

// Track records the process group led by pid until the returned func is
// called (by the owner, once the group is dead).
func Track(pid int) (untrack func()) {
	mu.Lock()
	groups[pid] = struct{}{}
	mu.Unlock()
	return func() {
		mu.Lock()
		delete(groups, pid)
		mu.Unlock()
	}
}

// KillAll sends SIGKILL to every tracked process group.
func KillAll() {
	mu.Lock()
	defer mu.Unlock()
	for pid := range groups {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}
