package pdnstest

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAbsentAction(t *testing.T) {
	tests := []struct {
		require  string
		wantSkip bool
	}{
		{"", true},
		{"0", true},
		{"1", false},
	}
	for _, tt := range tests {
		skip, msg := absentAction(errors.New("no pdns_server"), tt.require)
		assert.Equal(t, tt.wantSkip, skip, "require=%q", tt.require)
		assert.Contains(t, msg, "no pdns_server")
		assert.Contains(t, msg, RequireEnv)
	}
}

func TestFindToolsMissing(t *testing.T) {
	_, err := findTools(Config{ServerPath: t.TempDir() + "/none"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "pdns_server")
}

func TestFindToolsNoBackend(t *testing.T) {
	_, err := findTools(Config{ServerPath: "/bin/sh", ModuleDir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "gsqlite3 backend")
}

func TestServer(t *testing.T) {
	srv := Start(t, Config{})
	assert.True(t, strings.HasPrefix(srv.APIURL(), "http://127.0.0.1:"), srv.APIURL())
	assert.NotEmpty(t, srv.APIKey())
	assert.True(t, strings.HasPrefix(srv.DNSAddr(), "127.0.0.1:"), srv.DNSAddr())

	srv.CreateZone("Example.ORG.")
	sets := srv.RRsets("example.org")
	require.Len(t, sets, 2, "%v", sets)
	assert.Equal(t, RRset{Name: "example.org.", Type: "NS", TTL: 3600, Records: []string{"ns1.example.org."}}, sets[0])
	assert.Equal(t, "SOA", sets[1].Type)

	srv.ReplaceRRset("example.org", RRset{Name: "www.example.org", Type: "A", TTL: 60, Records: []string{"192.0.2.2", "192.0.2.1"}})
	sets = srv.RRsets("example.org.")
	require.Len(t, sets, 3, "%v", sets)
	assert.Equal(t, RRset{Name: "www.example.org.", Type: "A", TTL: 60, Records: []string{"192.0.2.1", "192.0.2.2"}}, sets[2])
	assert.Equal(t, "www.example.org. A 60 [192.0.2.1 192.0.2.2]", sets[2].String())

	srv.DeleteZone("example.org")
	srv.CreateZone("example.org", "ns-a.example.net", "NS-B.example.net.")
	sets = srv.RRsets("example.org")
	require.Len(t, sets, 2, "the records went with the zone: %v", sets)
	assert.Equal(t, []string{"ns-a.example.net.", "ns-b.example.net."}, sets[0].Records)

	srv.Stop()
	assert.Contains(t, srv.Output(), "PowerDNS")
}
