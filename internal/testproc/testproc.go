// Package testproc holds what the test harnesses that start real servers
// (bindtest's named, and the PowerDNS and etcd harnesses of
// provider/externaldns) share: finding the executable, skipping or failing
// when it is absent, keeping the tail of its log, and stopping its process
// group.
package testproc

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// FindExecutable returns the path of an executable: path when set, else
// name found in $PATH, else fallback when set. The result must be an
// executable regular file; the error says why it is not.
func FindExecutable(path, name, fallback string) (string, error) {
	if path == "" {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
		if fallback == "" {
			return "", fmt.Errorf("%s is not in $PATH", name)
		}
		path = fallback
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s is not an executable file", path)
	}
	return path, nil
}

// Absent decides what a test does when the server it needs cannot be
// used: it skips unless the environment variable requireEnv is "1", and
// fails then. msg says what is missing and how to install it; the message
// returned adds how to change the decision.
func Absent(msg, requireEnv, requireValue string) (skip bool, full string) {
	if requireValue == "1" {
		return false, msg + " (" + requireEnv + "=1 makes this a failure)"
	}
	return true, msg + " (set " + requireEnv + "=1 to make this a failure)"
}

// StopGroup stops a process started in its own process group
// (SysProcAttr.Setpgid): SIGTERM to the group, then SIGKILL after grace,
// and waits until done is closed (by the goroutine that waits for cmd).
func StopGroup(cmd *exec.Cmd, done <-chan struct{}, grace time.Duration) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(grace):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// LogLimit is the number of bytes of a server's output a [LogTail] keeps
// at least.
const LogLimit = 256 << 10

// LogTail collects a server's output, safe for concurrent use, keeping at
// least its last LogLimit bytes (named logs every updated record, so a
// benchmark writes megabytes): when the buffer reaches twice the limit,
// the older part is dropped in place, without allocating. The zero value
// is ready to use.
type LogTail struct {
	mu  sync.Mutex
	buf []byte
}

// Write appends p; it never fails.
func (b *LogTail) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	written := len(p)
	if len(p) > LogLimit {
		p = p[len(p)-LogLimit:]
	}
	if len(b.buf)+len(p) > 2*LogLimit {
		keep := LogLimit - len(p)
		n := copy(b.buf, b.buf[len(b.buf)-keep:])
		b.buf = b.buf[:n]
	}
	if b.buf == nil {
		b.buf = make([]byte, 0, 2*LogLimit)
	}
	b.buf = append(b.buf, p...)
	return written, nil
}

// String returns what is kept.
func (b *LogTail) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
