package testproc_test

import (
	"os"
	"os/exec"
	"path/filepath"
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
