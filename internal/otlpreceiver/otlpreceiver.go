// Package otlpreceiver is a small OTLP trace receiver, for tests and for
// trying mm's traces on one machine without a collector: it takes OTLP
// exports (http/protobuf on /v1/traces, and gRPC's TraceService) decoded
// with the official protobuf types, and writes each span as one JSON line
// that jq reads. It stores nothing else and forwards nothing.
package otlpreceiver

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// Span is a span as a JSON line: ids in hex (parent "" for a root), the
// resource's service.name beside the whole resource, the status code
// (UNSET, OK, ERROR) and its message, the attributes, when it started
// (Unix nanoseconds) and how long it took (milliseconds).
type Span struct {
	Trace    string         `json:"trace"`
	Span     string         `json:"span"`
	Parent   string         `json:"parent"`
	Name     string         `json:"name"`
	Kind     string         `json:"kind"`
	Service  any            `json:"service"`
	Status   string         `json:"status"`
	Message  string         `json:"message"`
	Attrs    map[string]any `json:"attrs"`
	Resource map[string]any `json:"resource"`
	Start    uint64         `json:"start"`
	MS       float64        `json:"ms"`
}

// Receiver writes the spans it takes to Out, one JSON line each.
type Receiver struct {
	Out io.Writer
	// Delay, when set, makes it a slow collector: it answers each export
	// after Delay (or when the exporter gives up).
	Delay time.Duration
	// OnConn, when set, is told of each TCP connection made to it.
	OnConn func(remote string)

	mu sync.Mutex
}

// ServeHTTP takes one OTLP/HTTP export.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" || req.Method != http.MethodPost {
		http.NotFound(w, req)
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return
	}
	if !r.wait(req.Context()) {
		return
	}
	var ex coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &ex); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.write(&ex)
	resp, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(resp)
}

// grpcService is the gRPC TraceService.
type grpcService struct {
	coltracepb.UnimplementedTraceServiceServer
	r *Receiver
}

func (g grpcService) Export(ctx context.Context, ex *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	if !g.r.wait(ctx) {
		return nil, ctx.Err()
	}
	g.r.write(ex)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

func (r *Receiver) wait(ctx context.Context) bool {
	if r.Delay <= 0 {
		return true
	}
	select {
	case <-time.After(r.Delay):
		return true
	case <-ctx.Done():
		return false
	}
}

func (r *Receiver) write(ex *coltracepb.ExportTraceServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range Spans(ex) {
		line, _ := json.Marshal(s)
		r.Out.Write(append(line, '\n'))
	}
}

// Serve serves OTLP/HTTP on ln until ctx ends.
func (r *Receiver) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: r, ConnState: func(c net.Conn, s http.ConnState) {
		if s == http.StateNew && r.OnConn != nil {
			r.OnConn(c.RemoteAddr().String())
		}
	}}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// ServeGRPC serves OTLP over gRPC on ln until ctx ends.
func (r *Receiver) ServeGRPC(ctx context.Context, ln net.Listener) error {
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, grpcService{r: r})
	go func() {
		<-ctx.Done()
		srv.Stop()
	}()
	return srv.Serve(ln)
}

// Spans are the spans of an export.
func Spans(ex *coltracepb.ExportTraceServiceRequest) []Span {
	var spans []Span
	for _, rs := range ex.ResourceSpans {
		res := attrMap(rs.GetResource().GetAttributes())
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				spans = append(spans, Span{
					Trace:    hex.EncodeToString(s.TraceId),
					Span:     hex.EncodeToString(s.SpanId),
					Parent:   hex.EncodeToString(s.ParentSpanId),
					Name:     s.Name,
					Kind:     strings.TrimPrefix(s.Kind.String(), "SPAN_KIND_"),
					Service:  res["service.name"],
					Resource: res,
					Status:   strings.TrimPrefix(s.GetStatus().GetCode().String(), "STATUS_CODE_"),
					Message:  s.GetStatus().GetMessage(),
					Attrs:    attrMap(s.Attributes),
					Start:    s.StartTimeUnixNano,
					MS:       float64(s.EndTimeUnixNano-s.StartTimeUnixNano) / 1e6,
				})
			}
		}
	}
	return spans
}

func attrMap(kvs []*commonpb.KeyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		m[kv.Key] = anyValue(kv.Value)
	}
	return m
}

func anyValue(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_ArrayValue:
		a := []any{}
		for _, e := range x.ArrayValue.Values {
			a = append(a, anyValue(e))
		}
		return a
	}
	return nil
}
