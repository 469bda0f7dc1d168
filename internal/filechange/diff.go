package filechange

import (
	"fmt"
	"strings"
)

// context is the lines of context around a hunk's changes, as diff -u.
const context = 3

// maxCells bounds the work of the line matching (lines of a × lines of
// b): past it, the diff is the whole old text out and the whole new in.
const maxCells = 4_000_000

// Unified is the unified diff of old and new text of path: "--- a/path",
// "+++ b/path", then each hunk's "@@ -l,n +l,n @@" and its lines; the
// lines are matched by their longest common subsequence.
func Unified(path, old, new string) string {
	a, b := splitLines(old), splitLines(new)
	ops := lineOps(a, b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s", path, path)
	// Group the edits into hunks: runs of changes closer than 2×context
	// lines share one.
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-context, 0)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
			} else if j-end > 2*context {
				break
			}
		}
		stop := min(end+context+1, len(ops))
		aStart, bStart := ops[start].a, ops[start].b
		var aN, bN int
		var body strings.Builder
		for _, op := range ops[start:stop] {
			body.WriteString("\n" + string(op.kind) + op.text)
			if op.kind != '+' {
				aN++
			}
			if op.kind != '-' {
				bN++
			}
		}
		fmt.Fprintf(&out, "\n@@ -%s +%s @@%s", hunkRange(aStart, aN), hunkRange(bStart, bN), body.String())
		i = stop
	}
	return out.String()
}

// hunkRange is a hunk's "l,n" (l the first line, 1-based; an empty range
// names the line before it).
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// op is one line of the diff: ' ' kept, '-' removed, '+' added; a and b
// are the lines of old and new before it.
type op struct {
	kind byte
	text string
	a, b int
}

// lineOps is the edit script from a to b.
func lineOps(a, b []string) []op {
	// Common prefix and suffix first: most edits are small.
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	var ops []op
	for i := 0; i < p; i++ {
		ops = append(ops, op{' ', a[i], i, i})
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	if len(ma)*len(mb) > maxCells {
		for i, l := range ma {
			ops = append(ops, op{'-', l, p + i, p})
		}
		for j, l := range mb {
			ops = append(ops, op{'+', l, p + len(ma), p + j})
		}
	} else {
		// lcs[i][j]: the longest common subsequence of ma[i:] and mb[j:].
		lcs := make([][]int32, len(ma)+1)
		for i := range lcs {
			lcs[i] = make([]int32, len(mb)+1)
		}
		for i := len(ma) - 1; i >= 0; i-- {
			for j := len(mb) - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(ma) || j < len(mb) {
			switch {
			case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
				ops = append(ops, op{' ', ma[i], p + i, p + j})
				i, j = i+1, j+1
			case i < len(ma) && (j == len(mb) || lcs[i+1][j] >= lcs[i][j+1]):
				ops = append(ops, op{'-', ma[i], p + i, p + j})
				i++
			default:
				ops = append(ops, op{'+', mb[j], p + i, p + j})
				j++
			}
		}
	}
	for k := 0; k < s; k++ {
		ia, ib := len(a)-s+k, len(b)-s+k
		ops = append(ops, op{' ', a[ia], ia, ib})
	}
	return ops
}
