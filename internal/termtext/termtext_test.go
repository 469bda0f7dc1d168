package termtext

import "testing"

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\n\twith tab":                       "plain text\n\twith tab",
		"rm precious.txt #\x1b[2K\x1b[Gallow bash: ls": "rm precious.txt #allow bash: ls",
		"title\x1b]0;pwned\x07 after":                  "title after",
		"bell\x07 back\b del\x7f":                      "bell back del",
		"c1 \u009b2K csi":                              "c1 2K csi", // what follows a lone C1 is plain text
		"rtl \u202efdp.exe":                            "rtl fdp.exe",
		"isolate \u2066x\u2069 y":                      "isolate x y",
		"lone esc \x1b":                                "lone esc ",
		"carriage\rreturn":                             "carriagereturn",
		"émoji 🤖 ok":                                   "émoji 🤖 ok",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"ls -la": "ls -la",
		"rm precious.txt #\x1b[2K\x1b[Gallow bash: ls": `rm precious.txt #\x1b[2K\x1b[Gallow bash: ls`,
		"rtl \u202efdp.exe":                            `rtl \u202efdp.exe`,
		"cr\rbs\b c1\u009b":                            `cr\x0dbs\x08 c1\x9b`,
		"keeps\nnewline\ttab":                          "keeps\nnewline\ttab",
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStream(t *testing.T) {
	var s Stream
	var got string
	for _, p := range []string{"Done: \x1b[", "2Kplain \x1b", "]0;title\x07 text", " end\x1b"} {
		got += s.Piece(p)
	}
	if want := "Done: plain  text end"; got != want {
		t.Errorf("pieces gave %q, want %q", got, want)
	}
}
