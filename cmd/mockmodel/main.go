// Command mockmodel serves a scripted OpenAI-compatible model on loopback,
// a test fixture for running mm offline in end-to-end tests and demos:
//
//	mockmodel [-addr 127.0.0.1:0] [-record FILE] [-profile NAME] SCRIPT [-- COMMAND [ARGS...]]
//
// With a COMMAND it runs it with LLMMAN_HOST and MOCKMODEL_URL pointing at
// the server, so `mockmodel demo.yaml -- mm -p "hello"` talks to the script,
// and exits with the command's exit code. Without one it prints the base URL
// and serves until SIGINT or SIGTERM. See package github.com/mm-agent/mm/internal/mockmodel for
// the script format.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mm-agent/mm/internal/mockmodel"
)

func main() {
	os.Exit(run())
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: mockmodel [-addr 127.0.0.1:0] [-record FILE] [-profile NAME] SCRIPT [-- COMMAND [ARGS...]]")
}

func run() int {
	fs := flag.NewFlagSet("mockmodel", flag.ContinueOnError)
	fs.Usage = func() {
		usage()
		fs.PrintDefaults()
	}
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	// MOCKMODEL_RECORD lets a test record the requests of a command it runs
	// as a doc writes it (go run ./cmd/mockmodel …, without -record).
	record := fs.String("record", os.Getenv("MOCKMODEL_RECORD"), "append every request to this file as one JSON line (default $MOCKMODEL_RECORD)")
	profile := fs.String("profile", "", "write as this real server does: "+strings.Join(mockmodel.ProfileNames(), ", ")+" (overrides the script's profile)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	args := fs.Args()
	if len(args) == 0 || (len(args) > 1 && (args[1] != "--" || len(args) < 3)) {
		usage()
		return 2
	}
	script, err := mockmodel.LoadScript(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "mockmodel:", oneLine(err))
		return 2
	}
	srv := mockmodel.New(script, *record)
	if *profile == "" {
		*profile = script.Profile
	}
	if err := srv.SetProfile(*profile); *profile != "" && err != nil {
		fmt.Fprintln(os.Stderr, oneLine(err))
		return 2
	}
	baseURL, err := srv.Start(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, oneLine(err))
		return 1
	}
	defer srv.Close()

	// Installed before the command starts so that no signal is lost between.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	if len(args) == 1 {
		fmt.Println(baseURL)
		<-sigs
		return 0
	}

	cmd := exec.Command(args[2], args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(),
		"LLMMAN_HOST="+srv.Addr(),
		"MOCKMODEL_URL="+baseURL)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "mockmodel:", oneLine(err))
		if errors.Is(err, exec.ErrNotFound) {
			return 127
		}
		return 126
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	for {
		select {
		case sig := <-sigs:
			cmd.Process.Signal(sig)
		case err := <-waited:
			return exitCode(err)
		}
	}
}

// exitCode turns the command's end into ours, using the shell's 128+signal
// convention for a command killed by a signal.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		fmt.Fprintln(os.Stderr, "mockmodel:", oneLine(err))
		return 1
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}

// oneLine keeps an error to a single line of stderr (YAML errors can span
// several).
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
