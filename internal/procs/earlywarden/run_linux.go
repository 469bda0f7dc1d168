package earlywarden

import (
	"syscall"
	"unsafe"
)

func init() {
	tok, ok := syscall.Getenv(Env)
	if !ok || tok == "" {
		return
	}
	ignoreSignals()
	if waitLife(LifeFd) {
		syscall.Exit(0)
	}
	for _, pid := range listed(TableFd) {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	hunt(tok)
	syscall.Exit(0)
}

// waitLife blocks reading the lifeline at fd until mm is gone, however it
// went, or says that all is done ("ok\n", then nothing): it reports which.
// The sh warden has read the lifeline before it runs this, which then
// reads the end of the pipe at once.
func waitLife(fd int) (done bool) {
	var said [4]byte
	n := 0
	for {
		m, err := syscall.Read(fd, said[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			return n == 3 && string(said[:3]) == "ok\n"
		}
		n += m
		if n == len(said) {
			return false // more than mm ever says: not from mm
		}
	}
}

// listed reads the groups the table at fd lists: one 32-bit pid a slot,
// 0 when free (procs's table).
func listed(fd int) []int {
	var pids []int
	var buf [4096]byte
	for off := int64(0); ; {
		n, err := syscall.Pread(fd, buf[:], off)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return pids
		}
		for i := 0; i+4 <= n; i += 4 {
			if pid := int(*(*int32)(unsafe.Pointer(&buf[i]))); pid > 1 {
				pids = append(pids, pid)
			}
		}
		off += int64(n &^ 3)
	}
}

// hunt kills every live process (but this one) that carries a tag of the
// mm whose token is tok — what left its group (a daemon that called
// setsid) — again until none is left: a process may fork while it is
// being killed. A killed process is a zombie at once or nearly; zombies
// carry no environment, so they are not found again. (procs.hunt, with
// syscall alone.)
func hunt(tok string) {
	self := syscall.Getpid()
	for range 50 {
		found := false
		for _, pid := range tagged(tok) {
			if pid != self && pid > 1 {
				syscall.Kill(pid, syscall.SIGKILL)
				found = true
			}
		}
		if !found {
			return
		}
		ts := syscall.NsecToTimespec(5e6)
		syscall.Nanosleep(&ts, nil)
	}
}

// tagged lists the processes whose environment, as /proc shows it (what
// they inherited), carries a tag of tok: MM_PROC_TAG holds tags separated
// by spaces, each "<token>.<n>".
func tagged(tok string) []int {
	fd, err := syscall.Open("/proc", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	var names []string
	buf := make([]byte, 16<<10)
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err != nil || n <= 0 {
			break
		}
		_, _, names = syscall.ParseDirent(buf[:n], -1, names)
	}
	syscall.Close(fd)
	var pids []int
	env := make([]byte, 64<<10)
	for _, name := range names {
		pid := atoi([]byte("/" + name))
		if pid <= 0 {
			continue
		}
		var got []byte
		got, env = readFile("/proc/"+name+"/environ", env)
		if carries(got, tok) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// readFile reads path whole into buf, grown as needed (returned for the
// next call); nil when it cannot be read.
func readFile(path string, buf []byte) ([]byte, []byte) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, buf
	}
	defer syscall.Close(fd)
	n := 0
	for {
		if n == len(buf) {
			buf = append(buf, make([]byte, len(buf))...)
		}
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			return buf[:n], buf
		}
		n += m
	}
}

// carries reports whether a block of NUL-separated KEY=value strings
// holds MM_PROC_TAG with a tag of tok.
func carries(block []byte, tok string) bool {
	const key = tagEnv + "="
	for start := 0; start < len(block); {
		end := start
		for end < len(block) && block[end] != 0 {
			end++
		}
		kv := block[start:end]
		start = end + 1
		if len(kv) < len(key) || string(kv[:len(key)]) != key {
			continue
		}
		for _, t := range fields(kv[len(key):]) {
			if len(t) > len(tok) && string(t[:len(tok)]) == tok && t[len(tok)] == '.' {
				return true
			}
		}
		return false
	}
	return false
}

// fields splits b at spaces.
func fields(b []byte) [][]byte {
	var out [][]byte
	start := -1
	for i, c := range b {
		switch {
		case c == ' ' && start >= 0:
			out = append(out, b[start:i])
			start = -1
		case c != ' ' && start < 0:
			start = i
		}
	}
	if start >= 0 {
		out = append(out, b[start:])
	}
	return out
}

// atoi reads the pid after the line's first byte; -1 when it is not one.
func atoi(line []byte) int {
	if len(line) < 2 || len(line) > 12 {
		return -1
	}
	n := 0
	for _, c := range line[1:] {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// ignoreSignals makes the warden deaf to the signals that end a process
// politely (a terminal's Ctrl-C or hang-up, a kill without -9), as
// os/signal.Ignore would; os/signal is not available this early. The
// kernel's struct sigaction begins with the handler on every Linux
// architecture, and the rest (flags, restorer, mask) is zero.
func ignoreSignals() {
	var sa struct {
		handler  uintptr
		flags    uint64
		restorer uintptr
		mask     uint64
	}
	sa.handler = 1 // SIG_IGN
	for _, s := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(s), uintptr(unsafe.Pointer(&sa)), 0, 8, 0, 0)
	}
}
