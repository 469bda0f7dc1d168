package acp

import (
	"context"
	"errors"
	"net/url"
	"strings"

	"github.com/coder/acp-go-sdk"

	"github.com/mm-agent/mm/internal/frontend"
	"github.com/mm-agent/mm/orchestrator"
)

// Prompt runs one turn of the session — or, for a prompt that starts with
// an /ask… command, the relay (relay) — and says how it ended: end_turn
// (answered, or stopped by a preGeneration hook, whose response was shown
// as the answer), cancelled (session/cancel: the turn's context is
// cancelled; postGeneration still runs, with "error":"cancelled"),
// max_turn_requests (maxSteps), or an error the editor shows (a model
// that cannot be reached).
func (srv *server) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	s, err := srv.session(p.SessionId)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	if !srv.startTurn() {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	defer srv.turns.Done()
	text := promptText(p.Prompt)
	if frontend.Parse(text) == frontend.Ask {
		return s.relay(ctx, text)
	}
	res := s.generate(ctx, text)
	if res.Empty {
		srv.log.line("mm: " + orchestrator.EmptyReply)
	}
	if res.SaveErr != nil {
		srv.log.line("mm: session file: " + res.SaveErr.Error())
	}
	switch {
	case res.Err == nil:
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
	case res.Cancelled():
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case errors.Is(res.Err, orchestrator.ErrMaxSteps):
		srv.log.line("mm: " + res.Err.Error())
		return acp.PromptResponse{StopReason: acp.StopReasonMaxTurnRequests}, nil
	}
	srv.log.line("mm: " + res.Err.Error())
	return acp.PromptResponse{}, errFailed(res.Err)
}

// beginTurn starts a turn of the session (a prompt, or an /ask… line): one
// at a time (turnMu), with a context session/cancel can cancel and the
// view its events go to. end undoes it all, in the reverse order.
func (s *session) beginTurn(ctx context.Context) (context.Context, *view, func()) {
	s.turnMu.Lock()
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.turns++
	v := newView(s, s.turns)
	s.cur, s.cancel = v, cancel
	s.mu.Unlock()
	return ctx, v, func() {
		s.mu.Lock()
		s.cur, s.cancel = nil, nil
		s.mu.Unlock()
		cancel()
		s.turnMu.Unlock()
	}
}

// generate runs the turn, one at a time in the session, with a context
// session/cancel can cancel.
func (s *session) generate(ctx context.Context, prompt string) orchestrator.TurnResult {
	ctx, v, endTurn := s.beginTurn(ctx)
	defer endTurn()
	return s.mm.Generate(ctx, prompt, v.show, &consent{s: s})
}

// promptText is the question the prompt's blocks make: the text as typed,
// and each resource link (a file the user mentioned) as an "@path" line,
// which attaches the file as in the other front ends. Images and audio are
// not offered in initialize, so an editor does not send them.
func promptText(blocks []acp.ContentBlock) string {
	var b strings.Builder
	line := func(s string) {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
		b.WriteString(s + "\n")
	}
	for _, c := range blocks {
		switch {
		case c.Text != nil:
			b.WriteString(c.Text.Text)
		case c.ResourceLink != nil:
			line(mention(c.ResourceLink.Uri))
		case c.Resource != nil && c.Resource.Resource.TextResourceContents != nil:
			line(mention(c.Resource.Resource.TextResourceContents.Uri))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// mention is a mentioned resource as a line of the question: "@<path>"
// for a file, the URI itself otherwise.
func mention(uri string) string {
	u, err := url.Parse(uri)
	if err == nil && u.Scheme == "file" && u.Path != "" && !strings.ContainsAny(u.Path, " \t") {
		return "@" + u.Path
	}
	return uri
}
