package procs

import "golang.org/x/sys/unix"

// tagged lists the processes whose environment carries tags that match,
// from the kernel's process table and each process's start-up arguments
// and environment (kern.procargs2; readable for this user's processes).
func tagged(match func(tags string) bool) []int {
	all, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	var pids []int
	for _, p := range all {
		pid := int(p.Proc.P_pid)
		if pid <= 1 {
			continue
		}
		b, err := unix.SysctlRaw("kern.procargs2", pid)
		if err != nil {
			continue
		}
		for _, kv := range procargsEnv(b) {
			if len(kv) > len(TagEnv) && kv[:len(TagEnv)+1] == TagEnv+"=" {
				if match(kv[len(TagEnv)+1:]) {
					pids = append(pids, pid)
				}
				break
			}
		}
	}
	return pids
}
