package remote

import (
	"net/http"
	"strings"
	"sync"
	"time"
)

// DefaultStreamKeepAlive is how long a served stream stays silent before
// it sends an SSE comment (the contract: 15 s): a model thinking for
// minutes sends nothing, and a proxy in front (nginx reads for 60 s by
// default) would take the silence for a dead backend and cut the stream.
const DefaultStreamKeepAlive = 15 * time.Second

// keepAliveLine is the comment sent: SSE readers skip lines that start
// with ':' (mm's own, the SDKs').
const keepAliveLine = ": keep-alive\n\n"

// keepAlive lets the SSE streams next writes send a comment after each
// StreamKeepAlive of silence. Only between events: the SDK writes an
// event in several Writes and then flushes, so a comment goes only where
// the last write was flushed.
func (s *Server) keepAlive(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kw := &keepAliveWriter{ResponseWriter: w, every: dur(s.StreamKeepAlive, DefaultStreamKeepAlive)}
		defer kw.stop()
		next.ServeHTTP(kw, r)
	})
}

// keepAliveWriter is a ResponseWriter that, once it writes an event
// stream, fills its silences with comments.
type keepAliveWriter struct {
	http.ResponseWriter
	every time.Duration

	mu      sync.Mutex
	timer   *time.Timer // set once the stream started
	pending bool        // written since the last flush: inside an event
	done    bool        // the handler returned: nothing more is written
	last    time.Time   // the last flush
}

func (w *keepAliveWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ResponseWriter.WriteHeader(code)
	if code == http.StatusOK && strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") && w.timer == nil && !w.done {
		w.last = time.Now()
		w.timer = time.AfterFunc(w.every, w.tick)
	}
}

func (w *keepAliveWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = true
	return w.ResponseWriter.Write(p)
}

func (w *keepAliveWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flush()
}

func (w *keepAliveWriter) flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	w.pending = false
	w.last = time.Now()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *keepAliveWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// tick sends a comment when the stream was silent for every, and
// schedules the next look.
func (w *keepAliveWriter) tick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	next := w.every - time.Since(w.last)
	if next <= 0 && !w.pending {
		if _, err := w.ResponseWriter.Write([]byte(keepAliveLine)); err != nil {
			return // the client is gone: the handler ends on its own
		}
		w.flush()
		next = w.every
	}
	if next <= 0 {
		next = w.every / 4 // inside an event: look again soon
	}
	w.timer.Reset(next)
}

func (w *keepAliveWriter) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	if w.timer != nil {
		w.timer.Stop()
	}
}
