package bindtest

import (
	"errors"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAbsentAction(t *testing.T) {
	missing := errors.New("stat /nonexistent/named: no such file or directory")
	tests := []struct {
		name     string
		require  string
		wantSkip bool
	}{
		{"unset skips", "", true},
		{"0 skips", "0", true},
		{"1 fails", "1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skip, msg := absentAction(missing, tt.require)
			assert.Equal(t, tt.wantSkip, skip)
			assert.Contains(t, msg, "apt-get install bind9")
			assert.Contains(t, msg, RequireEnv)
			assert.Contains(t, msg, "/nonexistent/named")
		})
	}
}

func TestStartServesZonesAndRestartKeepsUpdates(t *testing.T) {
	s := Start(t, Config{Zones: []string{"Example.ORG.", "example.net"}})
	assert.Equal(t, []string{"example.org", "example.net"}, s.Zones())
	for _, z := range s.Zones() {
		r := s.Query(z, dns.TypeSOA)
		require.Equal(t, dns.RcodeSuccess, r.Rcode, z)
		require.Len(t, r.Answer, 1, z)
	}

	s.Update("example.org", []string{"kept.example.org. 300 IN A 192.0.2.1"}, nil)
	r := s.Query("kept.example.org", dns.TypeA)
	require.Len(t, r.Answer, 1)
	assert.Equal(t, "192.0.2.1", r.Answer[0].(*dns.A).A.String())

	addr := s.Addr()
	s.Restart()
	assert.Equal(t, addr, s.Addr(), "restart keeps the port")
	r = s.Query("kept.example.org", dns.TypeA)
	require.Len(t, r.Answer, 1, "the update survives a restart (journal)")

	s.Stop()
	c := &dns.Client{Net: "udp", Timeout: 300 * time.Millisecond}
	m := new(dns.Msg)
	m.SetQuestion("example.org.", dns.TypeSOA)
	_, _, err := c.Exchange(m, addr)
	assert.Error(t, err, "a stopped server does not answer")
}

func TestKeys(t *testing.T) {
	s := Start(t, Config{})
	keys := s.Keys()
	require.Len(t, keys, 2)
	assert.Equal(t, "hmac-sha256", keys[0].Algorithm)
	assert.Equal(t, "hmac-sha512", keys[1].Algorithm)
	assert.Equal(t, keys[0], s.Key())
	for _, k := range keys {
		// A transfer signed with each key succeeds.
		m := new(dns.Msg)
		m.SetAxfr("example.org.")
		m.SetTsig(k.Name, dns.Fqdn(k.Algorithm), 300, time.Now().Unix())
		tr := &dns.Transfer{TsigSecret: map[string]string{k.Name: k.Secret}}
		env, err := tr.In(m, s.Addr())
		require.NoError(t, err, k.Algorithm)
		n := 0
		for e := range env {
			require.NoError(t, e.Error, k.Algorithm)
			n += len(e.RR)
		}
		assert.Equal(t, 4, n, "SOA, NS, A and the closing SOA with %s", k.Algorithm)
	}
}
