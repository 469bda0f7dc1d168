package earlywarden

import (
	"os"
	"reflect"
	"testing"
)

// TestKeep: the list is what the '+' lines added and the '-' lines did not
// remove, whatever the reads' boundaries; junk lines are skipped.
func TestKeep(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		for _, s := range []string{"+101\n+1", "02\n-101\n", "+x\n+1\n-\n+99999999999999\n", "+103\n-104\n+105"} {
			w.Write([]byte(s))
		}
		w.Close() // mm is gone; the unfinished last line does not count
	}()
	got := keep(int(r.Fd()))
	want := map[int]bool{102: true, 103: true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("keep = %v, want %v", got, want)
	}
}

func TestCarries(t *testing.T) {
	env := func(kv ...string) []byte {
		var b []byte
		for _, s := range kv {
			b = append(append(b, s...), 0)
		}
		return b
	}
	for _, c := range []struct {
		block []byte
		want  bool
	}{
		{env("PATH=/bin", "MM_PROC_TAG=abc.3"), true},
		{env("MM_PROC_TAG=zzz.1 abc.12", "HOME=/"), true},
		{env("MM_PROC_TAG=abcd.1"), false},
		{env("MM_PROC_TAG=xabc.1"), false},
		{env("MM_PROC_TAG=abc"), false},
		{env("X_MM_PROC_TAG=abc.1"), false},
		{env("PATH=/bin"), false},
		{[]byte("MM_PROC_TAG=abc.9"), true}, // no final NUL
		{nil, false},
	} {
		if got := carries(c.block, "abc"); got != c.want {
			t.Errorf("carries(%q) = %v, want %v", c.block, got, c.want)
		}
	}
}
