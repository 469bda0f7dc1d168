package remote

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
)

// What A2A 1.0 peers expect of a server, which the 0.3 Go SDK leaves to
// the agent (the contract, "Toward A2A 1.0 peers"): a stream that begins
// with the Task (start and resume write it first; tasks/resubscribe is
// below), the last artifact update marked lastChunk (pump), a message mm
// cannot read refused with -32005 instead of a task, and the card at the
// older path too (legacyCardPath).

// ErrNoText is why a message with no text part is refused.
var ErrNoText = fmt.Errorf("this agent reads text: send the question as a text part (the message has only data or file parts): %w", a2a.ErrUnsupportedContentType)

// hasText says parts hold a text part (empty or not: an empty question is
// a task rejected for that, as mm -p "" is).
func hasText(parts a2a.ContentParts) bool {
	for _, p := range parts {
		switch p.(type) {
		case a2a.TextPart, *a2a.TextPart:
			return true
		}
	}
	return false
}

// readable is nil for a message mm can read, else the JSON-RPC error the
// call answers (-32005): no task is made of it.
func readable(p *a2a.MessageSendParams) error {
	if p != nil && p.Message != nil && !hasText(p.Message.Parts) {
		return ErrNoText
	}
	return nil
}

// firstTask is the Task a new task's stream begins with: working, its
// history the question (clipped when large: the SDK copies a task whole at
// each of its events and answers message/send with it, so a question of
// megabytes in its history would be copied again and again; the turn has
// it whole).
func firstTask(info taskRef, m *a2a.Message, prompt string) *a2a.Task {
	q := m
	if len(prompt) > smallBody {
		short := *m
		short.Parts = a2a.ContentParts{a2a.TextPart{Text: wireClip(prompt, wirePiece)}}
		q = &short
	}
	now := time.Now()
	return &a2a.Task{
		ID: info.TaskID, ContextID: info.ContextID,
		Status:  a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &now},
		History: []*a2a.Message{q},
	}
}

// resumedTask is the Task the stream of an answer to a question begins
// with: the stored task, working again, the question moved to its history
// as a status update would move it.
func resumedTask(stored *a2a.Task) *a2a.Task {
	t := copyTask(stored)
	if t.Status.Message != nil {
		t.History = append(t.History, t.Status.Message)
	}
	now := time.Now()
	t.Status = a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &now}
	return t
}

// subscribedKey holds, in a tasks/resubscribe's context, the function the
// queue manager calls once the request's subscription exists.
type subscribedKey struct{}

// queues is the SDK's in-memory queue manager, telling a resubscription
// when its queue is made: the Task it begins with is read from the store
// after that, so no event falls between the two.
type queues struct{ eventqueue.Manager }

func (q queues) Get(ctx context.Context, id a2a.TaskID) (eventqueue.Queue, bool) {
	queue, ok := q.Manager.Get(ctx, id)
	if f, _ := ctx.Value(subscribedKey{}).(func()); f != nil {
		f()
	}
	return queue, ok
}

// resubscribe is tasks/resubscribe beginning with the Task, as it is now,
// then the task's events as they come. A task with no turn running (it
// waits for a consent answer, or it ended) is the Task alone.
func resubscribe(ctx context.Context, h a2asrv.RequestHandler, p *a2a.TaskIDParams) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if p == nil {
			yield(nil, a2a.ErrInvalidParams)
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		type result struct {
			ev  a2a.Event
			err error
		}
		subscribed := make(chan struct{})
		events := make(chan result)
		sctx := context.WithValue(ctx, subscribedKey{}, sync.OnceFunc(func() { close(subscribed) }))
		go func() {
			defer close(events)
			for ev, err := range h.OnResubscribeToTask(sctx, p) {
				select {
				case events <- result{ev, err}:
				case <-ctx.Done():
					return
				}
				if err != nil {
					return
				}
			}
		}()
		var early *result // what came before a subscription: the SDK found no turn
		var first *result // the first event of a subscription, read with it
		select {
		case <-subscribed:
		case r, ok := <-events:
			if ok {
				early = &r
			}
			// The SDK subscribes, then reads its first event: both may be
			// ready at once, and select picks either.
			select {
			case <-subscribed:
				first, early = early, nil
			default:
			}
		case <-ctx.Done():
			return
		}
		task, err := h.OnGetTask(ctx, &a2a.TaskQueryParams{ID: p.ID})
		if err != nil {
			if early != nil && early.err != nil {
				err = early.err
			}
			if errors.Is(err, a2a.ErrTaskNotFound) || task == nil {
				err = a2a.ErrTaskNotFound
			}
			yield(nil, err)
			return
		}
		if !yield(task, nil) || early != nil {
			return
		}
		// The SDK saves an event to the store, then sends it to its
		// subscribers: the Task read may already hold the first updates
		// sent after it, which are left out (their SeqKey says which), or
		// a client that appends them would have their text twice.
		seen := answerSeqs(task)
		send := func(r result) bool {
			if ev, ok := r.ev.(*a2a.TaskArtifactUpdateEvent); ok && ev.Artifact != nil {
				if n, ok := seqOf(ev.Artifact.Metadata); ok && n <= seen[ev.Artifact.ID] {
					return true
				}
			}
			return yield(r.ev, r.err) && r.err == nil
		}
		if first != nil && !send(*first) {
			return
		}
		for r := range events {
			if !send(r) {
				return
			}
		}
	}
}

// SeqKey, in the metadata of the answer's artifact, numbers its updates
// (1, 2, …); the Task holds the number of the last one it has.
const SeqKey = "mm/seq"

// answerSeqs is, for each artifact of task, the number of the last update
// it holds.
func answerSeqs(task *a2a.Task) map[a2a.ArtifactID]int {
	seen := map[a2a.ArtifactID]int{}
	for _, a := range task.Artifacts {
		if n, ok := seqOf(a.Metadata); ok {
			seen[a.ID] = n
		}
	}
	return seen
}

// seqOf reads SeqKey from metadata: an int as mm wrote it, or a float64 once
// the store or the wire made it JSON.
func seqOf(meta map[string]any) (int, bool) {
	switch n := meta[SeqKey].(type) {
	case int:
		return n, true
	case float64:
		return int(n), true
	}
	return 0, false
}

// peers is the request handler as A2A 1.0 peers expect it: a message with
// no text part is refused before any task is made, and tasks/resubscribe
// begins with the Task.
type peers struct{ a2asrv.RequestHandler }

func (h peers) OnSendMessage(ctx context.Context, p *a2a.MessageSendParams) (a2a.SendMessageResult, error) {
	if err := readable(p); err != nil {
		return nil, err
	}
	return h.RequestHandler.OnSendMessage(ctx, p)
}

func (h peers) OnSendMessageStream(ctx context.Context, p *a2a.MessageSendParams) iter.Seq2[a2a.Event, error] {
	if err := readable(p); err != nil {
		return func(yield func(a2a.Event, error) bool) { yield(nil, err) }
	}
	return h.RequestHandler.OnSendMessageStream(ctx, p)
}

func (h peers) OnResubscribeToTask(ctx context.Context, p *a2a.TaskIDParams) iter.Seq2[a2a.Event, error] {
	return resubscribe(ctx, h.RequestHandler, p)
}
