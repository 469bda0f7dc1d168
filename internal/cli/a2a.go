package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/internal/agent"
	"github.com/mm-agent/mm/relay"
	"github.com/mm-agent/mm/remote"
)

// tokenVar is the variable whose value a served agent requires as its
// bearer token (the contract, "Remote agents (A2A)").
const tokenVar = agent.TokenVar

// serveA2A is mm -a2a <host:port>: the config's agent served to other
// machines, one fresh turn per task, until SIGINT or SIGTERM.
func (a *app) serveA2A(ctx context.Context, addr, publicURL string) error {
	var public *url.URL
	if publicURL != "" {
		u, err := remote.ParsePublicURL(publicURL) // checked by mode: no error
		if err != nil {
			return &exitError{exitFailure, "mm -a2a: --public-url " + err.Error()}
		}
		public = u
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &exitError{exitFailure, fmt.Sprintf("mm -a2a: cannot listen on %s: %s", addr, listenCause(err))}
	}
	ctx, stop := signalContext(ctx)
	defer stop()
	name := agentName(a.Config)
	srv := &remote.Server{
		Agent: &a2aAgent{built: a.built},
		Card: remote.Card{
			Name: name, Description: agentDescription(a.Config),
			Model: a.Config.Model, Version: Version,
		},
		PublicURL: public,
		Token:     os.Getenv(tokenVar),
		MaxDepth:  a.Config.MaxAskDepth,
		Log:       a.io.Err,
	}
	auth := "no token required"
	if srv.Token != "" {
		auth = "bearer token required (" + tokenVar + ")"
	}
	served := ""
	if public != nil {
		served = " · public URL " + public.String()
	}
	fmt.Fprintf(a.io.Err, "mm -a2a: serving %s at http://%s/%s · card /.well-known/agent-card.json · %s\n", name, reachable(ln.Addr()), served, auth)
	if srv.Token == "" && !loopback(ln.Addr()) {
		fmt.Fprintf(a.io.Err, "mm -a2a: warning: %s is not a loopback address and %s is not set: anyone who can reach the port can run this agent and its tools; set %s, or listen on 127.0.0.1\n", addr, tokenVar, tokenVar)
	}
	err = srv.Serve(ctx, ln)
	fmt.Fprintln(a.io.Err, "mm -a2a: stopped")
	return err
}

// checkListenAddr refuses an address net.Listen would refuse with a
// message that does not say what to write: a port alone ("7433") or a
// host alone.
func checkListenAddr(addr string) error {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return nil
	}
	if _, err := strconv.ParseUint(addr, 10, 16); err == nil {
		return fmt.Errorf("%q is a port alone: use :%s (every interface) or host:%s", addr, addr, addr)
	}
	return fmt.Errorf("%q has no port: use %s:PORT, or :PORT for every interface", addr, strings.Trim(addr, "[]"))
}

// reachable is the address a client uses to reach a listener at addr: the
// machine's name for one on every interface (0.0.0.0 or [::], which no
// client can dial), else addr itself.
func reachable(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return addr.String()
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return net.JoinHostPort(host, strconv.Itoa(tcp.Port))
}

// loopback says addr is reachable from this machine alone.
func loopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

func listenCause(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	return err.Error()
}

// agentName is the agent's name on its card: name: in the config, else its
// file's name without the extension.
func agentName(cfg *config.Config) string {
	if cfg.Name != "" {
		return cfg.Name
	}
	if cfg.File == "" {
		return "mm"
	}
	base := filepath.Base(cfg.File)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// agentDescription is the card's description: the first line of the
// system instructions (who the agent is), else a generic one.
func agentDescription(cfg *config.Config) string {
	line, _, _ := strings.Cut(strings.TrimSpace(cfg.System), "\n")
	line = strings.TrimSpace(line)
	if len([]rune(line)) > 200 {
		line = string([]rune(line)[:200]) + "…"
	}
	if line == "" {
		return "an mm agent (" + cfg.Model + ")"
	}
	return line
}

// a2aAgent runs one fresh turn of the agent per A2A task, at the task's
// depth: its hooks see asked.depth, its relays count from it, and what it
// starts — hooks, commands, children — reads it in MM_ASK_DEPTH.
type a2aAgent struct{ built *agent.Agent }

func (s *a2aAgent) Turn(ctx context.Context, t remote.Task) relay.AskResponse {
	return s.built.At(t.Depth).Turn(ctx, t.Prompt, t.Show, t.Consent)
}
