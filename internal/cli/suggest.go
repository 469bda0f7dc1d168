package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mm-agent/mm/config"
)

// unknownCommand is the error of a word that is no subcommand of cmd
// ("mm hooks tset"): exit 1 with cobra's nearest subcommand, so a CI
// check with a typo fails instead of printing the help and passing.
func unknownCommand(cmd *cobra.Command, arg string) error {
	setSuggestionDistance(cmd)
	msg := fmt.Sprintf("mm: unknown command %q for %q", arg, cmd.CommandPath())
	if s := cmd.SuggestionsFor(arg); len(s) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", s[0])
	} else {
		msg += fmt.Sprintf(" (see %s --help)", cmd.CommandPath())
	}
	return &exitError{exitFailure, msg}
}

// subcommandsOnly are the Args and RunE of a command that only groups
// subcommands (mm hooks): alone it prints its help; anything else is an
// unknown command.
func subcommandsOnly(cmd *cobra.Command) {
	cmd.Args = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return unknownCommand(c, args[0])
		}
		return nil
	}
	cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
}

// flagError adds a did-you-mean to pflag's "unknown flag: --modle".
func flagError(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var known []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			known = append(known, f.Name)
		}
	}
	cmd.Flags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	if hint := config.DidYouMean(name, known); hint != "" {
		// "; did you mean \"model\"?" → "; did you mean \"--model\"?"
		return &exitError{exitFailure, "mm: " + err.Error() + strings.Replace(hint, `"`, `"--`, 1)}
	}
	return err
}

// setSuggestionDistance makes cobra suggest subcommands within two edits
// (a swap, "tset"), as its own unknown-command error does.
func setSuggestionDistance(cmd *cobra.Command) {
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
}
