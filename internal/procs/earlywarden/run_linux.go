package earlywarden

import (
	"syscall"
	"unsafe"
)

func init() {
	if tok, ok := syscall.Getenv(Env); !ok || tok == "" {
		return
	}
	ignoreSignals()
	for pid := range keep(0) {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	Done = true
}

// keep reads the groups mm has running from fd, one line each ("+<pid>"
// when one starts, "-<pid>" when it is released), until the pipe ends:
// mm is gone, however it went. It returns the groups still listed.
func keep(fd int) map[int]bool {
	live := map[int]bool{}
	var buf [4096]byte
	var line []byte
	for {
		n, err := syscall.Read(fd, buf[:])
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 {
			return live
		}
		for _, c := range buf[:n] {
			if c != '\n' {
				if len(line) < 32 {
					line = append(line, c)
				}
				continue
			}
			if pid := atoi(line); len(line) > 1 && pid > 1 {
				switch line[0] {
				case '+':
					live[pid] = true
				case '-':
					delete(live, pid)
				}
			}
			line = line[:0]
		}
	}
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
