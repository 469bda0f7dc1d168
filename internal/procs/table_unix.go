//go:build unix

package procs

import (
	"encoding/binary"
	"errors"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// tableSlots is how many groups mm can have running at once: a slot is
// four bytes, and the kernel gives the table's pages only as they are
// touched (one page, 1024 groups, in any ordinary run).
const tableSlots = 16384

// table is the list of the groups mm has running, shared with its warden:
// a file mapped into mm's memory (a memfd on Linux, an unlinked temporary
// file elsewhere), one slot a group holding its leader's pid, 0 when free.
// Writing it costs mm a store to memory, no system call and no wake-up of
// the warden, which reads the file only once mm is gone. A process whose
// slot is not written yet when mm dies still carries mm's tag.
type table struct {
	file  *os.File
	slots []int32 // the mapping; stored to atomically
	free  []int   // free slot numbers below next
	next  int     // slots from here on have never been used
	at    map[int]int
}

// newTable makes the table. mu is held.
func newTable() (*table, error) {
	f, err := tableFile()
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(tableSlots * 4); err != nil {
		f.Close()
		return nil, err
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, tableSlots*4, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &table{file: f, slots: unsafe.Slice((*int32)(unsafe.Pointer(&b[0])), tableSlots), at: map[int]int{}}, nil
}

// tempTable is a temporary file, removed at once: the warden inherits the
// open file, and nothing is left on disk however mm ends.
func tempTable() (*os.File, error) {
	f, err := os.CreateTemp("", "mm-procs-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return f, nil
}

var errTableFull = errors.New("too many processes running at once")

// add lists pid. mu is held.
func (t *table) add(pid int) error {
	if _, ok := t.at[pid]; ok {
		return nil
	}
	i := t.next
	if n := len(t.free); n > 0 {
		i, t.free = t.free[n-1], t.free[:n-1]
	} else if t.next == tableSlots {
		return errTableFull
	} else {
		t.next++
	}
	t.at[pid] = i
	atomic.StoreInt32(&t.slots[i], int32(pid))
	return nil
}

// remove takes pid off the list. mu is held.
func (t *table) remove(pid int) {
	i, ok := t.at[pid]
	if !ok {
		return
	}
	delete(t.at, pid)
	atomic.StoreInt32(&t.slots[i], 0)
	t.free = append(t.free, i)
}

// listed reads the pids a table file holds: the warden's side.
func listed(b []byte) []int {
	var pids []int
	for i := 0; i+4 <= len(b); i += 4 {
		if pid := int(int32(binary.NativeEndian.Uint32(b[i:]))); pid > 1 {
			pids = append(pids, pid)
		}
	}
	return pids
}
