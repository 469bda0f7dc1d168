//go:build unix && !linux

package procs

import "os"

func tableFile() (*os.File, error) { return tempTable() }
