package model

import (
	"strings"
	"testing"
)

func TestSplitThink(t *testing.T) {
	cases := []struct{ in, reasoning, answer string }{
		{"Hello.", "", "Hello."},
		{"<think>\nhmm, the user\n</think>\n\nParis.", "\nhmm, the user\n", "Paris."},
		{"  \n<think>a</think>b", "a", "b"},
		{"<think>never closed", "never closed", ""},
		{"<thin", "", "<thin"},
		{"<b>bold</b>", "", "<b>bold</b>"},
		{"The <think> tag, mid-answer, stays.", "", "The <think> tag, mid-answer, stays."},
		{"<think></think>", "", ""},
		{"<think>x</think>   ", "x", ""},
		{"   ", "", ""},
		{"\n\nHello", "", "\n\nHello"},
	}
	for _, tc := range cases {
		r, a := splitThink(tc.in)
		if r != tc.reasoning || a != tc.answer {
			t.Errorf("splitThink(%q) = %q, %q; want %q, %q", tc.in, r, a, tc.reasoning, tc.answer)
		}
		// Whatever the pieces, the same split.
		for n := 1; n <= 4; n++ {
			var s thinkSplitter
			var rb, ab strings.Builder
			for _, p := range pieces(tc.in, n) {
				r, a := s.feed(p)
				rb.WriteString(r)
				ab.WriteString(a)
			}
			r, a := s.flush()
			rb.WriteString(r)
			ab.WriteString(a)
			if rb.String() != tc.reasoning || ab.String() != tc.answer {
				t.Errorf("%q in pieces of %d: %q, %q; want %q, %q", tc.in, n, rb.String(), ab.String(), tc.reasoning, tc.answer)
			}
		}
	}
}

func FuzzThinkSplitter(f *testing.F) {
	f.Add("<think>a</think>b", 3)
	f.Add(" <thi", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 1 || n > 64 {
			return
		}
		wr, wa := splitThink(s)
		var sp thinkSplitter
		var rb, ab strings.Builder
		for _, p := range pieces(s, n) {
			r, a := sp.feed(p)
			rb.WriteString(r)
			ab.WriteString(a)
		}
		r, a := sp.flush()
		rb.WriteString(r)
		ab.WriteString(a)
		if rb.String() != wr || ab.String() != wa {
			t.Fatalf("pieces of %d: %q, %q; whole: %q, %q", n, rb.String(), ab.String(), wr, wa)
		}
	})
}

func TestRope(t *testing.T) {
	var r rope
	var want strings.Builder
	for i := 0; i < 3000; i++ {
		p := strings.Repeat(string(rune('a'+i%26)), i%700)
		r.WriteString(p)
		want.WriteString(p)
	}
	if r.Len() != want.Len() || r.String() != want.String() || r.String() != want.String() {
		t.Fatal("rope text differs")
	}
	r.WriteString("!")
	if r.String() != want.String()+"!" {
		t.Fatal("rope written after String")
	}
}
