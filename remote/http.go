package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mm-agent/mm/internal/model"
)

// Timeouts of the asking side: a connection that cannot be made in
// ConnectTimeout fails, and so does an answer with no byte for IdleTimeout.
// An mm peer sends an SSE comment every 15 s of silence while its model
// thinks (the contract, "Remote agents behind a load balancer"), so 90 s
// of nothing at all is a backend gone or frozen (SIGSTOP, a dead host
// behind a proxy that keeps the connection), not a model thinking long;
// a foreign peer that sends no keep-alives gets a longer idleTimeout in
// its mmConfigs entry.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultIdleTimeout    = 90 * time.Second
	// cancelTimeout bounds the tasks/cancel sent after Ctrl-C, and cardTimeout
	// the agent card's fetch.
	cancelTimeout = 5 * time.Second
	cardTimeout   = 30 * time.Second
)

// statusError is an HTTP status >= 400 the peer answered; the SDK only
// formats those, so the transport types them for the user's message.
type statusError struct {
	code   int
	status string
}

func (e *statusError) Error() string { return "HTTP " + e.status }

// idleError is a reply that stopped sending bytes for longer than the idle
// timeout.
type idleError struct{ after time.Duration }

func (e *idleError) Error() string { return fmt.Sprintf("no byte for %s", e.after) }

// newHTTPClient is the asking side's client: a bounded dial, no overall
// timeout (answers stream for as long as the model writes), statuses typed,
// every body watched for silence and bounded, and the token sent to the
// configured origin alone.
func newHTTPClient(connect, idle time.Duration, origin, token string) *http.Client {
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: idle,
	}
	return &http.Client{Transport: &watchedTransport{base: tr, idle: idle, origin: origin, token: token}}
}

type watchedTransport struct {
	base http.RoundTripper
	idle time.Duration
	// origin is the configured URL's scheme://host:port: the one place
	// token goes (a card, a redirect or a mistake naming another host
	// gets no token).
	origin, token string
}

// limitKey marks a request whose response body is bounded otherwise than
// by maxAnswer (the card's: maxCard), with the name the error gives it.
type limitKey struct{}

type bodyLimit struct {
	what string
	n    int64
}

// withBodyLimit bounds the response bodies of requests made with ctx.
func withBodyLimit(ctx context.Context, what string, n int64) context.Context {
	return context.WithValue(ctx, limitKey{}, bodyLimit{what, n})
}

func (t *watchedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	token := t.token != "" && originOf(req.URL) == t.origin
	id := relayOf(req.Context())
	if token || id != "" {
		req = req.Clone(req.Context())
		if token {
			req.Header.Set("Authorization", "Bearer "+t.token)
		}
		if id != "" {
			req.Header.Set(RelayHeader, id)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil {
		resp, err = t.followSlash(req, resp)
	}
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		return nil, &statusError{code: resp.StatusCode, status: resp.Status}
	}
	stream := req.Header.Get("Accept") == "text/event-stream"
	if stream && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		// An error answered to a streaming call as a plain JSON-RPC
		// response, not as an event (the JavaScript SDK does so for errors
		// it finds before the stream starts): the SDK would read no event
		// and take it for a dropped stream.
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		var r struct {
			Error *rpcError `json:"error"`
		}
		if json.Unmarshal(data, &r) == nil && r.Error != nil {
			return nil, r.Error
		}
		resp.Body = io.NopCloser(bytes.NewReader(data))
		stream = false
	}
	var body io.ReadCloser = newWatchedBody(resp.Body, t.idle)
	switch l, ok := req.Context().Value(limitKey{}).(bodyLimit); {
	case ok:
		body = &limitedBody{ReadCloser: body, what: l.what, limit: l.n}
	case !stream:
		// A stream is bounded event by event and by its answer
		// (streamTransport, askTask); anything else as a whole.
		body = &limitedBody{ReadCloser: body, what: "a response", limit: maxAnswer}
	}
	resp.Body = body
	return resp, nil
}

// followSlash sends a POST again where the server redirected it when the
// redirect only adds or drops a trailing "/" (nginx's location /team/rev/
// answers /team/rev with a 301): a card's url written with or without it
// is the same URL. The client would follow a 301 or 302 as a GET, which
// no JSON-RPC endpoint answers.
func (t *watchedTransport) followSlash(req *http.Request, resp *http.Response) (*http.Response, error) {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	default:
		return resp, nil
	}
	loc, err := resp.Location()
	if req.Method != http.MethodPost || req.GetBody == nil || err != nil || !slashTwin(req.URL, loc) {
		return resp, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return resp, nil
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	again := req.Clone(req.Context())
	again.URL, again.Body = loc, body
	return t.base.RoundTrip(again) // the same origin: the same headers
}

// originOf is u's scheme://host:port, the port written even when it is
// the scheme's default, so that two spellings of one origin compare equal.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// limitedBody fails a read that would take the body past its limit: what
// a remote sends is held whole (a card, a JSON-RPC response), so a body
// with no end must not be read to its end.
type limitedBody struct {
	io.ReadCloser
	what        string
	limit, read int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if room := b.limit - b.read + 1; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	if b.read > b.limit {
		return 0, &tooLargeError{what: b.what, limit: b.limit}
	}
	return n, err
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

func (e *rpcError) Error() string {
	msg := e.Message
	if extra, ok := e.Data["error"].(string); ok && extra != "" && extra != msg {
		msg = extra + ": " + msg
	}
	if msg == "" {
		msg = fmt.Sprintf("JSON-RPC error %d", e.Code)
	}
	return msg
}

// watchedBody closes the body when no Read returned data for idle, so a
// silent peer ends the read with an idleError instead of hanging forever.
type watchedBody struct {
	rc    io.ReadCloser
	idle  time.Duration
	timer *time.Timer

	mu      sync.Mutex
	expired bool
}

func newWatchedBody(rc io.ReadCloser, idle time.Duration) *watchedBody {
	b := &watchedBody{rc: rc, idle: idle}
	b.timer = time.AfterFunc(idle, func() {
		b.mu.Lock()
		b.expired = true
		b.mu.Unlock()
		rc.Close()
	})
	return b
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.timer.Reset(b.idle)
	}
	if err != nil && err != io.EOF {
		b.mu.Lock()
		expired := b.expired
		b.mu.Unlock()
		if expired {
			return n, &idleError{after: b.idle}
		}
	}
	return n, err
}

func (b *watchedBody) Close() error {
	b.timer.Stop()
	return b.rc.Close()
}

// shortCause names in a few words why the connection to the agent failed.
func shortCause(err error) string { return model.NetCause(err, "the agent") }

// isNetError reports whether err is a failure to connect or a broken
// connection (as opposed to an answer the peer gave).
func isNetError(err error) bool {
	var ne net.Error
	var op *net.OpError
	return errors.As(err, &op) || (errors.As(err, &ne) && ne.Timeout()) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:runeCut(s, n)] + "…"
	}
	return s
}

// withoutCancelTimeout is a context that outlives ctx's cancellation but
// not d: for what must still be said after Ctrl-C (tasks/cancel).
func withoutCancelTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}
