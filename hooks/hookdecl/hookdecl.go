// Package hookdecl is the hooks block of a config as it is declared: the
// six events, and each hook's command, matcher, timeout and onError. It
// is a leaf — it imports no package of mm — so that package config can
// parse and validate hooks without importing the runtime that runs them
// (package hooks: processes, timeouts, decisions), and hooks can run what
// config parsed without importing config. A declaration is data; running
// it is behaviour, and the two change for different reasons.
//
// Package hooks re-exports these names (hooks.Set, hooks.PreAsk, …): that
// is how the rest of mm spells them.
package hookdecl

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

// SurvivesCancel reports whether the event's hooks keep running when the
// turn is cancelled: an audit that loses interrupted turns would be upside
// down.
func (e Event) SurvivesCancel() bool { return e == PostGeneration || e == PostAsk }

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

// Hook is one validated entry of the hooks block: a command or a URL,
// never both.
type Hook struct {
	Command string // run with sh -c, as written in the config; "" for a URL hook
	// URL, for a URL hook, is where the input is POSTed (http or https);
	// Headers go with each request, their ${VAR}s already expanded from
	// mm's environment when the config was read.
	URL       string
	Headers   []Header
	Matcher   *regexp.Regexp // nil: every tool or agent
	Timeout   time.Duration  // > 0
	OnError   OnError
	ConfigDir string // absolute directory of the config that declared it (MM_CONFIG_DIR)
}

// Header is one header of a URL hook's requests, in the config's order.
type Header struct{ Name, Value string }

// Label is what the display, the audit log and mm hooks list show of the
// hook: its command as written, or its URL.
func (h Hook) Label() string {
	if h.URL != "" {
		return h.URL
	}
	return h.Command
}

// Matches reports whether the hook runs for the tool or agent named target.
func (h Hook) Matches(target string) bool {
	return h.Matcher == nil || h.Matcher.MatchString(target)
}

// Set is an agent's hooks, by event, each list in run order.
type Set map[Event][]Hook

// Commands reports whether any hook is a command (a process to run).
func (s Set) Commands() bool {
	for _, hs := range s {
		for _, h := range hs {
			if h.Command != "" {
				return true
			}
		}
	}
	return false
}

// Count is the number of hooks declared for all events.
func (s Set) Count() int {
	n := 0
	for _, hs := range s {
		n += len(hs)
	}
	return n
}
