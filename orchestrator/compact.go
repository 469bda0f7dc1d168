package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mm-agent/mm/internal/model"
)

// SummaryMarker introduces the summary that replaced older turns.
const SummaryMarker = "[summary of the earlier conversation]"

// SummaryInstructions is the system message of a summary request.
const SummaryInstructions = "You write the summary that will replace the beginning of a conversation between a user and an assistant, so the assistant can go on without it. Keep the user's goals, the decisions made, facts learnt, names of files, commands and agents, and open questions. Be concise; write only the summary."

// SummaryAck follows the summary in the history, so that roles still
// alternate user, assistant (chat templates such as Gemma's refuse two user
// messages in a row).
const SummaryAck = "[the conversation goes on from this summary]"

// Compacted is history with all but its last kept messages replaced by the
// summary (a user message, then SummaryAck).
func Compacted(summary string, history []model.Message, kept int) []model.Message {
	kept = min(max(kept, 0), len(history))
	out := []model.Message{
		{Role: "user", Content: SummaryMarker + "\n" + summary},
		{Role: "assistant", Content: SummaryAck},
	}
	return append(out, history[len(history)-kept:]...)
}

// EstimateTokens is the documented rule mm uses against contextBudget: a
// token per four characters (rounded up) of every message's text and tool
// call arguments, plus four per message.
func EstimateTokens(msgs []model.Message) int {
	n := 0
	for _, m := range msgs {
		chars := len([]rune(m.Content))
		for _, c := range m.ToolCalls {
			chars += len([]rune(c.Function.Name)) + len([]rune(c.Function.Arguments))
		}
		n += (chars+3)/4 + 4
	}
	return n
}

// ErrNothingToCompact: the history holds nothing before its last turn but
// (perhaps) the summary of an earlier compression.
var ErrNothingToCompact = errors.New("nothing to compress: the conversation has a single turn since the last summary")

// Compact replaces every turn but the last by a summary the model writes.
// The summary is asked for by a request of its own, not a turn: no hook
// runs on it. It returns how many messages the summary replaced.
func (s *Session) Compact(ctx context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compact(ctx)
}

func (s *Session) compact(ctx context.Context) (int, error) {
	return s.compactFrom(ctx, s.lastUser(), len(s.History))
}

// compactable says whether History[:last] holds more than the summary of
// an earlier compression.
func (s *Session) compactable(last int) bool {
	return last > 0 && (last != 2 || !strings.HasPrefix(s.History[0].Content, SummaryMarker))
}

// lastUser is the index of the history's last user message, -1 when none.
func (s *Session) lastUser() int {
	for i := len(s.History) - 1; i >= 0; i-- {
		if s.History[i].Role == "user" {
			return i
		}
	}
	return -1
}

// compactFrom replaces History[:last] by a summary, keeping History[last:].
// stored is how much of History the Store holds (the rest is a turn
// still running, appended when it ends).
func (s *Session) compactFrom(ctx context.Context, last, stored int) (int, error) {
	if !s.compactable(last) {
		return 0, ErrNothingToCompact
	}
	old := s.History[:last]
	a := s.Agent
	reply, err := a.Model.Chat(ctx, model.Request{Model: a.Name, Messages: []model.Message{
		{Role: "system", Content: SummaryInstructions},
		{Role: "user", Content: Transcript(old)},
	}}, func(string) {})
	if err != nil {
		return 0, fmt.Errorf("compress the conversation: %w", err)
	}
	if reply.Content == "" {
		return 0, errors.New("compress the conversation: the model wrote an empty summary")
	}
	s.History = Compacted(reply.Content, s.History, len(s.History)-last)
	s.counted, s.countedAt = 0, 0 // the server's count was of the history before
	if s.Store != nil {
		if err := s.Store.AppendCompaction(reply.Content, max(stored-last, 0)); err != nil {
			return last, fmt.Errorf("session file: %w", err)
		}
	}
	return last, nil
}
