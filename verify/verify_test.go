package verify_test

import (
	"context"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/verify"
)

func ep(name, typ string, targets ...string) *endpoint.Endpoint {
	return endpoint.NewEndpointWithTTL(name, typ, 300, targets...)
}

func newVerifier(t *testing.T, opts verify.Options) *verify.Verifier {
	t.Helper()
	v, err := verify.New(opts)
	require.NoError(t, err)
	return v
}

// byName returns the result for the endpoint with name and type.
func byName(t *testing.T, results []verify.Result, name, typ string) verify.Result {
	t.Helper()
	for _, r := range results {
		if r.Endpoint.DNSName == name && r.Endpoint.RecordType == typ {
			return r
		}
	}
	t.Fatalf("no result for %s %s", name, typ)
	return verify.Result{}
}

func TestVerifyAgainstNamed(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	long := strings.Repeat("long value ", 40) // 440 bytes: two character-strings
	srv.Update("example.org", []string{
		"www.example.org. 300 IN A 192.0.2.1",
		"www.example.org. 300 IN A 192.0.2.2",
		"v6.example.org. 300 IN AAAA 2001:db8::1",
		"alias.example.org. 300 IN CNAME www.example.org.",
		`txt.example.org. 300 IN TXT "\"heritage=external-dns,external-dns/owner=x\""`,
		`long.example.org. 300 IN TXT "` + long[:255] + `" "` + long[255:] + `"`,
		`own.example.org. 300 IN TXT "heritage=external-dns,external-dns/owner=x"`,
		`spf.example.org. 300 IN TXT "v=spf1 -all"`,
		`oldspf.example.org. 300 IN TXT "\"v=spf1 -all\""`,
		"mail.example.org. 300 IN MX 10 mx.example.net.",
		"changed.example.org. 300 IN A 192.0.2.7",
		"cname.example.org. 300 IN CNAME elsewhere.example.net.",
	}, nil)
	v := newVerifier(t, verify.Options{Nameserver: srv.Addr()})
	eps := []*endpoint.Endpoint{
		ep("www.example.org", "A", "192.0.2.2", "192.0.2.1"),
		ep("V6.Example.ORG.", "AAAA", "2001:DB8:0::1"),
		ep("alias.example.org", "CNAME", "WWW.example.org."),
		ep("txt.example.org", "TXT", `"heritage=external-dns,external-dns/owner=x"`),
		ep("long.example.org", "TXT", long),
		ep("own.example.org", "TXT", `"heritage=external-dns,external-dns/owner=x"`),
		ep("spf.example.org", "TXT", `"v=spf1 -all"`),
		ep("oldspf.example.org", "TXT", "v=spf1 -all"),
		ep("mail.example.org", "MX", "10 mx.example.net"),
		ep("changed.example.org", "A", "192.0.2.3"),
		ep("missing.example.org", "A", "192.0.2.4"),
		ep("cname.example.org", "A", "192.0.2.5"),
		ep("www.example.org", "AAAA", "2001:db8::9"),
	}
	results, err := v.Verify(t.Context(), eps)
	require.NoError(t, err)
	require.Len(t, results, len(eps))

	for _, name := range []struct{ name, typ string }{
		{"www.example.org", "A"}, {"V6.Example.ORG", "AAAA"}, {"alias.example.org", "CNAME"},
		{"txt.example.org", "TXT"}, {"long.example.org", "TXT"}, {"mail.example.org", "MX"},
		// The TXT data forms of provider/rfc2136 (internal/dnstxt): the
		// quotes of a target are syntax, and quotes as data (older
		// zonesync releases) read the same.
		{"own.example.org", "TXT"}, {"spf.example.org", "TXT"}, {"oldspf.example.org", "TXT"},
	} {
		r := byName(t, results, name.name, name.typ)
		assert.Equal(t, verify.Sync, r.Status, "%s %s: seen %q, err %v", name.name, name.typ, r.Seen, r.Err)
		assert.NoError(t, r.Err)
	}

	changed := byName(t, results, "changed.example.org", "A")
	assert.Equal(t, verify.NotSync, changed.Status)
	assert.Equal(t, []string{"192.0.2.7"}, changed.Seen)

	missing := byName(t, results, "missing.example.org", "A")
	assert.Equal(t, verify.NotAvailable, missing.Status)
	assert.ErrorContains(t, missing.Err, "NXDOMAIN")
	assert.ErrorContains(t, missing.Err, "missing.example.org/A")

	cname := byName(t, results, "cname.example.org", "A")
	assert.Equal(t, verify.NotSync, cname.Status, "a CNAME where an A record was expected")
	assert.Equal(t, []string{"CNAME elsewhere.example.net"}, cname.Seen)

	nodata := byName(t, results, "www.example.org", "AAAA")
	assert.Equal(t, verify.NotAvailable, nodata.Status)
	assert.ErrorContains(t, nodata.Err, "no AAAA records")

	// Sorted, whatever the input order.
	reversed := make([]*endpoint.Endpoint, len(eps))
	for i, e := range eps {
		reversed[len(eps)-1-i] = e
	}
	again, err := v.Verify(t.Context(), reversed)
	require.NoError(t, err)
	for i := range results {
		assert.Same(t, results[i].Endpoint, again[i].Endpoint)
	}
	for i := 1; i < len(results); i++ {
		assert.LessOrEqual(t, endpoint.Compare(results[i-1].Endpoint, results[i].Endpoint), 0)
	}

	// Over TCP the answers are the same.
	tcp, err := newVerifier(t, verify.Options{Nameserver: srv.Addr(), TCP: true}).Verify(t.Context(), eps)
	require.NoError(t, err)
	for i := range results {
		assert.Equal(t, results[i].Status, tcp[i].Status, results[i].Endpoint.Key().String())
	}
}

func TestVerifyDeadServer(t *testing.T) {
	// A UDP socket that reads nothing: queries time out.
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = pc.Close() })
	v := newVerifier(t, verify.Options{Nameserver: pc.LocalAddr().String(), Timeout: 200 * time.Millisecond})
	results, err := v.Verify(t.Context(), []*endpoint.Endpoint{ep("a.example.org", "A", "192.0.2.1"), ep("b.example.org", "CNAME", "a.example.org")})
	require.NoError(t, err, "failed lookups are results, not an error")
	for _, r := range results {
		assert.Equal(t, verify.NotAvailable, r.Status)
		assert.ErrorContains(t, r.Err, r.Endpoint.DNSName)
		assert.Error(t, r.Err)
	}
}

func TestVerifyContextCanceled(t *testing.T) {
	v := newVerifier(t, verify.Options{Nameserver: "127.0.0.1:9"})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := v.Verify(ctx, []*endpoint.Endpoint{ep("a.example.org", "A", "192.0.2.1")})
	assert.ErrorIs(t, err, context.Canceled)
}

// TestVerifyBoundsConcurrency counts the lookups in flight at an
// in-process server that holds each query briefly.
func TestVerifyBoundsConcurrency(t *testing.T) {
	var inFlight, peak atomic.Int32
	var mu sync.Mutex
	addr := startServer(t, dns.HandlerFunc(func(w dns.ResponseWriter, q *dns.Msg) {
		n := inFlight.Add(1)
		mu.Lock()
		if n > peak.Load() {
			peak.Store(n)
		}
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		inFlight.Add(-1)
		m := new(dns.Msg)
		m.SetReply(q)
		rr, _ := dns.NewRR(q.Question[0].Name + " 300 IN A 192.0.2.1")
		m.Answer = []dns.RR{rr}
		_ = w.WriteMsg(m)
	}))
	var eps []*endpoint.Endpoint
	for i := range 30 {
		eps = append(eps, ep("n"+strings.Repeat("x", i)+".example.org", "A", "192.0.2.1"))
	}
	for _, workers := range []int{0, 3} {
		peak.Store(0)
		v := newVerifier(t, verify.Options{Nameserver: addr, Workers: workers})
		results, err := v.Verify(t.Context(), eps)
		require.NoError(t, err)
		for _, r := range results {
			require.Equal(t, verify.Sync, r.Status, "%v", r.Err)
		}
		limit := int32(workers)
		if workers == 0 {
			limit = verify.DefaultWorkers
		}
		assert.LessOrEqual(t, peak.Load(), limit, "workers=%d", workers)
		assert.Greater(t, peak.Load(), int32(1), "lookups run in parallel")
	}
}

// startServer serves handler on a loopback UDP port until the test ends.
func startServer(t testing.TB, handler dns.Handler) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	started := make(chan struct{})
	srv := &dns.Server{PacketConn: pc, Handler: handler, NotifyStartedFunc: func() { close(started) }}
	go func() { _ = srv.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = srv.Shutdown() })
	return pc.LocalAddr().String()
}

func TestNewInvalidOptions(t *testing.T) {
	tests := []struct {
		name  string
		opts  verify.Options
		field string // named in the error; empty: valid
	}{
		{name: "nameserver only", opts: verify.Options{Nameserver: "192.0.2.53"}},
		{name: "all set", opts: verify.Options{Nameserver: "192.0.2.53:5353", Workers: 1, Timeout: time.Second, TCP: true}},
		{name: "empty nameserver", field: "Options.Nameserver is empty"},
		{name: "blank nameserver", opts: verify.Options{Nameserver: "  "}, field: "Options.Nameserver is empty"},
		{name: "negative Workers", opts: verify.Options{Nameserver: "192.0.2.53", Workers: -1}, field: "Options.Workers"},
		{name: "negative Timeout", opts: verify.Options{Nameserver: "192.0.2.53", Timeout: -time.Second}, field: "Options.Timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := verify.New(tt.opts)
			if tt.field == "" {
				require.NoError(t, err)
				require.NotNil(t, v)
				return
			}
			require.ErrorIs(t, err, verify.ErrInvalidOptions)
			assert.Contains(t, err.Error(), tt.field)
			assert.Nil(t, v)
		})
	}
}
