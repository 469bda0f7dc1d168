// Package tracing is mm's OpenTelemetry traces: the one place that knows
// the SDK, the OTLP exporters and the standard OTEL_* variables. The rest
// of mm starts spans through Start and ends them through Span's methods,
// which cost next to nothing when tracing is off (no endpoint variable:
// then no exporter is built and nothing touches the network).
//
// Export never slows a turn: spans are batched and sent in the background,
// a collector that is down or slow loses them (one warning on stderr), and
// Setup's stop bounds the last flush, so that mm exits within a second of
// its work ending whatever the collector does.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// The variables that turn tracing on, and the content switch.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvContent        = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
)

// StopBudget bounds the last flush when mm ends: what a dead or slow
// collector may add to mm's exit. An asked agent's process flushes within
// it too, while its asking mm waits for it, so both fit in the second the
// contract allows.
const StopBudget = 300 * time.Millisecond

// flushBudget bounds the flush after each turn (in the background).
const flushBudget = 2 * time.Second

var (
	// tracer is the no-op tracer until Setup builds the SDK's.
	tracer   trace.Tracer = noop.NewTracerProvider().Tracer("")
	provider *sdktrace.TracerProvider
	content  bool
	warnOut  io.Writer = os.Stderr
	warned   atomic.Bool
	flushing atomic.Bool
)

// On reports whether spans are exported.
func On() bool { return provider != nil }

// Content reports whether prompts, answers and tool inputs and outputs may
// be recorded (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true).
func Content() bool { return content }

// Setup builds the exporter when an endpoint variable is set, and returns
// what flushes and stops it (within StopBudget) when mm ends. warn gets
// the one warning of a collector that cannot be reached. Without the
// variables (or with OTEL_SDK_DISABLED=true) it does nothing at all: no
// exporter, no connection. It is called once, before any span starts.
func Setup(warn io.Writer) (stop func()) {
	if os.Getenv(EnvEndpoint) == "" && os.Getenv(EnvTracesEndpoint) == "" ||
		strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		return func() {}
	}
	warnOut = warn
	exp, err := exporter(context.Background())
	if err != nil {
		warnf("traces are off: %v", err)
		return func() {}
	}
	res, err := resource.New(context.Background(),
		resource.WithAttributes(attribute.String("service.name", "mm"), attribute.Int("process.pid", os.Getpid())),
		resource.WithFromEnv(), // OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME
		resource.WithTelemetrySDK())
	if err != nil {
		// A malformed OTEL_RESOURCE_ATTRIBUTES: what could be read is kept.
		warnf("OTEL_RESOURCE_ATTRIBUTES: %v", err)
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { warnLost(err) }))
	provider = sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, sdktrace.WithExportTimeout(flushBudget)),
		sdktrace.WithResource(res))
	tracer = provider.Tracer("github.com/mm-agent/mm")
	content = strings.EqualFold(strings.TrimSpace(os.Getenv(EnvContent)), "true")
	p := provider
	return func() {
		done := make(chan error, 1)
		ctx, cancel := context.WithTimeout(context.Background(), StopBudget)
		defer cancel()
		// The shutdown may outlive the budget: it holds its own provider,
		// not the package's, which may be replaced meanwhile (tests).
		go func() { done <- p.Shutdown(ctx) }()
		select {
		case err := <-done:
			if err != nil {
				warnLost(err)
			}
		case <-ctx.Done():
			warnLost(fmt.Errorf("the collector did not take them within %v", StopBudget))
		}
	}
}

// Quiet drops the warning of lost spans: an asked agent's process, whose
// asking mm exports to the same collector and says it once for both.
func Quiet() {
	warned.Store(true)
}

// exporter is the OTLP exporter OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL asks
// for: http/protobuf by default, grpc. The exporters read the endpoint,
// headers and timeout variables themselves. Retries are off: a collector
// that does not take a batch loses it, rather than holding mm.
func exporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	proto := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch strings.TrimSpace(proto) {
	case "", "http/protobuf":
		return otlptracehttp.New(ctx, otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	case "grpc":
		return otlptracegrpc.New(ctx, otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}))
	}
	return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL %q is not supported (http/protobuf or grpc)", proto)
}

// warnLost is the one warning of spans a collector did not take.
func warnLost(err error) {
	if warned.CompareAndSwap(false, true) {
		fmt.Fprintf(warnOut, "mm: traces: spans were lost: %s (further export errors are not shown)\n", oneLine(err.Error()))
	}
}

func warnf(format string, args ...any) {
	if warned.CompareAndSwap(false, true) {
		fmt.Fprintf(warnOut, "mm: "+format+"\n", args...)
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// FlushSoon sends what is batched now, in the background and bounded, so
// that a long-running process (an asked agent, mm -a2a) does not hold a
// turn's spans until its batch timer: called when a turn ends. One flush
// at a time; a turn never waits for it.
func FlushSoon() {
	p := provider
	if p == nil || !flushing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer flushing.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), flushBudget)
		defer cancel()
		if err := p.ForceFlush(ctx); err != nil {
			warnLost(err)
		}
	}()
}

// Span is one span; a nil *Span (tracing off, or the span not recording)
// takes every call and does nothing.
type Span struct{ s trace.Span }

// Start starts a span named name under ctx's span, with attrs. When
// tracing is off the span is nil and ctx is returned as it is.
func Start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, *Span) {
	if provider == nil {
		return ctx, nil
	}
	ctx, s := tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	return ctx, &Span{s}
}

// Set adds attributes.
func (s *Span) Set(attrs ...attribute.KeyValue) {
	if s != nil {
		s.s.SetAttributes(attrs...)
	}
}

// SetContent adds attributes that hold content (a prompt, an answer, a
// tool's input or output): only with the content switch on.
func (s *Span) SetContent(attrs ...attribute.KeyValue) {
	if s != nil && content {
		s.s.SetAttributes(attrs...)
	}
}

// Fail marks the span's status an error, with why.
func (s *Span) Fail(why string) {
	if s != nil {
		s.s.SetStatus(codes.Error, why)
	}
}

// Error records err as the span's failure (error.type and the status); a
// nil err does nothing.
func (s *Span) Error(err error) {
	if s == nil || err == nil {
		return
	}
	typ := "error"
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		typ = "cancelled"
	}
	s.s.SetAttributes(attribute.String("error.type", typ))
	s.s.SetStatus(codes.Error, oneLine(err.Error()))
}

// OK marks the span's status ok.
func (s *Span) OK() {
	if s != nil {
		s.s.SetStatus(codes.Ok, "")
	}
}

// End ends the span.
func (s *Span) End() {
	if s != nil {
		s.s.End()
	}
}

// The span kinds mm uses.
const (
	Internal = trace.SpanKindInternal
	Client   = trace.SpanKindClient
	Server   = trace.SpanKindServer
)

// propagator carries the trace context as W3C traceparent (and
// tracestate) across processes and machines.
var propagator = propagation.TraceContext{}

// Inject is ctx's trace context as W3C headers (traceparent, tracestate):
// empty when ctx carries no span.
func Inject(ctx context.Context) map[string]string {
	c := propagation.MapCarrier{}
	if trace.SpanContextFromContext(ctx).IsValid() {
		propagator.Inject(ctx, c)
	}
	return c
}

// Extract is ctx with the remote span the headers name as the parent of
// the spans started under it; get reads a header (case-insensitively for
// HTTP). Without a valid traceparent, ctx is returned as it is.
func Extract(ctx context.Context, get func(key string) string) context.Context {
	tp := get("traceparent")
	if tp == "" {
		return ctx
	}
	return propagator.Extract(ctx, propagation.MapCarrier{"traceparent": tp, "tracestate": get("tracestate")})
}

// Adopt is ctx with from's span as its parent: a task's context is made
// from the server's, not the request's, and keeps the request's trace.
func Adopt(ctx, from context.Context) context.Context {
	sc := trace.SpanContextFromContext(from)
	if !sc.IsValid() {
		return ctx
	}
	return trace.ContextWithSpanContext(ctx, sc)
}

// Attribute constructors, so that callers need not import the SDK's.
var (
	String      = attribute.String
	Int         = attribute.Int
	Bool        = attribute.Bool
	StringSlice = attribute.StringSlice
)

// Attr is one attribute.
type Attr = attribute.KeyValue
