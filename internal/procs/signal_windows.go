package procs

import "os"

// Signal reports false: on Windows no process is ended by a signal.
func Signal(*os.ProcessState) (string, bool) { return "", false }
