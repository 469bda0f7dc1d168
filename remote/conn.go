package remote

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// What mm -a2a lets a client hold (the contract, "Remote agents that
// misbehave"): a request's headers and body are read within ReadTimeout; a
// body is at most maxRequest and the bodies read at once at most
// maxBodies; a keep-alive connection waits KeepAlive for its next
// request, one that never authenticated GuestKeepAlive.

// conn is what the server knows of one connection.
type conn struct {
	nc         net.Conn
	authorised atomic.Bool // a request on it passed the token check

	mu    sync.Mutex
	state http.ConnState
	timer *time.Timer
}

// connKey holds a request's *conn in its context.
type connKey struct{}

func (s *Server) connContext(ctx context.Context, nc net.Conn) context.Context {
	c := &conn{nc: nc}
	s.conns.Store(nc, c)
	return context.WithValue(ctx, connKey{}, c)
}

// connState closes a connection that never authenticated once it has
// waited GuestKeepAlive for a request (http.Server's IdleTimeout is one
// for all).
func (s *Server) connState(nc net.Conn, st http.ConnState) {
	v, ok := s.conns.Load(nc)
	if !ok {
		return
	}
	c := v.(*conn)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state = st
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	switch st {
	case http.StateNew, http.StateIdle:
		if c.authorised.Load() {
			return
		}
		c.timer = time.AfterFunc(dur(s.GuestKeepAlive, DefaultGuestKeepAlive), func() {
			c.mu.Lock()
			idle := c.state == st && c.timer != nil
			c.mu.Unlock()
			if idle {
				nc.Close()
			}
		})
	case http.StateClosed, http.StateHijacked:
		s.conns.Delete(nc)
	}
}

// deadline bounds the reading of every request: what the handler has not
// read within ReadTimeout (a trickled body) closes the connection.
// The JSON-RPC handler lifts it once it has the body.
func (s *Server) deadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.NewResponseController(w).SetReadDeadline(time.Now().Add(dur(s.ReadTimeout, DefaultReadTimeout)))
		next.ServeHTTP(w, r)
	})
}

// authorised says r carries the token: "Authorization: Bearer <token>",
// the scheme's name in any case (RFC 7235).
func (s *Server) authorised(r *http.Request) bool {
	scheme, got, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	return ok && strings.EqualFold(scheme, "Bearer") &&
		subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(s.Token)) == 1
}

var errBody = errors.New("the request's body could not be read")

// readBody reads a JSON-RPC request's body, answering 413 when it is
// larger than maxRequest and 408 when it did not come within ReadTimeout.
// A body larger than smallBody is read once the bodies being served leave
// room for it (maxBodies), into a buffer of its announced size; release
// gives the room back.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (body []byte, release func(), err error) {
	if r.ContentLength > maxRequest {
		tooLarge(w)
		return nil, nil, errBody
	}
	release = func() {}
	if n := r.ContentLength; n < 0 || n > smallBody {
		if n < 0 {
			n = maxRequest // chunked: its size is known at its end
		}
		if err := s.bodies.acquire(r.Context(), n); err != nil {
			return nil, nil, err
		}
		release = sync.OnceFunc(func() { s.bodies.release(n) })
		// The wait for room is the server's, not the client's: its
		// ReadTimeout counts from now.
		http.NewResponseController(w).SetReadDeadline(time.Now().Add(dur(s.ReadTimeout, DefaultReadTimeout)))
	}
	var buf bytes.Buffer
	if r.ContentLength >= 0 {
		buf.Grow(int(r.ContentLength) + bytes.MinRead)
	}
	_, err = buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxRequest))
	var mb *http.MaxBytesError
	var ne net.Error
	switch {
	case err == nil:
		return buf.Bytes(), release, nil
	case errors.As(err, &mb):
		tooLarge(w)
	case errors.As(err, &ne) && ne.Timeout():
		w.Header().Set("Connection", "close")
		http.Error(w, "the request's body did not come in time", http.StatusRequestTimeout)
	default:
		http.Error(w, "the request's body could not be read", http.StatusBadRequest)
	}
	release()
	return nil, nil, errBody
}

func tooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	http.Error(w, "request too large: this agent reads at most 8 MiB", http.StatusRequestEntityTooLarge)
}

// budget is a count of bytes that callers take and give back, waiting
// while there is not enough left.
type budget struct {
	mu   sync.Mutex
	left int64
	wake chan struct{} // closed when bytes are given back
}

func newBudget(n int64) *budget { return &budget{left: n, wake: make(chan struct{})} }

func (b *budget) acquire(ctx context.Context, n int64) error {
	for {
		b.mu.Lock()
		if b.left >= n {
			b.left -= n
			b.mu.Unlock()
			return nil
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (b *budget) release(n int64) {
	b.mu.Lock()
	b.left += n
	close(b.wake)
	b.wake = make(chan struct{})
	b.mu.Unlock()
}
