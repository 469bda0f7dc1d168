//go:build unix

package procs

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helper plays a part in a child process (see TestMain).
func helper(part string) int {
	switch part {
	case "escape":
		// Leave the group the way a daemon does, and say who we are.
		syscall.Setsid()
		fmt.Println(os.Getpid())
		time.Sleep(time.Minute)
	case "owner":
		// An mm: start a group with a background child and a process that
		// left the group, print their pids and the warden's, then wait to be
		// killed. With "restart", kill the warden first and start a second
		// group, so a fresh warden must know the first one.
		pids, err := ownerGroup()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if len(os.Args) > 1 && os.Args[1] == "restart" {
			mu.Lock()
			old := warden.pid
			mu.Unlock()
			syscall.Kill(old, syscall.SIGKILL)
			for syscall.Kill(old, 0) == nil && procState(old) != "Z" {
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond) // reaped by its watcher
			more, err := ownerGroup()
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			pids = append(pids, more...)
			mu.Lock()
			if warden.pid == old {
				fmt.Fprintln(os.Stderr, "the warden was not replaced")
				return 1
			}
			mu.Unlock()
		}
		mu.Lock()
		pids = append(pids, warden.pid)
		mu.Unlock()
		fmt.Println(strings.Trim(fmt.Sprint(pids), "[]"))
		time.Sleep(time.Minute)
	case "tied":
		// An mm asking an agent: start a child tied to this process's life
		// (a lifeline, and on Linux the parent-death signal) that ignores
		// SIGTERM and carries no tag (only its group reaches it), and print
		// the warden's pid (0: none); then start an ordinary group, and
		// print the child's pid and the warden's.
		child := exec.Command("sh", "-c", `trap "" TERM; exec env -i sleep 60`)
		Prepare(child)
		l, err := NewLifeline(child)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if _, err := Start(child); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		l.Started()
		mu.Lock()
		fmt.Println(warden.pid)
		mu.Unlock()
		if _, err := ownerGroup(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		mu.Lock()
		fmt.Println(child.Process.Pid, warden.pid)
		mu.Unlock()
		time.Sleep(time.Minute)
	case "lifeline":
		WatchLifeline(func() {
			fmt.Println("parent gone")
			os.Exit(0)
		})
		fmt.Println("watching")
		time.Sleep(time.Minute)
		return 1
	}
	return platformHelper(part)
}

// ownerGroup starts sh with a background sleep and an escaping helper,
// and returns the pids of the three.
func ownerGroup() ([]int, error) {
	exe, _ := os.Executable()
	cmd := exec.Command("sh", "-c", `sleep 60 & echo $!; PROCS_TEST_HELPER=escape "$0" & wait`, exe)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	Prepare(cmd)
	if _, err := Start(cmd); err != nil {
		return nil, err
	}
	r := bufio.NewReader(out)
	var pids []int
	for range 2 {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		pid, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil {
			return nil, err
		}
		pids = append(pids, pid)
	}
	return append(pids, cmd.Process.Pid), nil
}

// procState is the state letter of /proc/<pid>/stat ("" when there is no
// such process, or no /proc); a zombie ("Z") runs nothing.
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return ""
	}
	return s[i+2 : i+3]
}

// running reports whether pid is a live process that is not a zombie.
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	st := procState(pid)
	return st != "Z" && st != "X"
}

// gone waits up to within for every pid to stop running.
func gone(t *testing.T, within time.Duration, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var alive []int
		for _, p := range pids {
			if running(p) {
				alive = append(alive, p)
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range alive {
				syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("still running after %s: %v", within, alive)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func readPids(t *testing.T, r io.Reader) []int {
	t.Helper()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("read pids: %v", err)
	}
	var pids []int
	for _, f := range strings.Fields(line) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

func TestKillReachesTheGroup(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 60 & echo $!; wait")
	out, _ := cmd.StdoutPipe()
	Prepare(cmd)
	g, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	child := readPids(t, out)[0]
	g.Kill()
	cmd.Wait()
	gone(t, 2*time.Second, child, cmd.Process.Pid)
	g.Release()
	g.Kill() // released: nothing, and no panic
}

func TestKillEscaped(t *testing.T) {
	exe, _ := os.Executable()
	cmd := exec.Command("sh", "-c", `PROCS_TEST_HELPER=escape "$0"; wait`, exe)
	out, _ := cmd.StdoutPipe()
	Prepare(cmd)
	g, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	escaped := readPids(t, out)[0]
	g.Kill()
	cmd.Wait()
	time.Sleep(100 * time.Millisecond)
	if !running(escaped) {
		t.Fatal("the process that left the group died with it: the test shows nothing")
	}
	if pg, _ := syscall.Getpgid(escaped); pg == cmd.Process.Pid {
		t.Fatal("the helper did not leave the group")
	}
	g.KillEscaped()
	gone(t, 2*time.Second, escaped)
}

// TestWardenAfterSIGKILL: an mm killed with SIGKILL leaves nothing — its
// group, a background child of it, a process that left the group, and the
// warden itself are gone within 2 s.
func TestWardenAfterSIGKILL(t *testing.T) {
	for _, mode := range []string{"", "restart"} {
		t.Run("warden"+mode, func(t *testing.T) {
			owner := helperCmd(t, "owner", mode)
			out, _ := owner.StdoutPipe()
			owner.Stderr = os.Stderr
			if err := owner.Start(); err != nil {
				t.Fatal(err)
			}
			pids := readPids(t, out)
			want := 4
			if mode == "restart" {
				want = 7
			}
			if len(pids) != want {
				t.Fatalf("owner printed %v", pids)
			}
			for _, p := range pids {
				if !running(p) {
					t.Fatalf("%d is not running before the kill", p)
				}
			}
			owner.Process.Signal(syscall.SIGKILL)
			owner.Wait()
			gone(t, 2*time.Second, pids...)
		})
	}
}

func TestLifeline(t *testing.T) {
	cmd := helperCmd(t, "lifeline")
	out, _ := cmd.StdoutPipe()
	l, err := NewLifeline(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	l.Started()
	r := bufio.NewReader(out)
	if line, _ := r.ReadString('\n'); line != "watching\n" {
		t.Fatalf("child said %q", line)
	}
	l.Close()
	if line, _ := r.ReadString('\n'); line != "parent gone\n" {
		t.Fatalf("child said %q", line)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}

func TestSignal(t *testing.T) {
	cmd := exec.Command("sh", "-c", "kill -9 $$")
	cmd.Run()
	if got, ok := Signal(cmd.ProcessState); !ok || got != "SIGKILL" {
		t.Errorf("Signal = %q, %v", got, ok)
	}
	cmd = exec.Command("sh", "-c", "exit 3")
	cmd.Run()
	if got, ok := Signal(cmd.ProcessState); ok {
		t.Errorf("an exit status read as a signal: %q", got)
	}
}
