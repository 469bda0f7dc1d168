package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"testing"
)

// benchCommand is the hook both benchmarks run: it reads its input and
// answers nothing, so what is measured is the spawn and the plumbing.
const benchCommand = "cat >/dev/null"

// benchInput is a realistic preToolCall input: a bash call as a model
// writes it.
func benchInput() Input {
	return Input{
		Event: PreToolCall,
		Tool: &Tool{
			ID:    "call_9f2c1ab7e4",
			Name:  "bash",
			Input: json.RawMessage(`{"command":"cd internal/tools && go test -run 'TestBash|TestEdit' ./... > /tmp/test.log 2>&1 && tail -n 40 /tmp/test.log"}`),
		},
	}
}

func benchRunner(b *testing.B) *Runner {
	return &Runner{
		Hooks: Set{PreToolCall: {{Command: benchCommand, Timeout: DefaultTimeout, OnError: Warn, ConfigDir: b.TempDir()}}},
		Cwd:   b.TempDir(),
		Model: "llmman/hf.co/unsloth/gemma-4-E4B-it-GGUF:Q4_K_M",
	}
}

// BenchmarkRun is one preToolCall hook run through mm: Runner.Run with its
// input encoding, environment, pipes, process group and reply decoding.
func BenchmarkRun(b *testing.B) {
	r := benchRunner(b)
	in := benchInput()
	ctx := context.Background()
	for b.Loop() {
		res := r.Run(ctx, in, "bash")
		if len(res.Runs) != 1 || res.Runs[0].Failure != "" {
			b.Fatalf("run failed: %+v", res.Runs)
		}
	}
}

// BenchmarkBareSpawn is the floor BenchmarkRun is measured against: os/exec
// running sh -c with the same command and the same JSON on stdin, stdout
// read, nothing else.
func BenchmarkBareSpawn(b *testing.B) {
	r := benchRunner(b)
	in := benchInput()
	in.Cwd, in.Model = r.Cwd, r.Model
	stdin, err := in.encode()
	if err != nil {
		b.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		b.Fatal(err)
	}
	var out bytes.Buffer
	for b.Loop() {
		out.Reset()
		cmd := exec.Command(sh, "-c", benchCommand)
		cmd.Dir = r.Cwd
		cmd.Stdin = bytes.NewReader(stdin)
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBenchInputSize keeps the benchmark's input honest: one line, the same
// bytes for both sides.
func TestBenchInputSize(t *testing.T) {
	in := benchInput()
	b, err := in.encode()
	if err != nil || len(b) < 100 || !json.Valid(b) {
		t.Fatalf("bench input %q: %v", b, err)
	}
}
