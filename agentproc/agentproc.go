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
	"encoding/json"

	"github.com/hashicorp/go-plugin"

	"github.com/mm-agent/mm/agentproc/agentpb"
	"github.com/mm-agent/mm/orchestrator"
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

func toEvent(ev orchestrator.Event) *agentpb.Event {
	return &agentpb.Event{
		Kind: int32(ev.Kind), Text: ev.Text, Tool: ev.Call.Tool, Summary: ev.Call.Summary,
		Reason: ev.Reason, Output: ev.Output, Path: ev.Agent, CallId: ev.Call.ID,
		Input: ev.Call.Input, Status: agentpb.ToolStatus(ev.Status),
	}
}

func fromEvent(e *agentpb.Event) orchestrator.Event {
	ev := orchestrator.Event{
		Kind: orchestrator.EventKind(e.Kind), Text: e.Text, Reason: e.Reason,
		Output: e.Output, Agent: orchestrator.Path(e.Path), Status: orchestrator.Status(e.Status),
		Call: orchestrator.Call{ID: e.CallId, Tool: e.Tool, Summary: e.Summary},
	}
	if len(e.Input) > 0 {
		ev.Call.Input = json.RawMessage(e.Input)
	}
	return ev
}
