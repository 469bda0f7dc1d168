package remote

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/mm-agent/mm/internal/bytesize"
)

// Bounds of the asking side (the contract, "Remote agents that
// misbehave"): whatever a remote sends, an asking mm holds at most about
// this much of it.
const (
	// maxCard bounds an agent card.
	maxCard = 1 << 20
	// maxAnswer bounds a remote's answer text, and any other response.
	maxAnswer = 64 << 20
	// maxEvent bounds one event of a stream. The SDK's own reader stops at
	// 64 KiB, which an mm peer of an older version exceeds with a tool
	// input or an answer piece of characters JSON escapes (< is \u003c);
	// mm serves pieces far below that (wireBudget), and reads far above.
	maxEvent = 16 << 20
)

// tooLargeError is something a remote sent that is larger than mm holds.
type tooLargeError struct {
	what  string // "the agent card", "the answer", "an event"
	limit int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s", e.what, bytesize.Name(e.limit))
}

// streamTransport is the SDK's JSON-RPC transport with mm's own reading of
// streams (message/stream, tasks/resubscribe): the SDK's reader fails on
// any SSE line over 64 KiB, and offers no way to raise it. Unary calls are
// the SDK's.
type streamTransport struct {
	a2aclient.Transport
	url string
	hc  *http.Client
}

func newStreamTransport(url string, hc *http.Client) *streamTransport {
	return &streamTransport{Transport: a2aclient.NewJSONRPCTransport(url, hc), url: url, hc: hc}
}

func (t *streamTransport) SendStreamingMessage(ctx context.Context, p *a2a.MessageSendParams) iter.Seq2[a2a.Event, error] {
	return t.stream(ctx, "message/stream", p)
}

func (t *streamTransport) ResubscribeToTask(ctx context.Context, id *a2a.TaskIDParams) iter.Seq2[a2a.Event, error] {
	return t.stream(ctx, "tasks/resubscribe", id)
}

// stream posts one streaming JSON-RPC call and yields its events, read as
// the SSE specification says (data lines joined, an event ends at a blank
// line), each at most maxEvent.
func (t *streamTransport) stream(ctx context.Context, method string, params any) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params, "id": rand.Text()})
		if err != nil {
			yield(nil, fmt.Errorf("encode the request: %w", err))
			return
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
		if err != nil {
			yield(nil, fmt.Errorf("make the request: %w", err))
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		if meta, ok := a2aclient.CallMetaFrom(ctx); ok {
			for k, vs := range meta {
				for _, v := range vs {
					req.Header.Add(k, v)
				}
			}
		}
		resp, err := t.hc.Do(req)
		if err != nil {
			yield(nil, err)
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			yield(nil, &statusError{code: resp.StatusCode, status: resp.Status})
			return
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 64<<10), maxEvent)
		var data []byte
		dispatch := func() bool {
			if len(data) == 0 {
				return true
			}
			ev, err := decodeStreamData(data)
			data = data[:0]
			if err != nil {
				yield(nil, err)
				return false
			}
			return yield(ev, nil)
		}
		for sc.Scan() {
			line := sc.Bytes()
			if len(line) == 0 {
				if !dispatch() {
					return
				}
				continue
			}
			field, ok := bytes.CutPrefix(line, []byte("data:"))
			if !ok {
				continue // comments (keep-alives), id:, event:, retry:
			}
			field = bytes.TrimPrefix(field, []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			if len(data)+len(field) > maxEvent {
				yield(nil, &tooLargeError{what: "an event", limit: maxEvent})
				return
			}
			data = append(data, field...)
		}
		if err := sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				err = &tooLargeError{what: "an event", limit: maxEvent}
			}
			yield(nil, err)
			return
		}
		dispatch() // a last event the peer did not end with a blank line
	}
}

// decodeStreamData reads one event's data: a JSON-RPC response whose
// result is an A2A event.
func decodeStreamData(data []byte) (a2a.Event, error) {
	if ev, ok := decodeTextArtifact(data); ok {
		return ev, nil
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("an event that is not JSON-RPC: %w", err)
	}
	if r.Error != nil {
		return nil, r.Error
	}
	ev, err := a2a.UnmarshalEventJSON(r.Result)
	if err != nil {
		return nil, fmt.Errorf("an event that is not A2A: %w", err)
	}
	return ev, nil
}

// decodeTextArtifact reads an artifact update of text parts in one pass;
// ok is false for anything else, left to the SDK's decoding. Answers come
// so, and the SDK reads each byte a dozen times (the kind of the event,
// then of each part, each after validating the JSON again): for an answer
// of megabytes that is most of the asking side's work.
func decodeTextArtifact(data []byte) (a2a.Event, bool) {
	var r struct {
		Result struct {
			Kind      string         `json:"kind"`
			TaskID    a2a.TaskID     `json:"taskId"`
			ContextID string         `json:"contextId"`
			Append    bool           `json:"append"`
			LastChunk bool           `json:"lastChunk"`
			Metadata  map[string]any `json:"metadata"`
			Artifact  *struct {
				ID          a2a.ArtifactID `json:"artifactId"`
				Name        string         `json:"name"`
				Description string         `json:"description"`
				Extensions  []string       `json:"extensions"`
				Metadata    map[string]any `json:"metadata"`
				Parts       []struct {
					Kind     string         `json:"kind"`
					Text     *string        `json:"text"`
					Metadata map[string]any `json:"metadata"`
				} `json:"parts"`
			} `json:"artifact"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &r) != nil || r.Error != nil || r.Result.Kind != "artifact-update" || r.Result.Artifact == nil {
		return nil, false
	}
	res, art := r.Result, r.Result.Artifact
	parts := make(a2a.ContentParts, len(art.Parts))
	for i, p := range art.Parts {
		if p.Kind != "text" || p.Text == nil {
			return nil, false
		}
		parts[i] = a2a.TextPart{Text: *p.Text, Metadata: p.Metadata}
	}
	return &a2a.TaskArtifactUpdateEvent{
		TaskID: res.TaskID, ContextID: res.ContextID, Append: res.Append, LastChunk: res.LastChunk, Metadata: res.Metadata,
		Artifact: &a2a.Artifact{
			ID: art.ID, Name: art.Name, Description: art.Description, Extensions: art.Extensions,
			Metadata: art.Metadata, Parts: parts,
		},
	}, true
}
