package sandbox

import (
	"fmt"
	"os/exec"
	"sort"
	"strings"
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
//     inside the temp directory is bound read-only again.
//   - the protected paths in a writable directory (mounts): the
//     directories between pinned as mount points, each path bound
//     read-only over itself. All the binds go outer paths first, since a
//     later bind wins below it: a protected directory that holds the
//     session directory (a config's directory above it) is read-only and
//     the session directory in it writable again. The -try forms: a path
//     removed since (by a hook, by the user) is skipped, not an error.
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
	a = append(a, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
	binds := [][2]string{{"--bind", s.tmp}}
	switch s.policy.Mode {
	case Workspace:
		if dir != "/" { // New refuses it; an editor's session could still ask
			binds = append(binds, [2]string{"--bind", dir})
		}
	case ReadOnly:
		if within(s.tmp, dir) {
			binds = append(binds, [2]string{"--ro-bind", dir})
		}
	}
	pins, ro := s.mounts(dir)
	for _, p := range pins {
		binds = append(binds, [2]string{"--bind-try", p})
	}
	for _, p := range ro {
		binds = append(binds, [2]string{"--ro-bind-try", p})
	}
	// Outer paths first: a bind hides what was bound below it before, and
	// a protected directory may hold the session directory.
	sort.SliceStable(binds, func(i, j int) bool {
		return strings.Count(binds[i][1], "/") < strings.Count(binds[j][1], "/")
	})
	for _, b := range binds {
		a = append(a, b[0], b[1], b[1])
	}
	return append(a, "--chdir", dir, "--")
}
