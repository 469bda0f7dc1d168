// Command mm is a command-line agent for local models with hooks and relays.
package main

import (
	"os"

	"github.com/mm-agent/mm/internal/cli"
)

func main() { os.Exit(cli.Main()) }
