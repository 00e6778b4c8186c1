package testproc_test

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/internal/testproc"
)

func TestFindExecutable(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	require.NoError(t, os.WriteFile(plain, []byte("x"), 0o644))
	exe := filepath.Join(dir, "exe")
	require.NoError(t, os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755))
	sh, err := exec.LookPath("sh")
	require.NoError(t, err)

	for _, tc := range []struct {
		name                string
		path, bin, fallback string
		want, wantErr       string
	}{
		{name: "explicit executable", path: exe, want: exe},
		{name: "explicit not executable", path: plain, wantErr: "not an executable"},
		{name: "explicit directory", path: dir, wantErr: "not an executable"},
		{name: "explicit missing", path: filepath.Join(dir, "missing"), wantErr: "no such file"},
		{name: "found in PATH", bin: "sh", want: sh},
		{name: "fallback used", bin: "zonesync-no-such-binary", fallback: exe, want: exe},
		{name: "fallback not executable", bin: "zonesync-no-such-binary", fallback: plain, wantErr: "not an executable"},
		{name: "neither", bin: "zonesync-no-such-binary", wantErr: "zonesync-no-such-binary is not in $PATH"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := testproc.FindExecutable(tc.path, tc.bin, tc.fallback)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestAbsent(t *testing.T) {
	for _, tc := range []struct {
		value    string
		wantSkip bool
		wantText string
	}{
		{"", true, "(set ZONESYNC_REQUIRE_X=1 to make this a failure)"},
		{"0", true, "(set ZONESYNC_REQUIRE_X=1 to make this a failure)"},
		{"true", true, "(set ZONESYNC_REQUIRE_X=1 to make this a failure)"},
		{"1", false, "(ZONESYNC_REQUIRE_X=1 makes this a failure)"},
	} {
		skip, msg := testproc.Absent("x not found; install it", "ZONESYNC_REQUIRE_X", tc.value)
		assert.Equal(t, tc.wantSkip, skip, "value %q", tc.value)
		assert.True(t, strings.HasPrefix(msg, "x not found; install it"), msg)
		assert.Contains(t, msg, tc.wantText)
	}
}

func TestLogTailKeepsTheTail(t *testing.T) {
	var b testproc.LogTail
	line := []byte("0123456789abcdef")
	total := 0
	for total < 5*testproc.LogLimit {
		n, err := b.Write(line)
		require.NoError(t, err)
		require.Equal(t, len(line), n)
		total += n
	}
	_, _ = b.Write([]byte("last line\n"))
	got := b.String()
	assert.GreaterOrEqual(t, len(got), testproc.LogLimit)
	assert.LessOrEqual(t, len(got), 2*testproc.LogLimit)
	assert.True(t, strings.HasSuffix(got, "last line\n"))
	big := make([]byte, 3*testproc.LogLimit)
	big[len(big)-1] = '!'
	n, err := b.Write(big)
	require.NoError(t, err)
	assert.Equal(t, len(big), n, "Write reports everything written")
	assert.True(t, strings.HasSuffix(b.String(), "!"))
	assert.LessOrEqual(t, len(b.String()), 2*testproc.LogLimit)
}

// TestStopGroup stops a shell and the child it started: SIGTERM reaches
// the whole group; a process that ignores it is killed after the grace.
// (Whether the group's children are gone cannot be asserted portably: in a
// container without an init that reaps, they linger as zombies.)
func TestStopGroup(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
	}{
		{"terminates", "sleep 60 & wait"},
		{"ignores SIGTERM", "trap '' TERM; sleep 60 & wait; sleep 60"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", tc.script)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			require.NoError(t, cmd.Start())
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			time.Sleep(50 * time.Millisecond)
			testproc.StopGroup(cmd, done, 500*time.Millisecond)
			select {
			case <-done:
			default:
				t.Fatal("StopGroup returned before the process ended")
			}
		})
	}
}

// TestStart checks that a started process's output lands in its log, that
// Done closes when it exits, and that Stop ends a process that would run
// on.
func TestStart(t *testing.T) {
	p, err := testproc.Start(exec.Command("sh", "-c", "echo out; echo err >&2"))
	require.NoError(t, err)
	select {
	case <-p.Done:
	case <-time.After(10 * time.Second):
		t.Fatal("Done did not close after the process exited")
	}
	assert.Contains(t, p.Log.String(), "out")
	assert.Contains(t, p.Log.String(), "err")

	p, err = testproc.Start(exec.Command("sh", "-c", "sleep 60 & wait"))
	require.NoError(t, err)
	p.Stop(500 * time.Millisecond)
	select {
	case <-p.Done:
	default:
		t.Fatal("Stop returned before the process ended")
	}

	_, err = testproc.Start(exec.Command(filepath.Join(t.TempDir(), "absent")))
	require.Error(t, err)
}

func TestPoll(t *testing.T) {
	never := make(chan struct{})
	exited := make(chan struct{})
	close(exited)
	notYet := errors.New("not yet")
	tests := []struct {
		name    string
		exited  <-chan struct{}
		timeout time.Duration
		okAfter int // probe succeeds on this call; 0: never
		wantErr string
	}{
		{name: "ready at once", exited: never, timeout: time.Minute, okAfter: 1},
		{name: "ready on the third probe", exited: never, timeout: time.Minute, okAfter: 3},
		{name: "process exited", exited: exited, timeout: time.Minute, wantErr: "the process exited (last check: not yet)"},
		{name: "timeout", exited: never, timeout: 50 * time.Millisecond, wantErr: "context deadline exceeded (last check: not yet)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			calls := 0
			err := testproc.Poll(ctx, tt.exited, time.Millisecond, func(context.Context) error {
				calls++
				if calls == tt.okAfter {
					return nil
				}
				return notYet
			})
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				assert.ErrorIs(t, err, notYet)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.okAfter, calls)
		})
	}
}

func TestFreePorts(t *testing.T) {
	ports, err := testproc.FreePorts(3)
	require.NoError(t, err)
	require.Len(t, ports, 3)
	assert.NotEqual(t, ports[0], ports[1])
	assert.NotEqual(t, ports[1], ports[2])
	assert.NotEqual(t, ports[0], ports[2])
	for _, p := range ports {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		require.NoError(t, err, "port %d is free again", p)
		_ = l.Close()
	}

	for _, udp := range []bool{false, true} {
		p, err := testproc.FreePort(udp)
		require.NoError(t, err)
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		require.NoError(t, err)
		_ = l.Close()
		if udp {
			u, err := net.ListenPacket("udp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
			require.NoError(t, err)
			_ = u.Close()
		}
	}
}
