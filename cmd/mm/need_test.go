package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// requireAllEnv, when set (CI sets it), makes a script that would skip for
// a missing tool fail instead: a skipped test is not a passed test.
const requireAllEnv = "MM_REQUIRE_ALL"

// hideNeedsEnv names needs (comma-separated) to treat as missing: the
// harness's own test (TestSkipsAreNamedOrFail) uses it to see what a run
// without them does.
const hideNeedsEnv = "MM_TEST_HIDE_NEEDS"

// reuseBinDirEnv gives such a run the directory of the binaries its
// parent built, so that it does not build them again.
const reuseBinDirEnv = "MM_TEST_BIN_DIR"

// A need is something a script can require with a condition of its name,
// written at its top as
//
//	[!tmux] skip 'tmux is not installed'
//
// Without it the script skips (and the run's end names it), unless
// MM_REQUIRE_ALL is set: then the condition is an error and the script
// fails, saying what to install.
type need struct {
	present func() bool
	install string // the command that provides it
}

var needs = map[string]need{
	"npm": {
		present: func() bool {
			for _, pkg := range []string{"@modelcontextprotocol/server-filesystem", "@agentclientprotocol/sdk", "@a2a-js/sdk", "@google/gemini-cli-a2a-server"} {
				if _, err := os.Stat(filepath.Join(npmDir, pkg)); err != nil {
					return false
				}
			}
			return true
		},
		install: "npm ci --prefix cmd/mm/testdata/npm",
	},
	"tmux":  {present: onPath("tmux"), install: "apt-get install tmux"},
	"bwrap": {present: onPath("bwrap"), install: "apt-get install bubblewrap"},
	// nginx in front of mm -a2a backends (the nginx command, nginx_test.go).
	"nginx": {present: func() bool { return nginxPath() != "" }, install: "apt-get install nginx-light"},
	// netns: a network namespace of the script's own (unshare -rn, with
	// loopback up by ip, joined by nsenter), for servers that listen on
	// all interfaces or call the internet (the Gemini CLI A2A server);
	// .ci/setup checks that user namespaces allow it.
	"netns": {present: netnsWorks, install: "apt-get install iproute2"},
}

// netnsWorks reports whether this machine lets the tests make a network
// namespace with loopback up, and join it.
func netnsWorks() bool {
	if _, err := exec.LookPath("nsenter"); err != nil {
		return false
	}
	return exec.Command("unshare", "-rn", "ip", "link", "set", "lo", "up").Run() == nil
}

func onPath(name string) func() bool {
	return func() bool {
		_, err := exec.LookPath(name)
		return err == nil
	}
}

// skipped counts, by need, the scripts that found it missing.
var skipped = struct {
	sync.Mutex
	by map[string]int
}{by: map[string]int{}}

// needCondition is the scripts' Condition: the needs above.
func needCondition(cond string) (bool, error) {
	n, ok := needs[cond]
	if !ok {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	hidden := strings.Contains(","+os.Getenv(hideNeedsEnv)+",", ","+cond+",")
	if !hidden && n.present() {
		return true, nil
	}
	if os.Getenv(requireAllEnv) != "" {
		return false, fmt.Errorf("%s is missing and %s is set: run %s", cond, requireAllEnv, n.install)
	}
	skipped.Lock()
	skipped.by[cond]++
	skipped.Unlock()
	return false, nil
}

// reportSkipped says, at the end of a run, how many scripts skipped, why,
// and what enables them. go test shows a passing package's output only
// with -v, so the report also goes to the terminal when there is one.
func reportSkipped() {
	skipped.Lock()
	defer skipped.Unlock()
	if len(skipped.by) == 0 {
		return
	}
	names := make([]string, 0, len(skipped.by))
	total := 0
	for n, c := range skipped.by {
		names = append(names, n)
		total += c
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "cmd/mm: %d end-to-end script(s) SKIPPED:\n", total)
	for _, n := range names {
		fmt.Fprintf(&b, "  %d need %s: %s\n", skipped.by[n], n, needs[n].install)
	}
	fmt.Fprintf(&b, "  (set %s=1 to make a skip a failure, as CI does)\n", requireAllEnv)
	os.Stdout.WriteString(b.String())
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		io.WriteString(tty, b.String())
		tty.Close()
	}
}

// scriptParallelism lets more scripts run at once than there are CPUs
// unless -parallel was given: a script spends most of its time waiting for
// the processes it starts.
func scriptParallelism() {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", fmt.Sprint(3*runtime.GOMAXPROCS(0)))
	}
}
