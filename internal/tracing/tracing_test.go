package tracing

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// Without an endpoint variable nothing is built: no span, no provider,
// and the no-op stop returns at once.
func TestSetupOffWithoutEndpoint(t *testing.T) {
	t.Setenv(EnvEndpoint, "")
	t.Setenv(EnvTracesEndpoint, "")
	t.Setenv("OTEL_SERVICE_NAME", "x")
	stop := Setup(&bytes.Buffer{})
	defer stop()
	if On() {
		t.Fatal("tracing is on without an endpoint")
	}
	ctx := context.Background()
	got, span := Start(ctx, "mm.turn", Internal)
	if span != nil || got != ctx {
		t.Fatalf("Start with tracing off gave a span %v", span)
	}
	span.Set(String("k", "v")) // a nil span takes every call
	span.Fail("x")
	span.End()
	if h := Inject(ctx); len(h) != 0 {
		t.Fatalf("Inject without a span: %v", h)
	}
}

// The trace context crosses as W3C traceparent and comes back the same.
func TestInjectExtract(t *testing.T) {
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5}, TraceFlags: trace.FlagsSampled,
	})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)
	h := Inject(ctx)
	if !strings.HasPrefix(h["traceparent"], "00-01020300000000000000000000000000-0405000000000000-01") {
		t.Fatalf("traceparent = %q", h["traceparent"])
	}
	got := trace.SpanContextFromContext(Extract(context.Background(), func(k string) string { return h[k] }))
	if got.TraceID() != sc.TraceID() || got.SpanID() != sc.SpanID() || !got.IsRemote() {
		t.Fatalf("extracted %v, want %v", got, sc)
	}
	if bad := Extract(context.Background(), func(string) string { return "garbage" }); trace.SpanContextFromContext(bad).IsValid() {
		t.Fatal("a malformed traceparent gave a span context")
	}
	task := Adopt(context.Background(), Extract(context.Background(), func(k string) string { return h[k] }))
	if trace.SpanContextFromContext(task).TraceID() != sc.TraceID() {
		t.Fatal("Adopt lost the trace")
	}
}

// A collector that accepts the connection and never answers: stop
// returns within StopBudget (and a little), with one warning.
func TestStopBoundedWithHungCollector(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	t.Setenv(EnvEndpoint, "http://"+ln.Addr().String())
	var warn lockedBuffer // the warning is written from the exporter's goroutine
	stop := Setup(&warn)
	defer func() { provider = nil; warned.Store(false) }()
	_, span := Start(context.Background(), "mm.turn", Internal)
	span.End()
	start := time.Now()
	stop()
	if d := time.Since(start); d > StopBudget+200*time.Millisecond {
		t.Fatalf("stop took %v, more than %v", d, StopBudget)
	}
	if n := strings.Count(warn.String(), "spans were lost"); n != 1 {
		t.Fatalf("%d warnings: %q", n, warn.String())
	}
}

// lockedBuffer is a bytes.Buffer safe for a writer and a reader on two
// goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
