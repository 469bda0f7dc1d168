package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mm-agent/mm/internal/model"
)

// peakTool holds each call a moment and records how many ran at once, of
// its own calls and of all the counted tools' together.
type peakTool struct {
	name  string
	all   *peak
	own   peak
	holds time.Duration
}

type peak struct {
	mu            sync.Mutex
	running, most int
}

func (p *peak) add(n int) {
	p.mu.Lock()
	p.running += n
	p.most = max(p.most, p.running)
	p.mu.Unlock()
}

func (t *peakTool) Def() model.ToolDef { return model.ToolDef{Name: t.name} }

func (t *peakTool) Run(ctx context.Context, input json.RawMessage) Result {
	t.own.add(1)
	t.all.add(1)
	time.Sleep(t.holds)
	t.own.add(-1)
	t.all.add(-1)
	return Result{Output: "ran"}
}

// askingTool is a peakTool that asks agents, as ask_agent.
type askingTool struct{ *peakTool }

func (askingTool) AsksAgents() {}

// The AskTool calls of one reply run ParallelAsks at once, apart from the
// other calls' Parallel; without ParallelAsks, Parallel bounds them.
func TestParallelAsks(t *testing.T) {
	for _, c := range []struct {
		parallel, parallelAsks int
		asks, reads            int
		wantAsks, wantReads    int
	}{
		{parallel: 2, parallelAsks: 5, asks: 10, reads: 6, wantAsks: 5, wantReads: 2},
		{parallel: 8, parallelAsks: 16, asks: 20, reads: 1, wantAsks: 16, wantReads: 1},
		{parallel: 8, parallelAsks: 1, asks: 4, reads: 4, wantAsks: 1, wantReads: 4},
		{parallel: 3, parallelAsks: 0, asks: 6, reads: 0, wantAsks: 3},
	} {
		t.Run(fmt.Sprintf("parallel %d asks %d", c.parallel, c.parallelAsks), func(t *testing.T) {
			var all peak
			ask := askingTool{&peakTool{name: "ask_agent", all: &all, holds: 150 * time.Millisecond}}
			read := &peakTool{name: "read_file", all: &all, holds: 150 * time.Millisecond}
			var calls []model.ToolCall
			for i := range max(c.asks, c.reads) {
				if i < c.asks {
					calls = append(calls, call(fmt.Sprint("a", i), "ask_agent", `{"agent":"expert","question":"q"}`))
				}
				if i < c.reads {
					calls = append(calls, call(fmt.Sprint("r", i), "read_file", `{"path":"x"}`))
				}
			}
			m := &fakeModel{replies: []model.Reply{{ToolCalls: calls}, {Content: "done"}}}
			s := NewSession(&Agent{Model: m, Tools: []Tool{ask, read}, Yolo: true, MaxSteps: 5, Parallel: c.parallel, ParallelAsks: c.parallelAsks})
			res := s.Generate(context.Background(), "go", nil, nil)
			if res.Err != nil || len(res.Ran) != c.asks+c.reads {
				t.Fatalf("res %+v", res)
			}
			if ask.own.most != c.wantAsks || read.own.most != c.wantReads {
				t.Errorf("at once: %d asks, %d reads; want %d, %d", ask.own.most, read.own.most, c.wantAsks, c.wantReads)
			}
			if c.parallelAsks > 0 && all.most != c.wantAsks+c.wantReads {
				t.Errorf("at once: %d calls in all, want %d (the two pools side by side)", all.most, c.wantAsks+c.wantReads)
			}
			var ids []string
			for _, msg := range s.History {
				if msg.Role == "tool" {
					ids = append(ids, msg.ToolCallID)
				}
			}
			for i, cl := range calls {
				if i >= len(ids) || ids[i] != cl.ID {
					t.Fatalf("outputs in order %v, calls %v", ids, calls)
				}
			}
		})
	}
}
