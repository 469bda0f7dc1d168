package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// readmeBlocks returns the fenced blocks that follow marker
// (<!-- run by: cmd/mm/readme_test.go -->, …) in README.md, in order.
func readmeBlocks(t *testing.T, marker string) []string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)" + regexp.QuoteMeta(marker) + "\\s*```[a-z]*\\n(.*?)\\n```")
	var out []string
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		out = append(out, m[1])
	}
	if len(out) == 0 {
		t.Fatalf("README.md has no code block after %s", marker)
	}
	return out
}

// TestReadmeDemo runs the README's offline demo command as a newcomer
// would, with go run from the repository root, and compares what it
// prints with the output the README shows.
func TestReadmeDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mm and mockmodel with go run")
	}
	command := strings.TrimSpace(readmeBlocks(t, "<!-- run by: cmd/mm/readme_test.go -->")[0])
	want := readmeBlocks(t, "<!-- checked by: cmd/mm/readme_test.go -->")[0]
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
	if got := strings.TrimSuffix(string(out), "\n"); got != want {
		t.Errorf("the demo printed\n%s\nwhere the README shows\n%s", got, want)
	}
}

// TestReadmeTestCommand keeps the README's test instructions and CI's the
// same: .ci/setup, then the test command with MM_REQUIRE_ALL set, so that
// a missing tool fails the run instead of skipping scripts.
func TestReadmeTestCommand(t *testing.T) {
	blocks := readmeBlocks(t, "<!-- run by: .ci/run -->")
	if len(blocks) != 2 || strings.TrimSpace(blocks[0]) != ".ci/setup" {
		t.Fatalf("README.md's test section should show .ci/setup, then the test command; it shows %q", blocks)
	}
	command := strings.TrimSpace(blocks[1])
	if !strings.HasPrefix(command, requireAllEnv+"=1 go test ") {
		t.Errorf("the README's test command %q does not set %s: a missing tool would skip scripts", command, requireAllEnv)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	setup := strings.Index(string(ci), "\n.ci/setup\n")
	test := strings.Index(string(ci), "\n"+command+"\n")
	if setup < 0 || test < setup {
		t.Errorf(".ci/run does not run .ci/setup, then the README's test command %q", command)
	}
}

// TestReadmeSetupInstallsEveryNeed checks that .ci/setup, the README's one
// install step, provides every need a script may skip for, so that the
// README's instructions run every script.
func TestReadmeSetupInstallsEveryNeed(t *testing.T) {
	setup, err := os.ReadFile("../../.ci/setup")
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range needs {
		provided := strings.Contains(string(setup), n.install)
		if pkg, ok := strings.CutPrefix(n.install, "apt-get install "); ok {
			provided = strings.Contains(string(setup), "need+=("+pkg+")")
		}
		if !provided {
			t.Errorf("scripts skip without %s, and .ci/setup does not install it (%s)", name, n.install)
		}
	}
}

// TestScriptsSkipOnlyForNeeds checks that a script skips only for a need
// ([!tmux] skip …): any other condition would skip without the run's end
// saying so, and without MM_REQUIRE_ALL making it fail.
func TestScriptsSkipOnlyForNeeds(t *testing.T) {
	scripts, err := filepath.Glob("testdata/script/*.txtar")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	skip := regexp.MustCompile(`^((\[[^]]*\]\s*)*)skip\b`)
	cond := regexp.MustCompile(`\[!?([^]]*)\]`)
	for _, path := range scripts {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		script, _, _ := strings.Cut(string(data), "\n-- ")
		for i, line := range strings.Split(script, "\n") {
			m := skip.FindStringSubmatch(strings.TrimSpace(line))
			if m == nil {
				continue
			}
			conds := cond.FindAllStringSubmatch(m[1], -1)
			if len(conds) != 1 || !strings.HasPrefix(m[1], "[!") {
				t.Errorf("%s:%d: %q: a script skips only as [!<need>] skip '…', a need of need_test.go", path, i+1, line)
				continue
			}
			if _, ok := needs[conds[0][1]]; !ok {
				t.Errorf("%s:%d: %q skips for %q, which is not a need of need_test.go: the run would not say it skipped", path, i+1, line, conds[0][1])
			}
		}
	}
}

// TestReadmeCommandsTable checks the README's table of commands against
// mm's help: every flag of mm, and every hooks subcommand, has its row,
// and the table names no flag mm does not have.
func TestReadmeCommandsTable(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(data), "\n## Using mm\n")
	section, _, _ = strings.Cut(section, "\n## ")
	var table strings.Builder
	for _, l := range strings.Split(section, "\n") {
		if cells := strings.Split(l, " | "); strings.HasPrefix(l, "| `mm") && len(cells) > 1 {
			table.WriteString(cells[0] + "\n")
		}
	}
	if table.Len() == 0 {
		t.Fatal("README.md has no table of commands under ## Using mm")
	}
	help := func(args ...string) string {
		out, err := exec.Command(filepath.Join(binDir, "mm"), args...).CombinedOutput()
		if err != nil {
			t.Fatalf("mm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// A flag's line of the help: "  -p, --prompt string  …" or "      -tui  …".
	flagRe := regexp.MustCompile(`(?m)^\s+(?:(-\w), )?(--?[a-z][a-z0-9-]*)`)
	var flags []string
	shown := func(f string) bool {
		return f != "" && regexp.MustCompile("(^|[ `/])"+regexp.QuoteMeta(f)+"($|[ `=])").MatchString(table.String())
	}
	for _, m := range flagRe.FindAllStringSubmatch(help("--help"), -1) {
		short, long := m[1], m[2]
		flags = append(flags, short, long)
		if long == "--help" || long == "--version" {
			continue
		}
		if !shown(short) && !shown(long) {
			t.Errorf("the README's table of commands has no row for %s", long)
		}
	}
	_, commands, _ := strings.Cut(help("hooks", "--help"), "Available Commands:\n")
	commands, _, _ = strings.Cut(commands, "\n\n")
	for _, m := range regexp.MustCompile(`(?m)^  (\w+)\s`).FindAllStringSubmatch(commands, -1) {
		if !strings.Contains(table.String(), "`mm hooks "+m[1]) {
			t.Errorf("the README's table of commands has no row for mm hooks %s", m[1])
		}
	}
	for _, m := range regexp.MustCompile("(?:^|[ `])(--?[a-z][a-z0-9-]*)").FindAllStringSubmatch(table.String(), -1) {
		if f := m[1]; f != "--" && !slices.Contains(flags, f) && !slices.Contains(flags, "-"+f) {
			t.Errorf("the README's table of commands shows %s, which mm --help does not list", f)
		}
	}
}

// TestSkipsAreNamedOrFail runs a script that needs tmux as if tmux were
// missing, in a run of this test binary of its own: without MM_REQUIRE_ALL
// the run passes and its end names the skipped script, its need and the
// command that provides it; with MM_REQUIRE_ALL=1 (as CI and the README's
// test command set it) the run fails, saying what to install. A skipped
// test is not a passed test.
func TestSkipsAreNamedOrFail(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	run := func(requireAll bool) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestScripts$/^tui_markdown$", "-test.count=1")
		var env []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, requireAllEnv+"=") {
				env = append(env, kv)
			}
		}
		env = append(env, hideNeedsEnv+"=tmux", reuseBinDirEnv+"="+binDir)
		if requireAll {
			env = append(env, requireAllEnv+"=1")
		}
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(false)
	if err != nil {
		t.Fatalf("without %s, a run that skips should pass: %v\n%s", requireAllEnv, err, out)
	}
	for _, want := range []string{"cmd/mm: 1 end-to-end script(s) SKIPPED:\n", "  1 need tmux: apt-get install tmux\n", "(set MM_REQUIRE_ALL=1 to make a skip a failure, as CI does)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the run's end does not say %q:\n%s", want, out)
		}
	}
	out, err = run(true)
	if err == nil {
		t.Fatalf("with %s=1, a script that would skip should fail the run:\n%s", requireAllEnv, out)
	}
	if !strings.Contains(out, "tmux is missing and MM_REQUIRE_ALL is set: run apt-get install tmux") {
		t.Errorf("the failure does not say what to install:\n%s", out)
	}
}
