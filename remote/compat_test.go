package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

func TestParsePublicURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://agents.example.com/team/reviewer/": "https://agents.example.com/team/reviewer/",
		"https://agents.example.com/team/reviewer":  "https://agents.example.com/team/reviewer/",
		"http://10.0.0.5:8080":                      "http://10.0.0.5:8080/",
		" http://[::1]:7420/x ":                     "http://[::1]:7420/x/",
	} {
		u, err := ParsePublicURL(raw)
		if err != nil || u.String() != want {
			t.Errorf("ParsePublicURL(%q) = %v, %v; want %s", raw, u, err, want)
		}
	}
	for raw, why := range map[string]string{
		"agents.example.com/team/":       "not an http:// or https:// URL",
		"/team/reviewer/":                "not an http:// or https:// URL",
		"ftp://agents.example.com/":      "not an http:// or https:// URL",
		"https:///team/":                 "has no host",
		"https://u:p@agents.example.com": "user name or password",
		"https://agents.example.com/?a":  "query or a fragment",
		"https://agents.example.com/#a":  "query or a fragment",
		"https://agents.example.com:0/":  "bad host or port",
		"http://a b/":                    "is not a URL",
		`http://h"<>/`:                   "bad host or port",
		"http://h'x/":                    "bad host or port",
		"http://host:/":                  "bad host or port",
		"http://host/a/../b/":            "a path a client cannot use",
		"http://host/%2e%2e/":            "a path a client cannot use",
		"http://host/a%2Fb/":             "a path a client cannot use",
	} {
		if _, err := ParsePublicURL(raw); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ParsePublicURL(%q) = %v, want an error saying %q", raw, err, why)
		}
	}
}

func TestCardURL(t *testing.T) {
	public, _ := ParsePublicURL("https://agents.example.com/team/reviewer")
	for _, c := range []struct {
		name    string
		public  *url.URL
		headers map[string]string
		want    string
	}{
		{"the request's host", nil, nil, "http://backend:7420/"},
		{"--public-url wins over the headers", public, map[string]string{"X-Forwarded-Host": "evil.example"}, "https://agents.example.com/team/reviewer/"},
		{"all three", nil, map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "agents.example.com", "X-Forwarded-Prefix": "/team/reviewer"}, "https://agents.example.com/team/reviewer/"},
		{"a port kept", nil, map[string]string{"X-Forwarded-Host": "127.0.0.1:8080", "X-Forwarded-Prefix": "/a/"}, "http://127.0.0.1:8080/a/"},
		{"the first of several proxies", nil, map[string]string{"X-Forwarded-Proto": "HTTPS, http", "X-Forwarded-Host": "front.example, lb.internal"}, "https://front.example/"},
		{"a prefix alone", nil, map[string]string{"X-Forwarded-Prefix": "/team/writer/"}, "http://backend:7420/team/writer/"},
		{"a bad proto ignored", nil, map[string]string{"X-Forwarded-Proto": "javascript"}, "http://backend:7420/"},
		{"a host with a path ignored", nil, map[string]string{"X-Forwarded-Host": "evil.example/x"}, "http://backend:7420/"},
		{"a host with a user ignored", nil, map[string]string{"X-Forwarded-Host": "u@evil.example"}, "http://backend:7420/"},
		{"a host with a quote ignored", nil, map[string]string{"X-Forwarded-Host": `a"b`}, "http://backend:7420/"},
		{"a host with a parenthesis ignored", nil, map[string]string{"X-Forwarded-Host": "a(b)"}, "http://backend:7420/"},
		{"a host with a semicolon ignored", nil, map[string]string{"X-Forwarded-Host": "a;b"}, "http://backend:7420/"},
		{"an empty port ignored", nil, map[string]string{"X-Forwarded-Host": "evil.com:"}, "http://backend:7420/"},
		{"an IPv6 host kept", nil, map[string]string{"X-Forwarded-Host": "[::1]:8443"}, "http://[::1]:8443/"},
		{"a scheme-relative prefix ignored", nil, map[string]string{"X-Forwarded-Prefix": "//evil.example/"}, "http://backend:7420/"},
		{"a relative prefix ignored", nil, map[string]string{"X-Forwarded-Prefix": "team/"}, "http://backend:7420/"},
		{"a dot segment ignored", nil, map[string]string{"X-Forwarded-Prefix": "/team/../x/"}, "http://backend:7420/"},
		{"a query in the prefix ignored", nil, map[string]string{"X-Forwarded-Prefix": "/team/?x=1"}, "http://backend:7420/"},
	} {
		r := httptest.NewRequest("GET", "http://backend:7420/.well-known/agent-card.json", nil)
		for k, v := range c.headers {
			r.Header.Set(k, v)
		}
		if got := cardURL(c.public, r); got != c.want {
			t.Errorf("%s: cardURL = %q, want %q", c.name, got, c.want)
		}
	}
}

// The card is served at the older path too, with the same url.
func TestLegacyCardPath(t *testing.T) {
	base := serve(t, &Server{Agent: echo, Card: Card{Name: "reviewer"}})
	for _, path := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("X-Forwarded-Prefix", "/team/reviewer/")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var card a2a.AgentCard
		err = json.NewDecoder(resp.Body).Decode(&card)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || card.Name != "reviewer" || card.URL != base+"/team/reviewer/" {
			t.Errorf("%s: %s %+v %v", path, resp.Status, card, err)
		}
	}
}

// sseLines posts a JSON-RPC body and returns the lines of the SSE stream
// answered, to its end.
func sseLines(t *testing.T, base, body string) []string {
	t.Helper()
	req, _ := http.NewRequest("POST", base, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

func streamBody(text string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":{"kind":"message","role":"user","messageId":"m1","parts":[{"kind":"text","text":"` + text + `"}]}}}`
}

// A silent stream gets comments, only between events, and the events
// are whole.
func TestStreamKeepAlive(t *testing.T) {
	agent := turnFunc(func(ctx context.Context, task Task) relay.AskResponse {
		task.Show(orchestrator.Event{Kind: orchestrator.Text, Text: "thinking done: "})
		time.Sleep(250 * time.Millisecond)
		task.Show(orchestrator.Event{Kind: orchestrator.Text, Text: "yes"})
		time.Sleep(250 * time.Millisecond)
		return relay.AskResponse{Status: relay.Answered, Answer: "thinking done: yes"}
	})
	base := serve(t, &Server{Agent: agent, StreamKeepAlive: 40 * time.Millisecond})
	lines := sseLines(t, base, streamBody("think"))
	comments, events := 0, 0
	for i, l := range lines {
		switch {
		case l == ": keep-alive":
			comments++
			if i > 0 && lines[i-1] != "" || i+1 < len(lines) && lines[i+1] != "" {
				t.Errorf("a comment inside an event, line %d of %q", i, lines)
			}
		case strings.HasPrefix(l, "data: "):
			events++
			var v struct{ Result json.RawMessage }
			if json.Unmarshal([]byte(l[len("data: "):]), &v) != nil || len(v.Result) == 0 {
				t.Errorf("event %q is not whole", l)
			}
		}
	}
	// 500 ms of silence in two stretches, a comment per 40 ms of it.
	if comments < 6 {
		t.Errorf("%d comments in a stream silent for 500 ms (every 40 ms): %q", comments, lines)
	}
	if events < 4 {
		t.Errorf("%d events: %q", events, lines)
	}

	// A stream that never falls silent for that long gets none.
	base = serve(t, &Server{Agent: echo, StreamKeepAlive: time.Hour})
	for _, l := range sseLines(t, base, streamBody("quick")) {
		if strings.HasPrefix(l, ":") {
			t.Errorf("a comment in a stream never silent: %q", l)
		}
	}
}

// A stream begins with the Task; the answer's last artifact update alone
// is marked lastChunk.
func TestStreamTaskFirstLastChunk(t *testing.T) {
	base := serve(t, &Server{Agent: echo})
	c := sdkClient(t, base, "")
	var evs []a2a.Event
	for ev, err := range c.SendStreamingMessage(context.Background(), userMessage("hi")) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	task, ok := evs[0].(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateWorking || len(task.History) != 1 || textOf(task.History[0].Parts) != "hi" {
		t.Fatalf("first event = %#v, want the Task, working, the question in its history", evs[0])
	}
	var chunks []*a2a.TaskArtifactUpdateEvent
	for _, ev := range evs {
		if a, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
			chunks = append(chunks, a)
		}
	}
	if len(chunks) < 2 || !chunks[len(chunks)-1].LastChunk {
		t.Fatalf("artifact updates %+v: the last must be lastChunk", chunks)
	}
	for _, a := range chunks[:len(chunks)-1] {
		if a.LastChunk {
			t.Errorf("lastChunk on an update before the last: %+v", a)
		}
	}
	if last, ok := evs[len(evs)-1].(*a2a.TaskStatusUpdateEvent); !ok || !last.Final || last.Status.State != a2a.TaskStateCompleted {
		t.Errorf("last event = %#v", evs[len(evs)-1])
	}
	// tasks/get: the answer whole, the empty last piece adding nothing.
	got, err := c.GetTask(context.Background(), &a2a.TaskQueryParams{ID: task.ID})
	if err != nil || artifactText(got) != "answer: hi" {
		t.Errorf("tasks/get = %v %v", got, err)
	}
}

// A message with no text part is -32005, and no turn runs.
func TestNoTextPart(t *testing.T) {
	agent, turns := countedEcho()
	base := serve(t, &Server{Agent: agent})
	c := sdkClient(t, base, "")
	data := &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.DataPart{Data: map[string]any{"q": 1}})}
	if _, err := c.SendMessage(context.Background(), data); !errors.Is(err, a2a.ErrUnsupportedContentType) {
		t.Errorf("message/send of data only: %v, want %v", err, a2a.ErrUnsupportedContentType)
	}
	for _, err := range c.SendStreamingMessage(context.Background(), data) {
		if !errors.Is(err, a2a.ErrUnsupportedContentType) {
			t.Errorf("message/stream of data only: %v, want %v", err, a2a.ErrUnsupportedContentType)
		}
	}
	if n := turns(); n != 0 {
		t.Errorf("%d turns ran", n)
	}
}

// tasks/resubscribe begins with the Task: while the turn streams, then
// the rest of its events; at a consent question, the Task alone.
func TestResubscribe(t *testing.T) {
	release := make(chan struct{})
	agent := turnFunc(func(ctx context.Context, task Task) relay.AskResponse {
		task.Show(orchestrator.Event{Kind: orchestrator.Text, Text: "one "})
		if task.Prompt == "ask" {
			ok, _ := task.Consent.Allow(ctx, orchestrator.Call{ID: "c1", Tool: "bash", Summary: "ls"})
			if !ok {
				return relay.AskResponse{Status: relay.Answered, Answer: "one refused"}
			}
		}
		select {
		case <-release:
		case <-ctx.Done():
			return relay.AskResponse{Status: relay.Cancelled, Error: "cancelled"}
		}
		task.Show(orchestrator.Event{Kind: orchestrator.Text, Text: "two"})
		return relay.AskResponse{Status: relay.Answered, Answer: "one two"}
	})
	base := serve(t, &Server{Agent: agent})
	c := sdkClient(t, base, "")

	// A task kept running: a non-blocking send.
	blocking := false
	p := userMessage("stream")
	p.Config = &a2a.MessageSendConfig{Blocking: &blocking}
	res, err := c.SendMessage(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	id := res.(*a2a.Task).ID
	var kinds []string
	var first *a2a.Task
	var text string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range c.ResubscribeToTask(context.Background(), &a2a.TaskIDParams{ID: id}) {
			if err != nil {
				t.Error(err)
				return
			}
			if first == nil {
				first, _ = ev.(*a2a.Task)
				if first != nil {
					close(release)
				}
			}
			if a, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
				text += textOf(a.Artifact.Parts)
			}
			kinds = append(kinds, typeName(ev))
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("tasks/resubscribe did not end")
	}
	if first == nil || first.ID != id || first.Status.State != a2a.TaskStateWorking {
		t.Fatalf("resubscribe began with %v (%v), want the Task, working", kinds, first)
	}
	// What the Task holds and what came after it: the answer, once.
	if got := artifactText(first) + text; got != "one two" || kinds[len(kinds)-1] != "TaskStatusUpdateEvent" {
		t.Errorf("the Task's text %q, then %v with %q; want the answer once, and the end", artifactText(first), kinds, text)
	}

	// At a consent question no turn streams: the Task alone, asking.
	res, err = c.SendMessage(context.Background(), userMessage("ask"))
	if err != nil {
		t.Fatal(err)
	}
	id = res.(*a2a.Task).ID
	var evs []a2a.Event
	for ev, err := range c.ResubscribeToTask(context.Background(), &a2a.TaskIDParams{ID: id}) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	if len(evs) != 1 {
		t.Fatalf("resubscribe at a question: %d events, want the Task alone", len(evs))
	}
	if task, ok := evs[0].(*a2a.Task); !ok || task.Status.State != a2a.TaskStateInputRequired {
		t.Errorf("resubscribe at a question = %#v", evs[0])
	}

	// An unknown task: task not found.
	for _, err := range c.ResubscribeToTask(context.Background(), &a2a.TaskIDParams{ID: "nope"}) {
		if !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Errorf("resubscribe to an unknown task: %v", err)
		}
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *a2a.Task:
		return "Task"
	case *a2a.TaskArtifactUpdateEvent:
		return "TaskArtifactUpdateEvent"
	case *a2a.TaskStatusUpdateEvent:
		return "TaskStatusUpdateEvent"
	case *a2a.Message:
		return "Message"
	}
	return "?"
}

// With a public URL that has a path, the agent answers there too, as a
// proxy that does not strip the prefix sends it.
func TestPublicPath(t *testing.T) {
	public, _ := ParsePublicURL("https://agents.example.com/team/reviewer")
	base := serve(t, &Server{Agent: echo, PublicURL: public})
	for _, path := range []string{"/.well-known/agent-card.json", "/team/reviewer/.well-known/agent-card.json", "/team/reviewer/.well-known/agent.json"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		var card a2a.AgentCard
		err = json.NewDecoder(resp.Body).Decode(&card)
		resp.Body.Close()
		if err != nil || card.URL != "https://agents.example.com/team/reviewer/" {
			t.Errorf("%s: %s %q %v", path, resp.Status, card.URL, err)
		}
	}
	for _, path := range []string{"/", "/team/reviewer/"} {
		body := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m1","parts":[{"kind":"text","text":"hi"}]}}}`
		resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var out struct{ Result *a2a.Task }
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || out.Result == nil || artifactText(out.Result) != "answer: hi" {
			t.Errorf("POST %s: %s %+v %v", path, resp.Status, out.Result, err)
		}
	}
	if resp, err := http.Get(base + "/team/other/.well-known/agent-card.json"); err != nil || resp.StatusCode != 404 {
		t.Errorf("another path: %v %v, want 404", resp, err)
	}
}
func TestResubscribeNoPieceTwice(t *testing.T) {
	const n = 4000
	var full strings.Builder
	for i := range n {
		fmt.Fprintf(&full, "%d,", i)
	}
	agent := turnFunc(func(ctx context.Context, task Task) relay.AskResponse {
		for i := range n {
			task.Show(orchestrator.Event{Kind: orchestrator.Text, Text: fmt.Sprintf("%d,", i)})
			if i%50 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		return relay.AskResponse{Status: relay.Answered, Answer: full.String()}
	})
	base := serve(t, &Server{Agent: agent})
	c := sdkClient(t, base, "")
	bad := 0
	for round := 0; round < 20 && bad == 0; round++ {
		blocking := false
		p := userMessage("go")
		p.Config = &a2a.MessageSendConfig{Blocking: &blocking}
		res, err := c.SendMessage(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		id := res.(*a2a.Task).ID
		var wg sync.WaitGroup
		var mu sync.Mutex
		for k := range 8 {
			wg.Go(func() {
				time.Sleep(time.Duration(k) * 3 * time.Millisecond)
				texts := map[a2a.ArtifactID]string{}
				var order []a2a.ArtifactID
				for ev, err := range c.ResubscribeToTask(context.Background(), &a2a.TaskIDParams{ID: id}) {
					if err != nil {
						return
					}
					switch e := ev.(type) {
					case *a2a.Task:
						for _, a := range e.Artifacts {
							if _, ok := texts[a.ID]; !ok {
								order = append(order, a.ID)
							}
							texts[a.ID] = textOf(a.Parts)
						}
					case *a2a.TaskArtifactUpdateEvent:
						if _, ok := texts[e.Artifact.ID]; !ok {
							order = append(order, e.Artifact.ID)
						}
						if e.Append {
							texts[e.Artifact.ID] += textOf(e.Artifact.Parts)
						} else {
							texts[e.Artifact.ID] = textOf(e.Artifact.Parts)
						}
					}
				}
				got := ""
				for _, id := range order {
					got += texts[id]
				}
				if got != full.String() && !(len(order) == 0) {
					mu.Lock()
					bad++
					i := 0
					for i < len(got) && i < full.Len() && got[i] == full.String()[i] {
						i++
					}
					t.Errorf("round %d sub %d: rebuilt %d bytes, answer %d; first difference at %d: %q", round, k, len(got), full.Len(), i, got[max(0, i-20):min(len(got), i+40)])
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
}
