package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"

	"github.com/coder/acp-go-sdk"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/internal/frontend"
	"github.com/mm-agent/mm/orchestrator"
	"github.com/mm-agent/mm/relay"
)

// The /ask… commands in the editor. Each agent of mmConfigs has two,
// advertised with available_commands_update after session/new and
// session/load: /ask-<name> <question> and /ask-with-context-<name>
// <question>. /ask <name> <question> works too when typed, as in the
// other front ends, but is not advertised: the editor completes the
// per-agent ones. A prompt that starts with one is a relay (via: command):
// the asking agent's model is not called; the asked agent's answer streams
// into a tool call of its own, as an ask_agent call's does; the exchange
// enters the session's history as the reference says.

// advertise sends the session's /ask… commands; nothing for an agent
// without mmConfigs.
func (s *session) advertise(ctx context.Context) error {
	names := s.srv.app.Config.AgentNames()
	if len(names) == 0 {
		return nil
	}
	cmds := make([]acp.AvailableCommand, 0, 2*len(names))
	for _, n := range names {
		cmds = append(cmds,
			acp.AvailableCommand{
				Name:        frontend.AskCommand(n, false),
				Description: "Ask " + n + " (an agent of mmConfigs) a question; this agent's model is not called",
				Input:       &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: "question for " + n}},
			},
			acp.AvailableCommand{
				Name:        frontend.AskCommand(n, true),
				Description: "Ask " + n + " a question, sending this conversation with it",
				Input:       &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: "question for " + n}},
			})
	}
	return s.srv.client().SessionUpdate(ctx, acp.SessionNotification{
		SessionId: acp.SessionId(s.id),
		Update:    acp.SessionUpdate{AvailableCommandsUpdate: &acp.SessionAvailableCommandsUpdate{AvailableCommands: cmds}},
	})
}

// relay runs an /ask… line as the session's prompt. The relay is a tool
// call in the editor, titled and ended as ask_agent's (the same relay,
// started another way), whose id is the prompt's own ("t3"): the consent
// questions of the asked agent, which the relay puts through the session,
// then name its calls as its events do ("t3/expert/call_1"). A command
// that cannot run (no mmConfigs, no question) is an error the editor
// shows; a denied or failed relay ends the call failed, with why.
func (s *session) relay(ctx context.Context, line string) (acp.PromptResponse, error) {
	ctx, v, endTurn := s.beginTurn(ctx)
	defer endTurn()
	name, question, withContext, _ := frontend.ParseAsk(line)
	if s.here.Relay == nil {
		return acp.PromptResponse{}, errFailed(frontend.ErrNoAgents)
	}
	if name == "" || question == "" {
		return acp.PromptResponse{}, errFailed(frontend.ErrAskUsage)
	}
	input, _ := json.Marshal(struct {
		Agent       string `json:"agent"`
		Question    string `json:"question"`
		WithContext bool   `json:"withContext,omitempty"`
	}{name, question, withContext})
	call := orchestrator.Call{ID: "ask", Tool: relay.ToolName, Input: input, Summary: name}
	id := v.askID()
	v.mu.Lock()
	v.start(id, call, false, false)
	v.mu.Unlock()
	res, err := s.here.Ask(ctx, s.mm, line, v.relayed(id, v.show), &consent{s: s})
	if err != nil {
		// The exchange could not be written to the session file; what
		// was shown stays.
		s.srv.log.line("mm: " + err.Error())
	}
	end := orchestrator.Event{Kind: orchestrator.ToolEnd, Call: call, Summary: relay.Summary(name, res)}
	stop := acp.StopReasonEndTurn
	switch {
	case res.Denied:
		v.mu.Lock()
		v.denied(id, call, orchestrator.Event{Output: relay.DeniedOutput(res.Reason)}, false)
		v.mu.Unlock()
		return acp.PromptResponse{StopReason: stop}, nil
	case res.Status == relay.Cancelled:
		end.Status, end.Output = orchestrator.Cancelled, orchestrator.CancelledOutput
		stop = acp.StopReasonCancelled
	case res.Err != nil && res.Status != relay.CutOff:
		end.Status, end.Output = orchestrator.Failed, frontend.AskFailure(line, res, nil)
	default:
		end.Output = res.Answer
	}
	v.mu.Lock()
	v.end(id, end)
	v.mu.Unlock()
	return acp.PromptResponse{StopReason: stop}, nil
}

// askID is the ACP id of the prompt's /ask… call, "t3": the parent callID
// gives an asked agent's calls when no ask_agent call asked them.
func (v *view) askID() string { return strings.TrimSuffix(v.prefix, "/") }

// mcpServers are the MCP servers an editor gave in session/new or
// session/load, as mm's config declares servers: the stdio form (command,
// args, env) and the HTTP form (url, headers), which initialize
// advertises. The SSE and ACP forms are not offered, so an editor sending
// one gets an error that says so; two servers of one name, too.
func mcpServers(list []acp.McpServer) (map[string]config.MCPServer, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := make(map[string]config.MCPServer, len(list))
	for _, s := range list {
		var name string
		var srv config.MCPServer
		switch {
		case s.Stdio != nil:
			name = s.Stdio.Name
			srv = config.MCPServer{Command: s.Stdio.Command, Args: s.Stdio.Args}
			if len(s.Stdio.Env) > 0 {
				srv.Env = make(map[string]string, len(s.Stdio.Env))
				for _, e := range s.Stdio.Env {
					srv.Env[e.Name] = e.Value
				}
			}
			if srv.Command == "" {
				return nil, badServers("server " + name + ": no command")
			}
		case s.Http != nil:
			name = s.Http.Name
			srv = config.MCPServer{URL: s.Http.Url}
			if len(s.Http.Headers) > 0 {
				srv.Headers = make(map[string]string, len(s.Http.Headers))
				for _, h := range s.Http.Headers {
					srv.Headers[h.Name] = h.Value
				}
			}
			if srv.URL == "" {
				return nil, badServers("server " + name + ": no url")
			}
		case s.Sse != nil:
			return nil, badServers("server " + s.Sse.Name + ": mm does not speak MCP over SSE (mcpCapabilities.sse is false): give its stdio or HTTP form")
		default:
			return nil, badServers("a server of a transport mm does not offer (mcpCapabilities: stdio and http)")
		}
		if name == "" {
			return nil, badServers("a server without a name")
		}
		if _, dup := out[name]; dup {
			return nil, badServers("two servers named " + name)
		}
		out[name] = srv
	}
	return out, nil
}

// badServers is the invalid-params error of mcpServers an editor gave,
// its message the one the editor shows.
func badServers(msg string) error {
	return &acp.RequestError{Code: -32602, Message: "mcpServers: " + msg}
}

// afterWriter is the connection's stdout, which the SDK writes one whole
// message at a time: it runs a function once a message naming a session
// is written — session/new's answer — so that what follows it
// (available_commands_update) reaches the editor after the session's id.
type afterWriter struct {
	w io.Writer

	mu     sync.Mutex
	waits  map[string]func()
	closed bool // wait has begun: nothing more starts
	// running are the functions started and not done (Add only under mu,
	// before closed).
	running sync.WaitGroup
}

// wait starts nothing more and waits for what runs.
func (a *afterWriter) wait() {
	a.mu.Lock()
	a.closed = true
	a.waits = nil
	a.mu.Unlock()
	a.running.Wait()
}

// after runs f, on a goroutine of its own, once a message holding
// session id's "sessionId" has been written.
func (a *afterWriter) after(id string, f func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.waits == nil {
		a.waits = map[string]func(){}
	}
	a.waits[`"sessionId":"`+id+`"`] = f
}

func (a *afterWriter) Write(p []byte) (int, error) {
	n, err := a.w.Write(p)
	a.mu.Lock()
	defer a.mu.Unlock()
	for marker, f := range a.waits {
		if bytes.Contains(p, []byte(marker)) {
			delete(a.waits, marker)
			if err == nil && !a.closed {
				a.running.Add(1)
				go func() {
					defer a.running.Done()
					f()
				}()
			}
		}
	}
	return n, err
}
