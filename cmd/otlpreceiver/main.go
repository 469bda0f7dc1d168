// Command otlpreceiver is a small OTLP trace receiver on loopback, for
// tests and for trying mm's traces without a collector: every span it
// takes is one JSON line of FILE (or stdout), for jq.
//
//	otlpreceiver [-addr 127.0.0.1:4318] [-grpc 127.0.0.1:4317] [FILE]
//
// It serves OTLP/HTTP (http/protobuf, /v1/traces) at -addr and, with
// -grpc, OTLP over gRPC, until SIGINT or SIGTERM. See package
// github.com/mm-agent/mm/internal/otlpreceiver for the lines' fields.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/mm-agent/mm/internal/otlpreceiver"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:4318", "where to serve OTLP/HTTP")
	grpcAddr := flag.String("grpc", "", "where to serve OTLP over gRPC (none when empty)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: otlpreceiver [-addr 127.0.0.1:4318] [-grpc 127.0.0.1:4317] [FILE]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 1 {
		flag.Usage()
		os.Exit(2)
	}
	var out io.Writer = os.Stdout
	if flag.NArg() == 1 {
		f, err := os.OpenFile(flag.Arg(0), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		out = f
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := &otlpreceiver.Receiver{Out: out}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fail(err)
	}
	if *grpcAddr != "" {
		gln, err := net.Listen("tcp", *grpcAddr)
		if err != nil {
			fail(err)
		}
		go r.ServeGRPC(ctx, gln)
	}
	if err := r.Serve(ctx, ln); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "otlpreceiver:", err)
	os.Exit(1)
}
