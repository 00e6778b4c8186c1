package etcdtest

import (
	"errors"
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
