package procs

import (
	"bytes"
	"encoding/binary"
)

// procargsEnv parses macOS's kern.procargs2 record: argc (a 32-bit
// integer in the machine's order, little-endian on every Mac mm targets),
// the executable's path, NUL padding, argc arguments and then the
// environment, each NUL-terminated, up to an empty string. It lives here,
// without a build constraint, so that its test runs on every platform.
func procargsEnv(b []byte) []string {
	if len(b) < 4 {
		return nil
	}
	argc := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	i := bytes.IndexByte(b, 0) // the executable's path
	if i < 0 {
		return nil
	}
	b = b[i:]
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	next := func() (string, bool) {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return "", false
		}
		s := string(b[:i])
		b = b[i+1:]
		return s, true
	}
	for range argc {
		if _, ok := next(); !ok {
			return nil
		}
	}
	var env []string
	for {
		s, ok := next()
		if !ok || s == "" {
			return env
		}
		env = append(env, s)
	}
}
