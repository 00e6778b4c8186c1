// Package testproc holds what the test harnesses that start real servers
// (bindtest's named, kubetest's etcd and kube-apiserver, motoserver's
// moto_server, and the PowerDNS and etcd harnesses of provider/externaldns)
// share: finding the executable, skipping or failing when it is absent,
// starting it in a process group of its own, polling until it answers,
// keeping the tail of its log, and stopping its process group.
package testproc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Process is a server process [Start] started.
type Process struct {
	// Cmd is the command, started.
	Cmd *exec.Cmd
	// Done is closed once the process has exited.
	Done <-chan struct{}
	// Log holds the tail of its standard output and error.
	Log *LogTail
}

// Start starts cmd in a process group of its own (so that [StopGroup]
// stops what it starts too), with its standard output and error in a
// [LogTail], and waits for it in a goroutine that closes Process.Done.
func Start(cmd *exec.Cmd) (*Process, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	log := &LogTail{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	return &Process{Cmd: cmd, Done: done, Log: log}, nil
}

// Stop stops the process group: SIGTERM, then SIGKILL after grace; it
// returns once the process has exited.
func (p *Process) Stop(grace time.Duration) { StopGroup(p.Cmd, p.Done, grace) }

// Poll calls probe every interval until it returns nil, exited is closed
// (the server died) or ctx ends. The error says which, and wraps the last
// error probe returned.
func Poll(ctx context.Context, exited <-chan struct{}, interval time.Duration, probe func(context.Context) error) error {
	for {
		last := probe(ctx)
		if last == nil {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("the process exited (last check: %w)", last)
		case <-ctx.Done():
			return fmt.Errorf("%w (last check: %w)", ctx.Err(), last)
		case <-time.After(interval):
		}
	}
}

// FreePorts returns n distinct TCP ports of 127.0.0.1 that were free when
// asked (all listened on at once, so none is returned twice). Another
// process may take one before the server binds it; harnesses retry then.
func FreePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

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

// FreePort returns a TCP port of 127.0.0.1 that was free when asked, and
// free for UDP too when udp is set (a name server listens on both).
func FreePort(udp bool) (int, error) {
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		if !udp {
			_ = l.Close()
			return port, nil
		}
		u, err := net.ListenPacket("udp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		_ = l.Close()
		if err != nil {
			continue // taken on UDP: try another
		}
		_ = u.Close()
		return port, nil
	}
	return 0, errors.New("no port free for both TCP and UDP after 20 tries")
}
