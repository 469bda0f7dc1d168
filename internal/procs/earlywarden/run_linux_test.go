package earlywarden

import (
	"encoding/binary"
	"os"
	"reflect"
	"testing"
)

// TestWaitLife: the lifeline says all is done only with "ok\n" and its
// end; anything else, or its end alone (mm is gone), is not.
func TestWaitLife(t *testing.T) {
	for _, c := range []struct {
		said []string
		done bool
	}{
		{[]string{"ok\n"}, true},
		{[]string{"o", "k", "\n"}, true},
		{nil, false},
		{[]string{"ok"}, false},
		{[]string{"ok\nok\n"}, false},
		{[]string{"no\n"}, false},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for _, s := range c.said {
				w.Write([]byte(s))
			}
			w.Close()
		}()
		if got := waitLife(int(r.Fd())); got != c.done {
			t.Errorf("waitLife after %q = %v, want %v", c.said, got, c.done)
		}
		r.Close()
	}
}

// TestListed: the table's non-zero slots are the groups, wherever they
// are in it, past the first read's size too.
func TestListed(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "table")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	slots := make([]int32, 3000)
	slots[0], slots[7], slots[1500], slots[2999] = 101, 1, 102, 103 // 1 is never a group
	if err := binary.Write(f, binary.NativeEndian, slots); err != nil {
		t.Fatal(err)
	}
	if got, want := listed(int(f.Fd())), []int{101, 102, 103}; !reflect.DeepEqual(got, want) {
		t.Fatalf("listed = %v, want %v", got, want)
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
