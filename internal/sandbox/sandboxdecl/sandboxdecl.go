// Package sandboxdecl is the sandbox as a config declares it (sandbox:,
// sandboxNetwork:). Like hooks/hookdecl, it is a leaf so that package
// config can parse it without importing the runtime that sets sandboxes
// up (package sandbox: bubblewrap, sandbox-exec, path checks). Package
// sandbox re-exports these names.
package sandboxdecl

// Mode is the config's sandbox: value.
type Mode string

// The modes of the contract's "Sandbox" section.
const (
	// Off runs everything as before: no sandbox.
	Off Mode = "off"
	// Workspace lets bash write only in the session directory and the
	// temp directory, without network; write_file and edit_file write only
	// there.
	Workspace Mode = "workspace"
	// ReadOnly lets bash write only in the temp directory, without
	// network; write_file and edit_file write nothing.
	ReadOnly Mode = "readonly"
)

// Modes lists the modes, in the order a message names them.
var Modes = []Mode{Off, Workspace, ReadOnly}

// ParseMode reads a sandbox: value; ok is false for anything but a mode.
func ParseMode(s string) (m Mode, ok bool) {
	for _, m := range Modes {
		if s == string(m) {
			return m, true
		}
	}
	return "", false
}

// Policy is what a config asks for.
type Policy struct {
	Mode Mode
	// Network gives bash its network back (sandboxNetwork: true).
	Network bool
}
