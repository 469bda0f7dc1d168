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
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	var pids []int
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + n + "/environ")
		if err != nil {
			continue
		}
		if v, ok := lookupEnv(env, TagEnv); ok && match(v) {
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
