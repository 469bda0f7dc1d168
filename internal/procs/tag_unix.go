//go:build unix

package procs

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

var (
	// inherited are the tags this process itself carries: the runs of the
	// mm processes above it.
	inherited = os.Getenv(TagEnv)

	tokOnce sync.Once
	tok     string
	seq     atomic.Uint64
)

// token names this mm among all others: 16 random hex digits.
func token() string {
	tokOnce.Do(func() {
		var b [8]byte
		rand.Read(b[:])
		tok = hex.EncodeToString(b[:])
	})
	return tok
}

func nextTag() string { return token() + "." + strconv.FormatUint(seq.Add(1), 10) }

// hunt kills every live process (but this one) whose tags match, again
// until none is left: a process may fork while it is being killed. A
// killed process is a zombie at once or nearly; zombies carry no
// environment, so they are not found again.
func hunt(match func(tags string) bool) {
	self := os.Getpid()
	for range 50 {
		found := false
		for _, pid := range tagged(match) {
			if pid != self && pid > 1 {
				syscall.Kill(pid, syscall.SIGKILL)
				found = true
			}
		}
		if !found {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
