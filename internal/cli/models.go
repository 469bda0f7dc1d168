package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/mm-agent/mm/config"
	"github.com/mm-agent/mm/internal/model"
)

// modelsTimeout bounds the whole listing: a list of names is no long
// generation, and a server that does not answer should not hold the
// command for idleTimeout's five minutes.
const modelsTimeout = 30 * time.Second

// newCmdModels is mm models: which models the configured server has, so
// a user can pick one without leaving mm (the contract's "Local models as
// they are").
func newCmdModels(ios *IOStreams, root *rootOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "models [provider]",
		Short: "List the models of the configured model server (or of provider), marking the configured one",
		Long: `List the models the configured provider's server has (GET <baseURL>/models),
the configured model marked with *. For Ollama (the ollama provider) each
model's context length, the num_ctx it runs with when its parameters set
one, and whether it takes tools come from Ollama's own API; vLLM says each
model's context length. With a provider name, list that provider's models.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := root.loadConfig()
			if err != nil {
				return err
			}
			ref := cfg.Model
			if len(args) == 1 {
				if prov, _, _ := strings.Cut(ref, "/"); prov != args[0] {
					ref = args[0] + "/-" // another provider: no model of it is configured
				}
			}
			ep, err := cfg.Resolve(ref)
			if err != nil {
				return &exitError{exitFailure, (&config.Error{Path: cfg.Path, Msg: err.Error()}).Error()}
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), modelsTimeout)
			defer cancel()
			return listModels(ctx, ios, ep)
		},
	}
}

// listModels writes ep's server's models, one a line.
func listModels(ctx context.Context, ios *IOStreams, ep config.Endpoint) error {
	c := &model.Client{BaseURL: ep.BaseURL, APIKey: ep.APIKey, Hint: ep.Hint, Provider: ep.Provider, APIKeyEnv: ep.APIKeyEnv}
	ms, err := c.Models(ctx)
	if err != nil {
		return modelsError(ctx, err)
	}
	if ep.Provider == "ollama" {
		// Ollama reads each model's file to describe it: a few at a time.
		var g errgroup.Group
		g.SetLimit(4)
		for i := range ms {
			g.Go(func() error {
				err := c.OllamaShow(ctx, &ms[i])
				var me *model.Error
				if errors.As(err, &me) && me.Kind == model.ErrStatus {
					return nil // this model undescribed; the others may be
				}
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return modelsError(ctx, err)
		}
	}
	w := tabwriter.NewWriter(ios.Out, 0, 0, 2, ' ', 0)
	found := false
	for _, m := range ms {
		mark := " "
		if m.ID == ep.Model {
			mark, found = "*", true
		}
		cols := []string{mark + " " + m.ID}
		switch {
		case m.ContextLength > 0 && m.NumCtx > 0:
			cols = append(cols, "context "+strconv.Itoa(m.ContextLength)+" (num_ctx "+strconv.Itoa(m.NumCtx)+")")
		case m.ContextLength > 0:
			cols = append(cols, "context "+strconv.Itoa(m.ContextLength))
		case m.Tools != nil:
			cols = append(cols, "")
		}
		if m.Tools != nil {
			if *m.Tools {
				cols = append(cols, "tools")
			} else {
				cols = append(cols, "no tools")
			}
		}
		fmt.Fprintln(w, strings.TrimRight(strings.Join(cols, "\t"), "\t"))
	}
	w.Flush()
	if len(ms) == 0 {
		fmt.Fprintln(ios.Err, "mm: the model server at "+strings.TrimRight(ep.BaseURL, "/")+" lists no models")
	}
	if !found && ep.Model != "-" {
		msg := "mm: the configured model " + strconv.Quote(ep.Model) + " is not among them"
		if ep.Provider == "ollama" {
			msg += "; run: ollama pull " + ep.Model
		}
		fmt.Fprintln(ios.Err, msg)
	}
	return nil
}

// modelsError is the one line of a listing that failed.
func modelsError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &exitError{exitFailure, "mm: the model server did not list its models within " + model.Duration(modelsTimeout)}
	}
	if ctx.Err() != nil {
		return errInterrupted
	}
	return &exitError{exitFailure, err.Error()}
}
