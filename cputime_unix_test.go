//go:build unix

package zonesync_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user and system) the process has used so
// far, or 0 when it cannot tell. Benchmarks report it per operation: on a
// shared machine it varies far less than wall-clock time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
