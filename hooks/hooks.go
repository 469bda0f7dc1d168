// Package hooks runs the user's hook commands and turns their replies into
// typed decisions. A hook is an external command (sh -c) so it can be written
// in any language; it reads one JSON object on stdin and may answer one JSON
// object on stdout. This package knows the per-event rules of the hooks
// reference (which reply fields an event reads, which actions it allows, what
// a failure means under each onError) and nothing of the model, the front
// ends or how asked agents are started: the orchestrator and the relay apply
// the decisions it returns.
package hooks

import (
	"regexp"
	"time"
)

// Event names one moment where hooks run.
type Event string

// The six events, in the order the reference lists them (the banner and
// validation use this order).
const (
	PreGeneration  Event = "preGeneration"
	PreToolCall    Event = "preToolCall"
	PostToolCall   Event = "postToolCall"
	PostGeneration Event = "postGeneration"
	PreAsk         Event = "preAsk"
	PostAsk        Event = "postAsk"
)

// Events lists every event in the reference's order.
var Events = []Event{PreGeneration, PreToolCall, PostToolCall, PostGeneration, PreAsk, PostAsk}

// Known reports whether name is one of the six events.
func Known(name string) bool {
	for _, e := range Events {
		if string(e) == name {
			return true
		}
	}
	return false
}

// TakesMatcher reports whether hooks of the event may have a matcher (the
// events about a tool or an asked agent).
func (e Event) TakesMatcher() bool {
	return e == PreToolCall || e == PostToolCall || e == PreAsk || e == PostAsk
}

// survivesCancel reports whether the event's hooks keep running when the turn
// is cancelled: an audit that loses interrupted turns would be upside down.
func (e Event) survivesCancel() bool { return e == PostGeneration || e == PostAsk }

// OnError says what a failing run does to the event's chain.
type OnError string

// The three onError values; Warn is the default.
const (
	Fail   OnError = "fail"
	Warn   OnError = "warn"
	Ignore OnError = "ignore"
)

// DefaultTimeout bounds a run whose hook sets no timeout: a hook sits in the
// middle of a turn, and a slow one is felt at once.
const DefaultTimeout = 10 * time.Second

// Hook is one validated entry of the hooks block.
type Hook struct {
	Command   string         // run with sh -c, as written in the config
	Matcher   *regexp.Regexp // nil: every tool or agent
	Timeout   time.Duration  // > 0
	OnError   OnError
	ConfigDir string // absolute directory of the config that declared it (MM_CONFIG_DIR)
}

// Matches reports whether the hook runs for the tool or agent named target.
func (h Hook) Matches(target string) bool {
	return h.Matcher == nil || h.Matcher.MatchString(target)
}

// Set is an agent's hooks, by event, each list in run order.
type Set map[Event][]Hook

// Count is the number of hooks declared for all events.
func (s Set) Count() int {
	n := 0
	for _, hs := range s {
		n += len(hs)
	}
	return n
}
