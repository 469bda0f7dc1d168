package tools

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// bashPath is the bash the tool runs: Git for Windows' (or any other on
// PATH), never the WSL launcher in the system directory, whose commands
// run in a Linux machine out of reach of mm's job objects.
func bashPath() (string, error) {
	p, err := exec.LookPath("bash")
	if err != nil {
		return "", errors.New(`bash is not on PATH: install Git for Windows and add its bin directory (C:\Program Files\Git\bin) to PATH`)
	}
	if root := os.Getenv("SystemRoot"); root != "" {
		if abs, err := filepath.Abs(p); err == nil && strings.HasPrefix(strings.ToLower(abs), strings.ToLower(root)+`\`) {
			return "", fmt.Errorf(`the bash on PATH (%s) is WSL's launcher, whose processes mm cannot stop: put Git for Windows' bin directory (C:\Program Files\Git\bin) before it on PATH`, abs)
		}
	}
	return p, nil
}
