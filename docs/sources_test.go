package docs

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The pages are for someone with the repository and nothing else: they
// cite no issue of a tracker the reader cannot see, and none calls itself
// a rendering of another document (the project's design documents, some
// of them in French, are not part of it).
var unseen = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`(?i)\b(issue|ticket|bug)s? #?[0-9]+`), "cites an issue the reader cannot see: say what it was"},
	{regexp.MustCompile(`(?i)\brenders? the\b.*?\breference\b`), "presents the page as a rendering of a document the reader does not have: say what the page is"},
	{regexp.MustCompile(`(?i)\b(French|English) (version|original|reference|text)\b|\bin (French|English)\b`), "leans on a version of the docs in another language, which the reader does not have"},
	{regexp.MustCompile(`(?i)where the reference leaves`), "refers to a reference other than the page itself"},
}

func TestDocsNameNoUnseenSource(t *testing.T) {
	var files []string
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata" || d.Name() == "dist") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if len(files) < 10 {
		t.Fatalf("found %d Markdown files", len(files))
	}
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		in, n := false, 0
		for sc.Scan() {
			n++
			line := sc.Text()
			if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
				in = !in
				continue
			}
			if in { // examples say what programs print, not what the page is
				continue
			}
			for _, u := range unseen {
				if m := u.re.FindString(line); m != "" {
					t.Errorf("%s:%d: %q %s", filepath.ToSlash(rel), n, m, u.why)
				}
			}
		}
		f.Close()
	}
}
