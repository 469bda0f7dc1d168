package main

import (
	"context"
	"flag"
	"net"
	"os"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mm-agent/mm/internal/otlpreceiver"
)

// cmdOtlpreceiver starts an OTLP trace receiver on loopback for the rest
// of the script (internal/otlpreceiver): each span it takes is one JSON
// line of FILE (trace, span, parent, name, kind, service, status,
// message, attrs, resource, ms), for jq.
//
//	otlpreceiver [-addr HOST:PORT] [-grpc] [-delay D] [-conns CONNFILE] FILE
//
// OTLP_URL holds its base URL (for OTEL_EXPORTER_OTLP_ENDPOINT); with
// -grpc it serves OTLP over gRPC there instead of OTLP/HTTP. -delay makes
// it a slow collector: it answers each export after D (or when the
// exporter gives up). -conns appends a line to CONNFILE for every TCP
// connection made to it (OTLP/HTTP), spans or not.
func cmdOtlpreceiver(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! otlpreceiver")
	}
	fs := flag.NewFlagSet("otlpreceiver", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "")
	useGRPC := fs.Bool("grpc", false, "")
	delay := fs.Duration("delay", 0, "")
	conns := fs.String("conns", "", "")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		ts.Fatalf("usage: otlpreceiver [-addr HOST:PORT] [-grpc] [-delay D] [-conns CONNFILE] FILE")
	}
	out, err := os.OpenFile(ts.MkAbs(fs.Arg(0)), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	ts.Check(err)
	r := &otlpreceiver.Receiver{Out: out, Delay: *delay}
	var connOut *os.File
	if *conns != "" {
		connOut, err = os.OpenFile(ts.MkAbs(*conns), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		ts.Check(err)
		var mu sync.Mutex
		r.OnConn = func(remote string) {
			mu.Lock()
			defer mu.Unlock()
			connOut.WriteString(remote + "\n")
		}
	}
	ln, err := net.Listen("tcp", *addr)
	ts.Check(err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if *useGRPC {
			r.ServeGRPC(ctx, ln)
		} else {
			r.Serve(ctx, ln)
		}
	}()
	ts.Defer(func() {
		cancel()
		<-done
		out.Close()
		if connOut != nil {
			connOut.Close()
		}
	})
	ts.Setenv("OTLP_URL", "http://"+ln.Addr().String())
}
