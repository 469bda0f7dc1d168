//go:build linux

// Command answermem measures the peak memory (resident set) of the real mm
// binary while it streams one long answer, printed against the answer's
// size: `mm -p` against a server on loopback that streams the answer in
// chunks of 16 KB of text, as a fast local server would, its stdout thrown
// away. mm keeps the answer (the history, the turn's result), so the floor
// is about one answer; the target is at most 3× the answer plus 40 MB.
//
//	go run ./bench/answermem [-sizes 30,100] [-chunk 16384]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	sizes := flag.String("sizes", "30,100", "answer sizes to measure, in MB, comma-separated")
	chunk := flag.Int("chunk", 16<<10, "bytes of answer text per stream chunk")
	flag.Parse()
	if err := run(*sizes, *chunk); err != nil {
		fmt.Fprintln(os.Stderr, "answermem:", err)
		os.Exit(1)
	}
}

func run(sizes string, chunk int) error {
	dir, err := os.MkdirTemp("", "answermem-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "mm")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/mm").CombinedOutput(); err != nil {
		return fmt.Errorf("build mm (run from the repository root): %v\n%s", err, out)
	}
	cfg := filepath.Join(dir, "agent.yaml")
	if err := os.WriteFile(cfg, []byte("model: llmman/bench\ntools: []\n"), 0o644); err != nil {
		return err
	}
	for _, s := range strings.Split(sizes, ",") {
		mb, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || mb <= 0 {
			return fmt.Errorf("bad size %q", s)
		}
		size := mb << 20
		rss, took, got, err := measure(bin, cfg, size, chunk)
		if err != nil {
			return err
		}
		limit := 3*size + 40<<20
		verdict := "ok"
		if rss > int64(limit) {
			verdict = "OVER"
		}
		fmt.Printf("answer %4d MB: peak RSS %5.0f MB = %.2f× the answer (target <= 3× + 40 MB = %d MB: %s); %d MB written to stdout in %v\n",
			mb, float64(rss)/(1<<20), float64(rss)/float64(size), limit>>20, verdict, got>>20, took.Round(time.Millisecond))
	}
	return nil
}

// measure runs mm -p against a server streaming an answer of size bytes and
// returns mm's peak RSS, the time it took and how much it wrote.
func measure(bin, cfg string, size, chunk int) (int64, time.Duration, int64, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, 0, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		stream(w, size, chunk)
	})}
	go srv.Serve(ln)
	defer srv.Close()

	cmd := exec.Command(bin, "-c", cfg, "-p", "write a long answer")
	cmd.Env = append(os.Environ(), "LLMMAN_HOST="+ln.Addr().String(), "NO_COLOR=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, 0, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, err
	}
	n, _ := io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return 0, 0, 0, fmt.Errorf("mm: %v: %s", err, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, 0, fmt.Errorf("no resource usage on this system")
	}
	return ru.Maxrss * 1024, time.Since(start), n, nil // Linux reports Maxrss in KB
}

// stream writes an answer of size bytes of text as a chat-completions
// stream, chunk bytes a delta.
func stream(w http.ResponseWriter, size, chunk int) {
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	piece := strings.Repeat("All work and no play makes a long answer. ", chunk/42+1)[:chunk]
	delta, _ := json.Marshal(piece)
	line := []byte(`data: {"choices":[{"index":0,"delta":{"content":` + string(delta) + `},"finish_reason":null}]}` + "\n\n")
	io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`+"\n\n")
	for sent := 0; sent < size; sent += chunk {
		if _, err := w.Write(line); err != nil {
			return
		}
	}
	io.WriteString(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
	io.WriteString(w, `data: {"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`+"\n\n")
	io.WriteString(w, "data: [DONE]\n\n")
	f.Flush()
}
