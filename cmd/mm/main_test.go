package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mm-agent/mm/internal/mockmodel"
)

// runs counts the scripts started, for RUNID.
var runs atomic.Int64

// binDir holds the mm binary the scripts run: built once, from this
// package, the way a user builds it (with -race when the tests run so).
var binDir string

func TestMain(m *testing.M) {
	flag.Parse()
	scriptParallelism()
	code := run(m)
	reportSkipped()
	os.Exit(code)
}

func run(m *testing.M) int {
	// A run of this test binary by one of its own tests
	// (TestSkipsAreNamedOrFail) uses the binaries its parent built.
	if dir := os.Getenv(reuseBinDirEnv); dir != "" {
		binDir = dir
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "mm-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// The version is pinned, and no commit recorded, so that banners read
	// the same from any commit (version_test.go builds mm as users do).
	args := []string{"build", "-o", filepath.Join(dir, "mm"), "-buildvcs=false", "-ldflags=-X github.com/mm-agent/mm/internal/cli.version=v0.1.0-dev"}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build mm:", err)
		return 1
	}
	// The standalone scripted model, for scripts that run a demo's command.
	build = exec.Command("go", "build", "-o", filepath.Join(dir, "mockmodel"), "../mockmodel")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build mockmodel:", err)
		return 1
	}
	// The standalone OTLP receiver, for the traces how-to's commands.
	build = exec.Command("go", "build", "-o", filepath.Join(dir, "otlpreceiver"), "../otlpreceiver")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build otlpreceiver:", err)
		return 1
	}
	// mm as `go run ./cmd/mm` builds it in a clone (version "dev"), for the
	// scripts that run the docs' go run commands (testdata/gorun/go).
	build = exec.Command("go", "build", "-o", filepath.Join(dir, "gorun", "mm"), "-buildvcs=false", ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build mm for go run:", err)
		return 1
	}
	// The hooks-http demo's policy server, for its go run command.
	build = exec.Command("go", "build", "-o", filepath.Join(dir, "gorun", "policyserver"), "../../demos/hooks-http/policyserver")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build the policy server:", err)
		return 1
	}
	binDir = dir
	return m.Run()
}

// TestScripts runs every testdata/script/*.txtar: each starts the scripted
// model server, runs the real mm binary with real hook scripts and checks
// what it printed, wrote and sent.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("NO_COLOR", "1")
			// REPO is the repository root, for scripts that run the demos.
			repo, err := filepath.Abs("../..")
			if err != nil {
				return err
			}
			env.Setenv("REPO", repo)
			env.Setenv("NODE_MODULES", filepath.Join(repo, "cmd", "mm", npmDir))
			env.Setenv("GORUN_BIN", filepath.Join(binDir, "gorun"))
			// TUISH drives mm in a real terminal, under tmux (testdata/tui.sh).
			env.Setenv("TUISH", filepath.Join(repo, "cmd", "mm", "testdata", "tui.sh"))
			// RUNID tells this script's run from any other on the machine, for
			// names outside $WORK (tmux servers' sockets).
			env.Setenv("RUNID", fmt.Sprintf("%d-%d", os.Getpid(), runs.Add(1)))
			// Nothing listens there unless the script starts the scripted model.
			env.Setenv("LLMMAN_HOST", "127.0.0.1:9")
			return nil
		},
		Condition: needCondition,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"mockmodel": cmdMockmodel,
			"waitfile":  cmdWaitfile,
			"nopid":     cmdNopid,
			"freeport":  cmdFreeport,
			"waitport":  cmdWaitport,
			"noprocs":   cmdNoprocs,
			// otlpreceiver: otlp_test.go
			"otlpreceiver": cmdOtlpreceiver,
			// nginx: nginx_test.go
			"nginx": cmdNginx,
		},
	})
}

// cmdMockmodel starts the scripted model server for the rest of the script:
//
//	mockmodel [-record FILE] [-profile NAME] SCRIPT
//
// and points mm's llmman provider at it (LLMMAN_HOST), so configs use
// model: llmman/<anything>. MOCKMODEL_URL holds its base URL. -profile
// makes it write as a real server does (ollama, llamacpp, vllm, lmstudio),
// overriding the script's profile. A script may start it again: the last
// one started is the one mm talks to.
func cmdMockmodel(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! mockmodel")
	}
	record, profile := "", ""
	for len(args) > 2 && (args[0] == "-record" || args[0] == "-profile") {
		if args[0] == "-record" {
			record = ts.MkAbs(args[1])
		} else {
			profile = args[1]
		}
		args = args[2:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: mockmodel [-record FILE] [-profile NAME] SCRIPT")
	}
	script, err := mockmodel.LoadScript(ts.MkAbs(args[0]))
	ts.Check(err)
	srv := mockmodel.New(script, record)
	if profile != "" {
		ts.Check(srv.SetProfile(profile))
	}
	url, err := srv.Start("127.0.0.1:0")
	ts.Check(err)
	ts.Defer(func() { srv.Close() })
	ts.Setenv("LLMMAN_HOST", srv.Addr())
	ts.Setenv("MOCKMODEL_URL", url)
}

// cmdWaitfile waits up to 20 s for a file to exist:
//
//	waitfile FILE
func cmdWaitfile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	path := ts.MkAbs(args[0])
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			if neg {
				ts.Fatalf("%s exists", args[0])
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !neg {
		ts.Fatalf("%s did not appear within 20s", args[0])
	}
}

// cmdNopid checks, waiting up to the given time, that no live process has
// the pids listed in FILE (one per line). A zombie counts as gone: it runs
// nothing and holds nothing, and some containers' init never reaps them.
//
//	nopid WITHIN FILE
func cmdNopid(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: nopid WITHIN FILE")
	}
	within, err := time.ParseDuration(args[0])
	ts.Check(err)
	// The file may have been seen by waitfile between its creation and
	// its write (`echo $$ > FILE` opens, then writes): its pids are
	// awaited, whole lines, within the same time.
	deadline := time.Now().Add(within)
	data, err := os.ReadFile(ts.MkAbs(args[1]))
	for err == nil && !strings.HasSuffix(string(data), "\n") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		data, err = os.ReadFile(ts.MkAbs(args[1]))
	}
	ts.Check(err)
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		ts.Check(err)
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		ts.Fatalf("%s lists no pid", args[1])
	}
	for {
		var alive []int
		for _, pid := range pids {
			if processAlive(pid) {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("still running after %s: %v", within, alive)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cmdFreeport sets each VAR to a TCP port on 127.0.0.1 that nothing
// listens on, for servers a script starts (mm -a2a, the JS agent):
//
//	freeport VAR...
func cmdFreeport(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: freeport VAR...")
	}
	for _, v := range args {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		ts.Setenv(v, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
		ln.Close()
	}
}

// cmdWaitport waits up to 20 s for something to listen at HOST:PORT:
//
//	waitport HOST:PORT
func cmdWaitport(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitport HOST:PORT")
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", args[0], time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("nothing listens at %s after 20s", args[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cmdNoprocs checks, waiting up to the given time, that no live process
// started by this script is left: none whose environment carries the
// script's RUNID (every process the script starts inherits it, and passes
// it on unless it clears its environment) — with MARKER, none of those
// whose command line contains MARKER. On failure it lists them.
//
//	noprocs WITHIN [MARKER]
func cmdNoprocs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: noprocs WITHIN [MARKER]")
	}
	within, err := time.ParseDuration(args[0])
	ts.Check(err)
	match := func(pid string) bool {
		if len(args) == 2 {
			cl, _ := os.ReadFile("/proc/" + pid + "/cmdline")
			if !strings.Contains(strings.ReplaceAll(string(cl), "\x00", " "), args[1]) {
				return false
			}
		}
		env, _ := os.ReadFile("/proc/" + pid + "/environ")
		for _, kv := range strings.Split(string(env), "\x00") {
			if kv == "RUNID="+ts.Getenv("RUNID") {
				return true
			}
		}
		return false
	}
	self := strconv.Itoa(os.Getpid())
	deadline := time.Now().Add(within)
	for {
		var left []string
		names, err := filepath.Glob("/proc/[0-9]*")
		ts.Check(err)
		for _, n := range names {
			pid := filepath.Base(n)
			if pid == self || !match(pid) {
				continue
			}
			if p, _ := strconv.Atoi(pid); processAlive(p) {
				cl, _ := os.ReadFile(n + "/cmdline")
				left = append(left, pid+" "+strings.TrimSpace(strings.ReplaceAll(string(cl), "\x00", " ")))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("still running after %s:\n%s", within, strings.Join(left, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processAlive reports whether pid is a process that is not a zombie.
func processAlive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	return s[i+2] != 'Z' && s[i+2] != 'X'
}

// npmDir holds the real MCP servers, the ACP client library and the A2A
// SDK the scripts drive, installed from npm (npm ci --prefix cmd/mm/testdata/npm).
const npmDir = "testdata/npm/node_modules"
