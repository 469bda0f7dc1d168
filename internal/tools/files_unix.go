//go:build unix

package tools

import "syscall"

// oNonblock opens a named pipe or a device without waiting on it.
const oNonblock = syscall.O_NONBLOCK
