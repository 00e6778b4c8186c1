package rfc2136_test

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/rfc2136"
)

// TestServerRefusalsSayWhatToCheck: NOTAUTH for a bad key and NOTAUTH for
// a zone the server does not serve, and REFUSED, each come back as an
// error that says which, names the zone and says what to check.
func TestServerRefusalsSayWhatToCheck(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	k := srv.Key()
	tests := []struct {
		name      string
		cfg       func(*rfc2136.Config)
		record    string
		class     error
		apply     []string // in the ApplyChanges error
		transfer  []string // in the Records error
		transZone string   // zone of the failing transfer
	}{
		{
			name:   "zone not served",
			cfg:    func(c *rfc2136.Config) { c.Zones = []string{"example.com"} },
			record: "a.example.com",
			class:  rfc2136.ErrNotAuthoritative,
			apply: []string{"rfc2136: zone example.com: create a.example.com A: NOTAUTH: the server is not authoritative for zone example.com",
				"check that the zone is in Config.Zones"},
			transfer: []string{"rfc2136: zone example.com: transfer: NOTAUTH: the server is not authoritative for zone example.com"},
		},
		{
			name:     "wrong secret",
			cfg:      func(c *rfc2136.Config) { c.TSIG.Secret = "d3Jvbmcgc2VjcmV0IHdyb25nIHNlY3JldA==" },
			record:   "a.example.org",
			class:    rfc2136.ErrTSIG,
			apply:    []string{"create a.example.org A: NOTAUTH (TSIG error BADSIG)", "check the key name, secret and algorithm in Config.TSIG", "the records stay as they are"},
			transfer: []string{"rfc2136: zone example.org: transfer: NOTAUTH (TSIG error BADSIG)", "check the key name, secret and algorithm in Config.TSIG"},
		},
		{
			name:     "unknown key",
			cfg:      func(c *rfc2136.Config) { c.TSIG.KeyName = "nobody" },
			record:   "a.example.org",
			class:    rfc2136.ErrTSIG,
			apply:    []string{"NOTAUTH (TSIG error BADKEY)", "check the key name, secret and algorithm in Config.TSIG", "the server changed nothing"},
			transfer: []string{"transfer: NOTAUTH (TSIG error BADKEY)", "check the key name, secret and algorithm in Config.TSIG"},
		},
		{
			name:     "unsigned",
			cfg:      func(c *rfc2136.Config) { c.TSIG = nil },
			record:   "a.example.org",
			class:    rfc2136.ErrRefused,
			apply:    []string{"create a.example.org A: REFUSED: the server refuses every update of zone example.org", "allow-update or update-policy"},
			transfer: []string{"transfer: REFUSED: the server refuses to transfer zone example.org", "allow-transfer"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, srv, func(c *rfc2136.Config) {
				c.TSIG = &rfc2136.TSIG{KeyName: k.Name, Algorithm: k.Algorithm, Secret: k.Secret}
				tt.cfg(c)
			})
			err := p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{ep(tt.record, "A", 300, "192.0.2.1")}})
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.class)
			for _, s := range tt.apply {
				assert.Contains(t, err.Error(), s)
			}
			assert.NotContains(t, err.Error(), "bad authentication")

			_, err = p.Records(t.Context())
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.class)
			for _, s := range tt.transfer {
				assert.Contains(t, err.Error(), s)
			}
			assert.NotContains(t, err.Error(), "bad authentication")
		})
	}

	t.Run("one change refused", func(t *testing.T) {
		p := newProvider(t, srv)
		// named refuses an MX whose in-zone target has no address, and
		// accepts the zone's other updates.
		err := p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{ep("mx.example.org", "MX", 300, "10 nowhere.example.org")}})
		require.ErrorIs(t, err, rfc2136.ErrRefused)
		assert.Contains(t, err.Error(), "create mx.example.org MX: REFUSED: the server refused these changes but accepts updates of zone example.org")
	})
}

// TestNotZone: a server answering NOTZONE (named does not, to this
// provider: its names are always in the zone) gets an error saying so.
func TestNotZone(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	started := make(chan struct{})
	s := &dns.Server{Listener: l, NotifyStartedFunc: func() { close(started) },
		MsgAcceptFunc: func(dns.Header) dns.MsgAcceptAction { return dns.MsgAccept }, // UPDATE too
		Handler: dns.HandlerFunc(func(w dns.ResponseWriter, req *dns.Msg) {
			r := new(dns.Msg)
			r.SetRcode(req, dns.RcodeNotZone)
			_ = w.WriteMsg(r)
		})}
	go func() { _ = s.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = s.Shutdown() })

	p, err := rfc2136.New(rfc2136.Config{Server: l.Addr().String(), Zones: []string{"example.org"}})
	require.NoError(t, err)
	err = p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{ep("a.example.org", "A", 300, "192.0.2.1")}})
	require.ErrorIs(t, err, rfc2136.ErrNotZone)
	assert.Contains(t, err.Error(), "create a.example.org A: NOTZONE: the server holds a name of the update outside zone example.org")
	var rc *rfc2136.RcodeError
	require.ErrorAs(t, err, &rc)
	assert.Equal(t, dns.RcodeNotZone, rc.Rcode)
	assert.False(t, errors.Is(err, rfc2136.ErrNotAuthoritative))
}

func TestNewRejectsNonBase64Secret(t *testing.T) {
	for _, secret := range []string{"not base64!", "c2VjcmV0", "c2VjcmV0\x00"} {
		_, err := rfc2136.New(rfc2136.Config{Server: "127.0.0.1", Zones: []string{"example.org"},
			TSIG: &rfc2136.TSIG{KeyName: "k", Algorithm: "hmac-sha256", Secret: secret}})
		if secret == "c2VjcmV0" {
			assert.NoError(t, err)
			continue
		}
		require.ErrorIs(t, err, rfc2136.ErrInvalidConfig, "%q", secret)
		assert.Contains(t, err.Error(), "Config.TSIG.Secret is not standard base64")
		assert.Contains(t, err.Error(), "copy the secret of the server's key statement", "says what to change")
		assert.False(t, strings.Contains(err.Error(), secret), "the secret is not echoed")
	}
}
