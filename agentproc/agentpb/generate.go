// Package agentpb is the generated gRPC code of agent.proto, the service an
// asked agent's process serves to the agent that asks it.
package agentpb

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative agent.proto
