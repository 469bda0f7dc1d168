package agentproc

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/mm-agent/mm/agentproc/agentpb"
)

// grpcPlugin is the go-plugin glue, each side given its domain type: the
// child serves an Agent (server), the host gets a relay.Asker (client).
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	srv *server // child side only
}

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	agentpb.RegisterAgentServer(s, p.srv)
	return nil
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (interface{}, error) {
	return client{rpc: agentpb.NewAgentClient(c), conn: c}, nil
}
