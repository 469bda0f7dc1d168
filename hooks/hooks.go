// Package hooks runs the user's hook commands and turns their replies into
// typed decisions. A hook is an external command (sh -c) so it can be written
// in any language; it reads one JSON object on stdin and may answer one JSON
// object on stdout. This package knows the per-event rules of the hooks
// reference (which reply fields an event reads, which actions it allows, what
// a failure means under each onError) and nothing of the model, the front
// ends or how asked agents are started: the orchestrator and the relay apply
// the decisions it returns.
package hooks

import "github.com/mm-agent/mm/hooks/hookdecl"

// The declarations of the hooks block live in package hookdecl, which
// config imports without importing this runtime; these are their names as
// the rest of mm spells them.
type (
	// Event names one moment where hooks run.
	Event = hookdecl.Event
	// OnError says what a failing run does to the event's chain.
	OnError = hookdecl.OnError
	// Hook is one validated entry of the hooks block.
	Hook = hookdecl.Hook
	// Header is one header of a URL hook's requests.
	Header = hookdecl.Header
	// Set is an agent's hooks, by event, each list in run order.
	Set = hookdecl.Set
)

// The six events, in the order the reference lists them.
const (
	PreGeneration  = hookdecl.PreGeneration
	PreToolCall    = hookdecl.PreToolCall
	PostToolCall   = hookdecl.PostToolCall
	PostGeneration = hookdecl.PostGeneration
	PreAsk         = hookdecl.PreAsk
	PostAsk        = hookdecl.PostAsk
)

// Events lists every event in the reference's order.
var Events = hookdecl.Events

// Known reports whether name is one of the six events.
func Known(name string) bool { return hookdecl.Known(name) }

// The three onError values; Warn is the default.
const (
	Fail   = hookdecl.Fail
	Warn   = hookdecl.Warn
	Ignore = hookdecl.Ignore
)

// DefaultTimeout bounds a run whose hook sets no timeout.
const DefaultTimeout = hookdecl.DefaultTimeout
