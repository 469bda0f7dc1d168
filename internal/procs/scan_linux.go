package procs

import (
	"bytes"
	"os"
	"strconv"
)

// tagged lists the processes whose environment carries tags that match,
// from /proc (a process's environment as it was when it started: what it
// inherited, which is what matters here).
func tagged(match func(tags string) bool) []int {
	var pids []int
	for _, pid := range procPids() {
		if carries(pid, match) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// carries reports whether pid's environment, as /proc shows it, carries
// tags that match.
func carries(pid int, match func(tags string) bool) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	v, ok := lookupEnv(env, TagEnv)
	return ok && match(v)
}

// procPids lists the processes /proc shows.
func procPids() []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	pids := make([]int, 0, len(names))
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// lookupEnv finds key in a block of NUL-separated KEY=value strings.
func lookupEnv(block []byte, key string) (string, bool) {
	k := []byte(key + "=")
	for len(block) > 0 {
		kv := block
		if i := bytes.IndexByte(block, 0); i >= 0 {
			kv, block = block[:i], block[i+1:]
		} else {
			block = nil
		}
		if v, ok := bytes.CutPrefix(kv, k); ok {
			return string(v), true
		}
	}
	return "", false
}
