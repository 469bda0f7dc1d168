// Package agentproc runs asked agents as child mm processes over
// hashicorp/go-plugin (gRPC). The host side (Supervisor) starts a child on
// first use, reuses it for later asks of the session, cancels an ask when
// its context ends and stops every child when the session ends — or when
// the parent dies, however it dies: each child watches a lifeline pipe (and
// on Linux gets a parent-death signal), and takes everything it started
// with it; if a child dies first, the parent kills what it left (package
// procs has the mechanisms, per platform). The
// child side (Serve) is a hidden mm subcommand serving one Ask RPC per ask.
//
// Relay semantics (hooks, notices) are not here: see package relay.
package agentproc

import (
	"github.com/hashicorp/go-plugin"
)

// Handshake keeps an mm child from being started by anything but mm, and a
// stray run of the hidden subcommand from waiting for a host forever.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "MM_AGENT_PLUGIN",
	MagicCookieValue: "7c1b0f6e-mm-asked-agent",
}

// ServeCommand is the hidden mm subcommand a child runs.
const ServeCommand = "__agent"

const maxMsg = 64 << 20
