package sandbox

import (
	"fmt"
	"os/exec"
)

// findTool finds bubblewrap, the sandbox of Claude Code's and Flatpak's
// Linux sandboxes.
func findTool(m Mode) (string, error) {
	p, err := exec.LookPath("bwrap")
	if err != nil {
		return "", fmt.Errorf("sandbox: %s needs bubblewrap (bwrap), which is not on PATH: install it (Debian, Ubuntu: apt-get install bubblewrap) or set sandbox: off", m)
	}
	return p, nil
}

// args is bwrap's command line up to the command, for a command working
// in dir (absolute, symbolic links resolved).
//
//   - --die-with-parent: nothing outlives mm; with --unshare-pid the
//     command is in a PID namespace of its own, whose processes all die
//     with it, so a process that left mm's process group dies too.
//   - --new-session: the command cannot reach mm's terminal (TIOCSTI).
//   - --cap-drop ALL: as root, bwrap would keep every capability, and
//     CAP_SYS_ADMIN remounts / read-write.
//   - --ro-bind / /, then a fresh /dev and /proc, then the writable
//     directories bound over it; in readonly mode a session directory
//     inside the temp directory is bound read-only again, last.
//   - then the protected paths in a writable directory (mounts): the
//     directories between pinned as mount points, then each path bound
//     read-only over itself, last, since a later bind wins. The -try
//     forms: a path removed since (by a hook, by the user) is skipped,
//     not an error.
//   - --unshare-net (unless sandboxNetwork): a network namespace with only
//     its own loopback, so not even the host's 127.0.0.1 is reachable.
func (s *Sandbox) args(dir string) []string {
	a := []string{s.tool,
		"--die-with-parent", "--new-session",
		"--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL",
	}
	if !s.policy.Network {
		a = append(a, "--unshare-net")
	}
	a = append(a, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		"--bind", s.tmp, s.tmp)
	switch s.policy.Mode {
	case Workspace:
		if dir != "/" { // New refuses it; an editor's session could still ask
			a = append(a, "--bind", dir, dir)
		}
	case ReadOnly:
		if within(s.tmp, dir) {
			a = append(a, "--ro-bind", dir, dir)
		}
	}
	pins, ro := s.mounts(dir)
	for _, p := range pins {
		a = append(a, "--bind-try", p, p)
	}
	for _, p := range ro {
		a = append(a, "--ro-bind-try", p, p)
	}
	return append(a, "--chdir", dir, "--")
}
