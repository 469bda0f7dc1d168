package procs

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// helper plays a part in a child process (see TestMain).
func helper(part string) int {
	switch part {
	case "sleep":
		time.Sleep(time.Minute)
	case "parent":
		// Start a child of our own (in our job) and say its pid.
		exe, _ := os.Executable()
		c := exec.Command(exe)
		c.Env = append(os.Environ(), "PROCS_TEST_HELPER=sleep")
		if err := c.Start(); err != nil {
			return 1
		}
		fmt.Println(c.Process.Pid)
		time.Sleep(time.Minute)
	}
	return 2
}

func running(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	ev, _ := windows.WaitForSingleObject(h, 0)
	return ev == uint32(windows.WAIT_TIMEOUT)
}

// TestJobKillsTheTree: killing a group kills what its leader started.
func TestJobKillsTheTree(t *testing.T) {
	cmd := helperCmd(t, "parent")
	out, _ := cmd.StdoutPipe()
	Prepare(cmd)
	g, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	g.Kill()
	cmd.Wait()
	deadline := time.Now().Add(2 * time.Second)
	for running(child) {
		if time.Now().After(deadline) {
			t.Fatalf("the leader's child %d outlived the group", child)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSignal(t *testing.T) {
	cmd := helperCmd(t, "none")
	cmd.Run()
	if _, ok := Signal(cmd.ProcessState); ok {
		t.Error("a Windows process read as ended by a signal")
	}
}
