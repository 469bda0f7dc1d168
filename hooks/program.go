package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ProgramProblem is why a hook's program cannot run, found before any
// hook runs: a guard whose script is missing would otherwise fail at
// every run — silently letting every call through under onError: warn.
type ProgramProblem struct {
	// Program is the program or script as the command names it.
	Program string
	// Problem says what is wrong, Fix what to do.
	Problem, Fix string
}

func (p *ProgramProblem) String() string {
	return fmt.Sprintf("%s %s: %s", p.Program, p.Problem, p.Fix)
}

// interpreters are programs whose first argument is the script they run
// (sh ./hooks/guard.sh): the script is checked too.
var interpreters = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "node": true, "python": true, "python3": true, "perl": true, "ruby": true, "deno": true, "bun": true}

// shellWords are the builtins and keywords of sh: a command starting with
// one runs no program mm could look for.
var shellWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(": . [ [[ ! { } alias bg break cd command continue echo eval exec exit export false fc fg getopts hash jobs kill local printf pwd read readonly return set shift source test times trap true type ulimit umask unalias unset wait if then else elif fi for while until do done case esac in function") {
		shellWords[w] = true
	}
}

// CheckProgram looks for the program h's command starts with (and, for an
// interpreter, the script it runs) as sh would find it when the hook runs
// in cwd with PATH path: a relative path against cwd, a bare name in
// PATH. Only what can be read without running anything is checked
// ($MM_CONFIG_DIR is expanded; a word with another variable, a quote
// mm cannot follow, or a shell keyword is left alone); nil when nothing
// is wrong or nothing could be checked.
func CheckProgram(h Hook, cwd, path string) *ProgramProblem {
	words := commandWords(h.Command, h.ConfigDir)
	if len(words) == 0 {
		return nil
	}
	prog := words[0]
	if p := checkWord(prog, h, cwd, path, true); p != nil {
		return p
	}
	if interpreters[filepath.Base(prog)] && len(words) > 1 && !strings.HasPrefix(words[1], "-") && strings.Contains(words[1], "/") {
		return checkWord(words[1], h, cwd, path, false)
	}
	return nil
}

// commandWords are the first words of command up to a shell operator,
// leading NAME=value assignments dropped, $MM_CONFIG_DIR expanded; nil
// when a word holds something mm cannot read without a shell.
func commandWords(command, configDir string) []string {
	command = strings.NewReplacer("${MM_CONFIG_DIR}", configDir, "$MM_CONFIG_DIR", configDir).Replace(command)
	var words []string
	for _, w := range strings.Fields(command) {
		if strings.ContainsAny(w, ";|&<>()`") {
			break
		}
		if len(words) == 0 && strings.Contains(w, "=") && !strings.HasPrefix(w, "=") && !strings.ContainsAny(w[:strings.Index(w, "=")], `/"'`) {
			continue // VAR=value before the program
		}
		if strings.Count(w, `"`)%2 == 1 || strings.Count(w, "'")%2 == 1 || strings.ContainsAny(w, `$\*?~`) {
			if len(words) == 0 {
				return nil
			}
			break
		}
		words = append(words, strings.NewReplacer(`"`, "", `'`, "").Replace(w))
		if len(words) == 2 {
			break
		}
	}
	return words
}

// checkWord checks one program or script; exe: it must be executable.
func checkWord(w string, h Hook, cwd, path string, exe bool) *ProgramProblem {
	if !strings.Contains(w, "/") {
		if !exe || shellWords[w] {
			return nil
		}
		for _, dir := range filepath.SplitList(path) {
			if dir == "" {
				continue
			}
			if st, err := os.Stat(filepath.Join(dir, w)); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return nil
			}
		}
		return &ProgramProblem{Program: w, Problem: "is not found in PATH", Fix: "install it, or write its full path in the hook's command"}
	}
	abs := w
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, w)
	}
	st, err := os.Stat(abs)
	if err != nil {
		p := &ProgramProblem{Program: w, Problem: "is not found (" + abs + ")"}
		if !filepath.IsAbs(w) && h.ConfigDir != "" && h.ConfigDir != cwd {
			if _, err := os.Stat(filepath.Join(h.ConfigDir, w)); err == nil {
				p.Fix = fmt.Sprintf("a hook runs in the session's directory, and the file is next to the config: write \"$MM_CONFIG_DIR/%s\" in the command", strings.TrimPrefix(w, "./"))
				return p
			}
		}
		p.Fix = "fix the path (a relative one is relative to the session's directory; $MM_CONFIG_DIR is the config's)"
		return p
	}
	if exe && (st.IsDir() || st.Mode()&0o111 == 0) {
		if st.IsDir() {
			return &ProgramProblem{Program: w, Problem: "is a directory", Fix: "name the program in it"}
		}
		return &ProgramProblem{Program: w, Problem: "is not executable", Fix: "chmod +x " + abs}
	}
	return nil
}
