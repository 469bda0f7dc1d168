package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
)

// lineReader reads lines in its own goroutine so that a turn waiting for a
// line (a consent answer) can be cancelled, and so that line mode and
// consent share one reader: in a pipe, the line after a prompt answers its
// consent question.
type lineReader struct {
	lines chan string
	tty   bool // the lines come from a terminal (so they are echoed already)
}

func newLineReader(r io.Reader) *lineReader {
	lr := &lineReader{lines: make(chan string)}
	go func() {
		defer close(lr.lines)
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, err := br.ReadString('\n')
			if len(line) > 0 && line[len(line)-1] == '\n' {
				line = line[:len(line)-1]
			}
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			if err != nil {
				if line != "" {
					lr.lines <- line
				}
				return
			}
			lr.lines <- line
		}
	}()
	return lr
}

// next returns the next line; ok is false at end of input or when ctx ends.
func (lr *lineReader) next(ctx context.Context) (string, bool) {
	select {
	case l, ok := <-lr.lines:
		return l, ok
	case <-ctx.Done():
		return "", false
	}
}

// TestStreams are streams for a test to drive a front end with, as gh's
// iostreams.Test: stdin reads in; stdout and stderr write to out and
// errOut; no terminal unless the test says so (InTTY, OutTTY).
func TestStreams(in string) (ios *IOStreams, out, errOut *bytes.Buffer) {
	out, errOut = &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: strings.NewReader(in), Out: out, Err: errOut}, out, errOut
}
