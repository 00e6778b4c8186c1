package etcdtest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAbsentAction(t *testing.T) {
	for _, tc := range []struct {
		require  string
		wantSkip bool
	}{
		{"", true},
		{"0", true},
		{"1", false},
	} {
		skip, msg := absentAction(errors.New("no such file"), tc.require)
		assert.Equal(t, tc.wantSkip, skip, "require=%q", tc.require)
		assert.Contains(t, msg, "no such file")
		assert.Contains(t, msg, "etcd-server")
		assert.Contains(t, msg, RequireEnv)
	}
}

func TestFindEtcd(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	require.NoError(t, os.WriteFile(plain, []byte("x"), 0o644))
	_, err := findEtcd(plain)
	assert.ErrorContains(t, err, "not an executable")
	_, err = findEtcd(dir)
	assert.ErrorContains(t, err, "not an executable")
	_, err = findEtcd(filepath.Join(dir, "missing"))
	assert.Error(t, err)
}

// TestStartPutGet starts a real etcd, even with the test's own ETCD_*
// variables set (etcd would read them as its flags), writes keys and reads
// them back by prefix.
func TestStartPutGet(t *testing.T) {
	t.Setenv("ETCD_URLS", "http://127.0.0.1:1")
	s := Start(t, Config{})
	require.True(t, strings.HasPrefix(s.URL(), "http://127.0.0.1:"), s.URL())
	s.Put("/skydns/org/example/a", `{"host":"192.0.2.1"}`)
	s.Put("/skydns/org/example/b", `{"host":"192.0.2.2"}`)
	s.Put("/other/key", "x")
	assert.Equal(t, map[string]string{
		"/skydns/org/example/a": `{"host":"192.0.2.1"}`,
		"/skydns/org/example/b": `{"host":"192.0.2.2"}`,
	}, s.Get("/skydns/"))
	assert.Empty(t, s.Get("/nothing/"))
}

func TestLockedBufferKeepsTheTail(t *testing.T) {
	var b lockedBuffer
	chunk := strings.Repeat("x", 1000) + "\n"
	for range 2 * logLimit / len(chunk) * 3 {
		_, err := b.Write([]byte(chunk))
		require.NoError(t, err)
	}
	_, err := b.Write([]byte("last line\n"))
	require.NoError(t, err)
	s := b.String()
	assert.LessOrEqual(t, len(s), 2*logLimit)
	assert.GreaterOrEqual(t, len(s), logLimit)
	assert.True(t, strings.HasSuffix(s, "last line\n"))
}
