// Package attach expands the lines of a question that pull content in:
// "@path" attaches a file, "$skill" adds a skill's instructions. Hooks see
// the question as typed; the model reads it expanded, with each piece
// framed so the model (and a reader of the session file) sees where it
// starts and ends.
package attach

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"
)

// MaxFile is how much of an attached file the model reads.
const MaxFile = 64 << 10

// Expander expands @path and $skill lines.
type Expander struct {
	Dir string // relative @paths are read from here (the session's directory)
	// Skills maps a skill's name to its Markdown file: the config's skills,
	// then every <name>.md in the skills/ folder next to the config.
	Skills map[string]string
}

var (
	fileLine  = regexp.MustCompile(`^@(\S+)$`)
	skillLine = regexp.MustCompile(`^\$([A-Za-z0-9][A-Za-z0-9_.-]*)$`)
)

// Expand returns prompt with each line that is "@path" alone replaced by
// the file, and each line that is "$name" alone, naming a known skill, by
// the skill. Other lines are left as they are.
func (e *Expander) Expand(prompt string) string {
	lines := strings.Split(prompt, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if m := fileLine.FindStringSubmatch(t); m != nil {
			lines[i] = e.file(m[1])
		} else if m := skillLine.FindStringSubmatch(t); m != nil {
			if path, ok := e.Skills[m[1]]; ok {
				lines[i] = skill(m[1], path)
			}
		}
	}
	return strings.Join(lines, "\n")
}

func (e *Expander) file(name string) string {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.Dir, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("[file %s: cannot be read: %s]", name, reason(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return fmt.Sprintf("[file %s: cannot be read: %s]", name, reason(err))
	}
	body := string(data)
	if len(data) > MaxFile {
		cut := MaxFile
		for cut > 0 && !utf8.RuneStart(data[cut]) {
			cut--
		}
		total := int64(len(data))
		if st, err := f.Stat(); err == nil {
			total = st.Size()
		}
		body = string(data[:cut]) + fmt.Sprintf("\n[… truncated: %s is %d bytes; the first %d are shown]", name, total, cut)
	}
	return "[file " + name + "]\n" + strings.TrimRight(body, "\n") + "\n[end of file " + name + "]"
}

func skill(name, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("[skill %s: cannot be read: %s]", name, reason(err))
	}
	return "[skill " + name + "]\n" + strings.TrimRight(string(data), "\n") + "\n[end of skill " + name + "]"
}

func reason(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// SkillsIn lists the skills of a folder: every <name>.md file.
func SkillsIn(dir string) map[string]string {
	out := map[string]string{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			out[strings.TrimSuffix(e.Name(), ".md")] = filepath.Join(dir, e.Name())
		}
	}
	return out
}
