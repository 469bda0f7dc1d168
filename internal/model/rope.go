package model

import (
	"runtime"
	"strings"
)

// rope accumulates a long text in blocks, so that it grows without copying
// what it holds. A strings.Builder (or +=) copies its whole content each
// time it grows: for a 100 MB answer streamed in pieces that is several
// times the answer in garbage, and the garbage collector lets the heap
// reach twice what is live — 6× the answer in memory, measured. The rope
// costs one copy, at the end.
type rope struct {
	blocks [][]byte
	n      int
	s      *string // the text, once String made it
}

// Blocks start small (most answers are short) and double up to maxBlock.
const (
	minBlock = 4 << 10
	maxBlock = 1 << 20
	// bigText is the size past which String collects the stream's garbage
	// before it makes the text: the one allocation of the whole answer
	// then lands in a heap that holds little but the blocks.
	bigText = 32 << 20
)

// WriteString appends s.
func (r *rope) WriteString(s string) {
	if r.s != nil {
		// Written to after String: start again from the text (rare: a
		// reply's pieces all come before its result).
		t := *r.s
		*r = rope{}
		r.WriteString(t)
	}
	r.n += len(s)
	for len(s) > 0 {
		if len(r.blocks) == 0 || len(r.blocks[len(r.blocks)-1]) == cap(r.blocks[len(r.blocks)-1]) {
			size := minBlock
			if k := len(r.blocks); k > 0 {
				size = min(cap(r.blocks[k-1])*2, maxBlock)
			}
			r.blocks = append(r.blocks, make([]byte, 0, size))
		}
		last := &r.blocks[len(r.blocks)-1]
		k := min(len(s), cap(*last)-len(*last))
		*last = append(*last, s[:k]...)
		s = s[k:]
	}
}

// Len is the text's length in bytes.
func (r *rope) Len() int { return r.n }

// String returns the text; the blocks are let go.
func (r *rope) String() string {
	if r.s != nil {
		return *r.s
	}
	var s string
	switch {
	case len(r.blocks) == 0:
	case len(r.blocks) == 1:
		s = string(r.blocks[0])
	default:
		if r.n > bigText {
			runtime.GC()
		}
		var b strings.Builder
		b.Grow(r.n)
		for i, bl := range r.blocks {
			b.Write(bl)
			r.blocks[i] = nil
		}
		s = b.String()
	}
	r.blocks = nil
	r.s = &s
	return s
}
