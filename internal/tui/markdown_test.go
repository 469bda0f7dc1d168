package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// plain renders text as the window's Markdown for width and returns its
// lines without styles.
func plain(text string, width int) []string {
	lines := newMarkdown().render(clean(text), width)
	for i, l := range lines {
		lines[i] = ansi.Strip(l)
	}
	return lines
}

func TestMarkdownBlocks(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		width int // 40 when 0
		want  []string
	}{
		{
			name: "the model's line breaks are kept (issue 23)",
			text: "Here is the folder:\nagent.yaml\nhooks/guard.sh",
			want: []string{"Here is the folder:", "agent.yaml", "hooks/guard.sh"},
		},
		{
			name: "inline code gets no spaces around it (issue 23)",
			text: "Run `ls -la` now, or `pwd`.",
			want: []string{"Run ls -la now, or pwd."},
		},
		{
			name: "headings",
			text: "# Title #\n\nSome text.\n\n### Third level\nSetext\n------",
			want: []string{"Title", "", "Some text.", "", "Third level", "Setext"},
		},
		{
			name: "not headings",
			text: "#hashtag\n\\# escaped",
			want: []string{"#hashtag", "# escaped"},
		},
		{
			name:  "bullet lists, nested, with a wrapped item and a lazy line",
			text:  "Files:\n- one\n- two words that wrap\n  - nested\n    1. deep\n* other list\ncontinued",
			width: 13,
			want: []string{
				"Files:",
				"• one",
				"• two words",
				"  that wrap",
				"  ◦ nested",
				"    1. deep",
				"• other list",
				"  continued",
			},
		},
		{
			name: "ordered lists number from their start, loose items keep their blank line",
			text: "3. three\n3. four\n\n3. five\n\n   more of five\n\n9) other",
			want: []string{"3. three", "4. four", "", "5. five", "", "   more of five", "", "9) other"},
		},
		{
			name: "numbers line up",
			text: "9. nine\n10. ten",
			want: []string{" 9. nine", "10. ten"},
		},
		{
			name: "fenced code keeps its whitespace, blank lines and Markdown",
			text: "Code:\n```go\nfunc main() {\n\tif x  {   // two  spaces\n\n        **not bold**\n}\n```\nafter",
			want: []string{
				"Code:",
				"  func main() {",
				"      if x  {   // two  spaces",
				"",
				"          **not bold**",
				"  }",
				"after",
			},
		},
		{
			name: "an unclosed fence runs to the end; tildes fence too",
			text: "~~~\n# not a heading\n```\nstill code",
			want: []string{"  # not a heading", "  ```", "  still code"},
		},
		{
			name: "indented code",
			text: "Text.\n\n    $ mm version\n      indented more",
			want: []string{"Text.", "", "  $ mm version", "    indented more"},
		},
		{
			name: "code in a list item",
			text: "- run:\n  ```sh\n  echo  hi\n  ```\n- done",
			want: []string{"• run:", "    echo  hi", "• done"},
		},
		{
			name: "block quote, with a list in it",
			text: "> quoted\nlazy line\n> - item",
			want: []string{"│ quoted", "│ lazy line", "│ • item"},
		},
		{
			name: "rules",
			text: "above\n\n***\n\n- - -",
			want: []string{"above", "", strings.Repeat("─", 40), "", strings.Repeat("─", 40)},
		},
		{
			name: "table, aligned",
			text: "| Name | Size | Note |\n|:-----|-----:|:----:|\n| a.txt | 10 | ok |\n| b | 12345 | `x\\|y` fine \\| too |",
			want: []string{
				"Name  │  Size │      Note",
				"──────┼───────┼───────────────",
				"a.txt │    10 │       ok",
				"b     │ 12345 │ x|y fine | too",
			},
		},
		{
			name: "a pipe alone makes no table",
			text: "a | b\nc | d",
			want: []string{"a | b", "c | d"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			width := tt.width
			if width == 0 {
				width = 40
			}
			got := plain(tt.text, width)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestMarkdownInline(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"*it* and _it_ and **bold** and __bold__", "it and it and bold and bold"},
		{"***both*** and **a *nested* b**", "both and a nested b"},
		{"snake_case_name and 2 * 3 * 4 and a*b", "snake_case_name and 2 * 3 * 4 and a*b"},
		{"~~gone~~ but ~5 ms stays", "gone but ~5 ms stays"},
		{"\\*not\\* &amp; &lt;tag&gt; \\&amp;", "*not* & <tag> &amp;"},
		{"see [the docs](https://example.com/a_(b)) or <https://x.org>", "see the docs (https://example.com/a_(b)) or https://x.org"},
		{"![a cat](cat.png) and [ref][1] and [open", "a cat (cat.png) and [ref][1] and [open"},
		{"`` a ` b `` and ``` unclosed", "a ` b and ``` unclosed"},
		{"**unclosed and *also", "**unclosed and *also"},
	}
	for _, tt := range tests {
		got := strings.Join(plain(tt.text, 200), "\n")
		if got != tt.want {
			t.Errorf("%q:\n got %q\nwant %q", tt.text, got, tt.want)
		}
	}
}

// Emphasis, code and headings are drawn in their styles, each line closing
// its own (a line drawn alone, when the conversation scrolls, keeps them).
func TestMarkdownStyles(t *testing.T) {
	m := newMarkdown()
	lines := m.render("# Head\nplain **bold\nstill bold** *it* `code` ~~old~~", 80)
	if len(lines) != 3 {
		t.Fatalf("lines %q", lines)
	}
	for _, c := range []struct {
		line int
		want string
	}{
		{0, m.st.render("Head", styleHeading|styleUnderline)},
		{1, "plain " + m.st.render("bold", styleBold)},
		{2, m.st.render("still bold", styleBold) + " " + m.st.render("it", styleItalic) + " " +
			m.st.render("code", styleCode) + " " + m.st.render("old", styleStrike)},
	} {
		if lines[c.line] != c.want {
			t.Errorf("line %d: %q, want %q", c.line, lines[c.line], c.want)
		}
	}
	for style, sgr := range map[mdStyle]string{styleBold: "1", styleItalic: "3", styleStrike: "9", styleCode: "33", styleHeading: "1;35"} {
		if got := m.st.render("x", style); !strings.Contains(got, "\x1b["+sgr) || !strings.HasSuffix(got, "\x1b[m") {
			t.Errorf("style %d: %q, want SGR %s and a reset", style, got, sgr)
		}
	}
}

// Whatever the width, no line is wider than the window and no word of the
// answer is lost; a word wider than the window is cut, not dropped.
func TestMarkdownWidths(t *testing.T) {
	text := "# A heading long enough to wrap\n\nSome **bold text** and `code span` and a [link](https://example.com/path).\n" +
		"averyveryveryverylongwordwithoutanyspace end\n\n- item one is long\n  - nested item\n\n> quoted text that wraps\n\n" +
		"```\ncode line that is wider than the window\n```\n\n| col | another column |\n|---|---|\n| a | b c d e f |\n\n1. first\n2. second"
	words := strings.Fields(plainText(text))
	for width := 8; width <= 60; width++ {
		lines := plain(text, width)
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > width {
				t.Errorf("width %d: line %q is %d wide", width, l, w)
			}
		}
		// A word cut at the end of a line (or of a table cell) goes on at
		// the start of the next one: joined, without spaces and table
		// bars, the lines hold every word.
		squeezed := strings.Join(strings.Fields(strings.ReplaceAll(strings.Join(lines, ""), "│", "")), "")
		for _, w := range words {
			if !strings.Contains(squeezed, w) {
				t.Errorf("width %d: %q is missing from\n%s", width, w, strings.Join(lines, "\n"))
			}
		}
	}
}

// plainText is the text of the test document without its Markdown, for
// TestMarkdownWidths (each word must be on screen).
func plainText(s string) string {
	r := strings.NewReplacer("**", "", "`", "", "[", "", "](", " (", "```", "", "|", " ", "---", "", "# ", "", "> ", "", "- ", "", "1. ", "", "2. ", "")
	return r.Replace(s)
}

// Whatever a model writes, the renderer neither panics nor draws a line
// wider than the window.
func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{
		"# h\n\n- a\n  - b\n\n```go\nx\n```\n| a | b |\n|---|:-:|\n| 1 | 2 |\n> q\n***\n",
		"**a *b** c* `d` [e](f \"g\") <h:i> ![j](k) ~~l~~ \\*m\\* &amp;",
		"1. x\n   ```\n   y\n2) z\n\n    code\n- [ ] task\n<br>",
		"***\n___\n- - -\n=\nSetext\n---\n|\n|-|\n\t\ttabs\x1b[31m",
	} {
		f.Add(s, uint8(40))
	}
	f.Fuzz(func(t *testing.T, text string, w uint8) {
		width := int(w)%120 + 1
		for _, l := range newMarkdown().render(clean(text), width) {
			if n := ansi.StringWidth(l); n > width {
				t.Fatalf("line %q is %d wide, more than %d", l, n, width)
			}
		}
	})
}
