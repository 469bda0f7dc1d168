package runs

import (
	"fmt"
	"net"
	"time"
)

// FreeAddr is a loopback address with a port nothing listens on now, for a
// server the benchmark starts (mm -a2a, nginx).
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// WaitPort waits up to 20 s for what (a server the benchmark started) to
// listen at addr.
func WaitPort(addr, what string) error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s does not listen at %s", what, addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
