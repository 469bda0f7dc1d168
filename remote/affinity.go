package remote

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2aproject/a2a-go/a2a"
)

// RelayHeader names the relay every request of one ask belongs to (its
// stream, consent answers, tasks/cancel, tasks/get): one random id per
// relay, so a load balancer in front of several mm -a2a backends can keep
// a relay on the backend that holds its task (nginx: hash $http_mm_relay
// consistent) while spreading relays over all of them. The card fetch,
// which belongs to no relay, carries none.
const RelayHeader = "MM-Relay"

// UnknownTaskDoc is where the docs tell how to put backends behind a load
// balancer; the message of a task the backend does not know points there.
const UnknownTaskDoc = "docs/how-to/ask-an-agent-on-another-machine.md#behind-a-load-balancer"

type relayKey struct{}

// withRelay marks the requests made with ctx as the relay id's.
func withRelay(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, relayKey{}, id)
}

// relayOf is the relay id of the requests made with ctx; "" for none.
func relayOf(ctx context.Context) string {
	id, _ := ctx.Value(relayKey{}).(string)
	return id
}

// isTaskNotFound reports whether the agent answered that it holds no such
// task (JSON-RPC error -32001): as an event or a JSON response of a
// stream (rpcError), or from the SDK's unary calls.
func isTaskNotFound(err error) bool {
	var re *rpcError
	return (errors.As(err, &re) && re.Code == -32001) || errors.Is(err, a2a.ErrTaskNotFound)
}

// unknownTask is the failure of a relay whose task the agent answering
// does not know: behind a load balancer without affinity, a request of
// the relay went to another backend than the one holding the task.
func (a *Agent) unknownTask(id a2a.TaskID) string {
	return fmt.Sprintf("the agent at %s does not know task %s (a load balancer without affinity? see %s)", a.URL, oneLine(clean(string(id)), 100), UnknownTaskDoc)
}
