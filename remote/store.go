package remote

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
)

// keepFinished is how long a finished task stays readable with tasks/get:
// long enough for a client to read its result, short enough that a server
// answering tasks all day does not keep every answer in memory.
const keepFinished = 15 * time.Minute

// store is the served agent's task store: the SDK's in-memory one keeps
// every task forever, this one forgets finished tasks after keepFinished.
// Tasks are kept as copies (the SDK changes the ones it saves): copies of
// their structure, not of their text, since the SDK saves the task at each
// event — a copy of all its text each time would make a long answer's cost
// grow with the square of its length.
type store struct {
	mu       sync.Mutex
	tasks    map[a2a.TaskID]storedTask
	saves    int
	lifetime time.Duration
}

type storedTask struct {
	task     *a2a.Task
	finished time.Time // zero while the task is not in a terminal state
}

var _ a2asrv.TaskStore = (*store)(nil)

func newStore() *store {
	return &store{tasks: map[a2a.TaskID]storedTask{}, lifetime: keepFinished}
}

func (s *store) Save(_ context.Context, task *a2a.Task) error {
	st := storedTask{task: copyTask(task)}
	if task.Status.State.Terminal() {
		st.finished = time.Now()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.tasks[task.ID]; ok && !old.finished.IsZero() && !st.finished.IsZero() {
		st.finished = old.finished
	}
	s.tasks[task.ID] = st
	s.saves++
	if s.saves%256 == 0 {
		s.sweep(time.Now())
	}
	return nil
}

func (s *store) Get(_ context.Context, id a2a.TaskID) (*a2a.Task, error) {
	s.mu.Lock()
	st, ok := s.tasks[id]
	if ok && !st.finished.IsZero() && time.Since(st.finished) > s.lifetime {
		delete(s.tasks, id)
		ok = false
	}
	s.mu.Unlock()
	if !ok {
		return nil, a2a.ErrTaskNotFound
	}
	return copyTask(st.task), nil
}

// copyTask copies what the SDK changes in a task it saved or got: the
// task's own fields, its lists (artifacts' parts are appended to, history
// grows) and its maps (metadata is merged into). The parts and messages
// themselves are not changed once made, and are shared.
func copyTask(t *a2a.Task) *a2a.Task {
	c := *t
	c.Metadata = maps.Clone(t.Metadata)
	c.History = slices.Clone(t.History)
	if t.Artifacts != nil {
		c.Artifacts = make([]*a2a.Artifact, len(t.Artifacts))
		for i, a := range t.Artifacts {
			ac := *a
			ac.Parts = slices.Clone(a.Parts)
			ac.Metadata = maps.Clone(a.Metadata)
			c.Artifacts[i] = &ac
		}
	}
	return &c
}

// sweep forgets the tasks finished more than lifetime ago; s.mu is held.
func (s *store) sweep(now time.Time) {
	for id, st := range s.tasks {
		if !st.finished.IsZero() && now.Sub(st.finished) > s.lifetime {
			delete(s.tasks, id)
		}
	}
}

// len is the number of tasks kept, for tests.
func (s *store) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tasks)
}
