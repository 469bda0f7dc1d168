//go:build !linux

package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/mm-agent/mm/internal/procs"
)

// run is execute's work where the run is not one poll loop (not Linux):
// three pipes on Go's poller, with deadlines, and a reader goroutine for
// each of stdout and stderr.
func run(ctx context.Context, sh, command, dir string, env []string, timeout time.Duration, stdin []byte) ([]byte, error) {
	deadline := time.Now().Add(timeout)
	tctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, failure("start: " + err.Error())
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, failure("start: " + err.Error())
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, failure("start: " + err.Error())
	}

	cmd := exec.CommandContext(tctx, sh, "-c", command)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	procs.Prepare(cmd)
	g, startErr := procs.Start(cmd)
	inR.Close()
	outW.Close()
	errW.Close()
	if startErr != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, failure("start: " + startErr.Error())
	}
	defer g.Release()

	// No read or write of the run's pipes goes past its deadline, nor past
	// a cancel: whatever holds their other ends, the run ends.
	for _, f := range []*os.File{inW, outR, errR} {
		f.SetDeadline(deadline)
	}
	stopCancel := context.AfterFunc(ctx, func() {
		for _, f := range []*os.File{inW, outR, errR} {
			f.SetDeadline(time.Now())
		}
	})
	defer stopCancel()

	// The readers own outR and errR and close them; out, overflow, stuck
	// and errHead are theirs until readers is closed.
	var (
		wg       sync.WaitGroup
		out      []byte
		overflow bool
		stuck    bool // stdout did not reach its end before the deadline
		errStuck bool // nor stderr
		errHead  = make([]byte, 0, stderrQuote)
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer outR.Close()
		var err error
		out, overflow, err = readLimited(outR, maxStdout)
		stuck = errors.Is(err, os.ErrDeadlineExceeded)
		if overflow {
			g.Kill()
		}
	}()
	go func() {
		defer wg.Done()
		defer errR.Close()
		var err error
		errHead, err = readHead(errR, errHead)
		errStuck = errors.Is(err, os.ErrDeadlineExceeded)
	}()
	readers := make(chan struct{})
	go func() {
		wg.Wait()
		close(readers)
	}()
	if len(stdin) <= syncStdin {
		writeStdin(inW, stdin)
	} else {
		go writeStdin(inW, stdin)
	}

	waitErr := cmd.Wait()
	g.Kill() // whatever the shell left behind
	select {
	case <-readers:
		if stuck || errStuck { // cut short by the deadline or a cancel
			g.KillEscaped()
		}
	case <-time.After(drainGrace):
		// Something that left the group holds the pipes.
		g.KillEscaped()
		<-readers
	}

	switch {
	case ctx.Err() != nil:
		return nil, failure("cancelled")
	case tctx.Err() != nil || stuck:
		return nil, failure("timed out after " + timeout.String())
	case overflow:
		return nil, failure(fmt.Sprintf("stdout larger than %d bytes", maxStdout))
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		sig, signaled := procs.Signal(ee.ProcessState)
		return nil, exitFailure(ee.ExitCode(), sig, signaled, errHead)
	}
	if waitErr != nil {
		return nil, failure(waitErr.Error())
	}
	return out, nil
}

func writeStdin(w *os.File, b []byte) {
	w.Write(b) // a hook may exit or close stdin without reading: not a failure
	w.Close()
}
