package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// cmdOtlpreceiver starts an OTLP/HTTP trace receiver on loopback for the
// rest of the script, on the official protobuf types: each span it takes
// is one JSON line of FILE (trace, span, parent, name, service, status,
// message, attrs), for jq.
//
//	otlpreceiver [-addr HOST:PORT] [-delay D] [-conns CONNFILE] FILE
//
// OTLP_URL holds its base URL (for OTEL_EXPORTER_OTLP_ENDPOINT). -delay
// makes it a slow collector: it answers each export after D (or when the
// exporter gives up). -conns appends a line to CONNFILE for every TCP
// connection made to it, spans or not.
func cmdOtlpreceiver(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! otlpreceiver")
	}
	fs := flag.NewFlagSet("otlpreceiver", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "")
	delay := fs.Duration("delay", 0, "")
	conns := fs.String("conns", "", "")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		ts.Fatalf("usage: otlpreceiver [-addr HOST:PORT] [-delay D] [-conns CONNFILE] FILE")
	}
	out, err := os.OpenFile(ts.MkAbs(fs.Arg(0)), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	ts.Check(err)
	var connOut *os.File
	if *conns != "" {
		connOut, err = os.OpenFile(ts.MkAbs(*conns), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		ts.Check(err)
	}
	ln, err := net.Listen("tcp", *addr)
	ts.Check(err)
	var mu sync.Mutex
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v1/traces" || r.Method != http.MethodPost {
				http.NotFound(w, r)
				return
			}
			body, err := io.ReadAll(r.Body)
			if err != nil {
				return
			}
			if *delay > 0 {
				select {
				case <-time.After(*delay):
				case <-r.Context().Done():
					return
				}
			}
			var req coltracepb.ExportTraceServiceRequest
			if err := proto.Unmarshal(body, &req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			mu.Lock()
			for _, line := range spanLines(&req) {
				out.Write(append(line, '\n'))
			}
			mu.Unlock()
			resp, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.Write(resp)
		}),
		ConnState: func(c net.Conn, s http.ConnState) {
			if s == http.StateNew && connOut != nil {
				mu.Lock()
				connOut.WriteString(c.RemoteAddr().String() + "\n")
				mu.Unlock()
			}
		},
	}
	go srv.Serve(ln)
	ts.Defer(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		srv.Close()
		out.Close()
		if connOut != nil {
			connOut.Close()
		}
	})
	ts.Setenv("OTLP_URL", "http://"+ln.Addr().String())
}

// spanLines is each span of req as a JSON line.
func spanLines(req *coltracepb.ExportTraceServiceRequest) [][]byte {
	var lines [][]byte
	for _, rs := range req.ResourceSpans {
		res := attrMap(rs.GetResource().GetAttributes())
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				line, _ := json.Marshal(map[string]any{
					"trace":    hex.EncodeToString(s.TraceId),
					"span":     hex.EncodeToString(s.SpanId),
					"parent":   hex.EncodeToString(s.ParentSpanId),
					"name":     s.Name,
					"kind":     strings.TrimPrefix(s.Kind.String(), "SPAN_KIND_"),
					"service":  res["service.name"],
					"resource": res,
					"status":   strings.TrimPrefix(s.GetStatus().GetCode().String(), "STATUS_CODE_"),
					"message":  s.GetStatus().GetMessage(),
					"attrs":    attrMap(s.Attributes),
					"ms":       float64(s.EndTimeUnixNano-s.StartTimeUnixNano) / 1e6,
				})
				lines = append(lines, line)
			}
		}
	}
	return lines
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
		var a []any
		for _, e := range x.ArrayValue.Values {
			a = append(a, anyValue(e))
		}
		return a
	}
	return nil
}
