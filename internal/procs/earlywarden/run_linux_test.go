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
