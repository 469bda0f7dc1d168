package sandbox

import (
	"fmt"
	"os/exec"
	"strings"
)

// findTool finds sandbox-exec, macOS's Seatbelt front end.
func findTool(m Mode) (string, error) {
	p, err := exec.LookPath("sandbox-exec")
	if err != nil {
		return "", fmt.Errorf("sandbox: %s needs sandbox-exec, which is not on PATH (it ships with macOS in /usr/bin): set sandbox: off", m)
	}
	return p, nil
}

// args is sandbox-exec's command line up to the command: a Seatbelt
// profile that allows everything but writing outside the writable
// directories and, unless sandboxNetwork, the network (loopback included).
// The device files every shell writes to stay writable. sandbox-exec
// execs the command in place, so mm's process group takes it whole; there
// is no PID namespace, and no --die-with-parent: mm's own kill is the
// backstop.
func (s *Sandbox) args(dir string) []string {
	return []string{s.tool, "-p", s.profile(dir)}
}

// profile is the Seatbelt profile for a command working in dir.
func (s *Sandbox) profile(dir string) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n(deny file-write*)\n")
	b.WriteString("(allow file-write* (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/dtracehelper\") (regex #\"^/dev/tty\") (regex #\"^/dev/fd/\")")
	fmt.Fprintf(&b, " (subpath %s)", quote(s.tmp))
	if s.policy.Mode == Workspace && dir != "/" { // New refuses it; an editor's session could still ask
		fmt.Fprintf(&b, " (subpath %s)", quote(dir))
	}
	b.WriteString(")\n")
	if s.policy.Mode == ReadOnly && within(s.tmp, dir) {
		fmt.Fprintf(&b, "(deny file-write* (subpath %s))\n", quote(dir))
	}
	// Protected paths are denied after the allows (a later rule wins); a
	// directory between one and the writable directory is denied as a
	// literal, so it cannot be renamed away, while what it holds stays
	// writable.
	pins, ro := s.mounts(dir)
	for _, p := range pins {
		fmt.Fprintf(&b, "(deny file-write* (literal %s))\n", quote(p))
	}
	for _, p := range ro {
		fmt.Fprintf(&b, "(deny file-write* (literal %s) (subpath %s))\n", quote(p), quote(p))
	}
	if !s.policy.Network {
		b.WriteString("(deny network*)\n")
	}
	return b.String()
}

// quote is s as a Seatbelt (Scheme) string literal.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
