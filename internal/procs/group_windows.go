package procs

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sysGroup is the group's job object. Whatever a process of the job starts
// is in the job too, and the job is set to kill its processes when its
// last handle closes: at Release, or when mm dies, however it dies.
type sysGroup struct{ job windows.Handle }

func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// A console's Ctrl-C reaches mm alone, which cancels what it runs.
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

func prepareServer(*exec.Cmd) {}

// attach puts the process in a new job, just after it started. (Starting
// it inside the job would need its main thread's handle, which os/exec
// keeps to itself: what the process starts in its very first instants,
// before attach, is outside the job.)
func (s *sysGroup) attach(p *os.Process) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("create a job object: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("set up a job object: %w", err)
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("open process %d: %w", p.Pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("put process %d in a job object: %w", p.Pid, err)
	}
	s.job = job
	return nil
}

func (s *sysGroup) kill(int) {
	if s.job != 0 {
		windows.TerminateJobObject(s.job, 1)
	}
}

func (s *sysGroup) terminate(pid int) { s.kill(pid) }

func (s *sysGroup) release() {
	if s.job != 0 {
		windows.CloseHandle(s.job) // kills what is left in it
		s.job = 0
	}
}

// There is no warden on Windows, and no tags: job objects do that work.
func ready() error                { return nil }
func tiedToLife(*exec.Cmd) bool   { return false } // the job object does it all
func register(*Group, bool) error { return nil }
func unregister(*Group)           {}
func token() string               { return "" }
func nextTag() string             { return "" }
func hunt(func(string) bool)      {}

// Shutdown has nothing to do on Windows: closing mm's handles ends the jobs.
func Shutdown() bool { return true }

var inherited = ""
