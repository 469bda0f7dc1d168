// Package bytesize names a size limit as mm's messages write it, so that a
// config error and a remote agent's bound say sizes alike.
package bytesize

import "fmt"

// Name is n bytes as people write a limit: "1 MiB", "32 KiB", "100 bytes".
func Name(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
