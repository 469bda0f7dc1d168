package tools

import "context"

type envKey struct{}

// WithEnv makes env the environment of the commands the tools run for ctx,
// instead of mm's own: a served agent (mm -a2a) runs tasks of different
// relay depths at once, and each task's commands must read its own
// MM_ASK_DEPTH, or a relay loop through the shell would not be bounded.
func WithEnv(ctx context.Context, env []string) context.Context {
	return context.WithValue(ctx, envKey{}, env)
}

func envFrom(ctx context.Context) []string {
	env, _ := ctx.Value(envKey{}).([]string)
	return env
}
