package rfc2136_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/rfc2136"
)

func ep(name, typ string, ttl endpoint.TTL, targets ...string) *endpoint.Endpoint {
	return endpoint.NewEndpointWithTTL(name, typ, ttl, targets...)
}

func records(t *testing.T, p provider.Provider) []*endpoint.Endpoint {
	t.Helper()
	recs, err := p.Records(t.Context())
	require.NoError(t, err)
	return recs
}

// find returns the record with the name and type, or nil.
func find(recs []*endpoint.Endpoint, name, typ string) *endpoint.Endpoint {
	for _, r := range recs {
		if r.DNSName == name && r.RecordType == typ {
			return r
		}
	}
	return nil
}

func TestRecordTypesRoundTrip(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	p := newProvider(t, srv)
	long := strings.Repeat("0123456789", 60) // 600 bytes: three character-strings
	eps := []*endpoint.Endpoint{
		ep("multi.example.org", "A", 60, "192.0.2.3", "192.0.2.1", "192.0.2.2"),
		ep("v6.example.org", "AAAA", 300, "2001:db8::1", "2001:db8::2"),
		ep("alias.example.org", "CNAME", 300, "target.example.com"),
		ep("mail.example.org", "MX", 300, "10 mx1.example.net", "20 mx2.example.net"),
		ep("_sip._tcp.example.org", "SRV", 300, "1 5 5060 sip.example.org."),
		ep("sub.example.org", "NS", 300, "ns1.example.net", "ns2.example.net"),
		ep("1.2.0.192.example.org", "PTR", 300, "host.example.org"),
		ep("naptr.example.org", "NAPTR", 300, `100 10 "S" "SIP+D2U" "" _sip._udp.example.org.`),
		ep("txt.example.org", "TXT", 300,
			`"heritage=external-dns,external-dns/owner=default"`,
			`back\slash and "quotes" and a ; semicolon`,
			"non-ASCII: grüße, 日本, and a tab\there",
			long,
			"",
		),
	}
	require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Create: eps}), srv.Stderr())
	recs := records(t, p)
	for _, want := range eps {
		got := find(recs, want.DNSName, want.RecordType)
		if !assert.NotNil(t, got, "%s missing", want.Key()) {
			continue
		}
		assert.True(t, got.Targets.Same(want.Targets), "%s: got %q, want %q", want.Key(), got.Targets, want.Targets)
		assert.Equal(t, want.RecordTTL, got.RecordTTL, want.Key().String())
	}
	// TXT values are exact, byte for byte.
	got := find(recs, "txt.example.org", "TXT")
	require.NotNil(t, got)
	assert.ElementsMatch(t, eps[len(eps)-1].Targets, []string(got.Targets))

	// On the wire: a long value is split at 255 bytes, quotes and
	// backslashes are data.
	r := srv.Query("txt.example.org", dns.TypeTXT)
	var parts [][]string
	for _, rr := range r.Answer {
		parts = append(parts, rr.(*dns.TXT).Txt)
	}
	assert.Contains(t, parts, []string{long[:255], long[255:510], long[510:]})
	assert.Contains(t, parts, []string{`back\\slash and \"quotes\" and a ; semicolon`})

	// SOA and the apex NS are not records; the delegation NS is.
	assert.Nil(t, find(recs, "example.org", "NS"))
	assert.Nil(t, find(recs, "example.org", "SOA"))
	assert.NotNil(t, find(recs, "ns.example.org", "A"), "records of the zone file are read too")
	assert.True(t, slices.IsSortedFunc(recs, endpoint.Compare))
	for _, r := range recs {
		assert.True(t, slices.IsSorted(r.Targets), "targets of %s are sorted: %q", r.Key(), r.Targets)
	}
}

func TestDefaultAndMinimumTTL(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	p := newProvider(t, srv, func(c *rfc2136.Config) { c.DefaultTTL = 120; c.MinTTL = 60 })
	in := []*endpoint.Endpoint{ep("short.example.org", "A", 10, "192.0.2.1"), ep("unset.example.org", "A", 0, "192.0.2.2")}
	adjusted, err := p.AdjustEndpoints(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, endpoint.TTL(10), in[0].RecordTTL, "input not modified")
	assert.Equal(t, endpoint.TTL(60), adjusted[0].RecordTTL)
	require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Create: adjusted}))
	recs := records(t, p)
	assert.Equal(t, endpoint.TTL(60), find(recs, "short.example.org", "A").RecordTTL)
	assert.Equal(t, endpoint.TTL(120), find(recs, "unset.example.org", "A").RecordTTL)
}

func TestDeleteRemovesOnlyItsTargets(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	p := newProvider(t, srv)
	mine := ep("shared.example.org", "A", 300, "192.0.2.1", "192.0.2.2")
	require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{mine}}))
	srv.Update("example.org", []string{"shared.example.org. 300 IN A 192.0.2.99"}, nil) // someone else's

	require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Delete: []*endpoint.Endpoint{mine}}))
	got := find(records(t, p), "shared.example.org", "A")
	require.NotNil(t, got, "the other target survives")
	assert.Equal(t, endpoint.Targets{"192.0.2.99"}, got.Targets)
}

func TestUpdateDetectsChangesBehindItsBack(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	p := newProvider(t, srv)
	old := ep("raced.example.org", "A", 300, "192.0.2.1")
	require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{old}}))
	srv.Update("example.org", []string{"raced.example.org. 300 IN A 192.0.2.7"}, []string{"raced.example.org. 300 IN A 192.0.2.1"})

	err := p.ApplyChanges(t.Context(), &plan.Changes{
		UpdateOld: []*endpoint.Endpoint{old},
		UpdateNew: []*endpoint.Endpoint{ep("raced.example.org", "A", 300, "192.0.2.3")},
	})
	require.Error(t, err)
	var rc *rfc2136.RcodeError
	require.ErrorAs(t, err, &rc)
	assert.Equal(t, dns.RcodeNXRrset, rc.Rcode)
	assert.Equal(t, "rfc2136: zone example.org: update raced.example.org A: NXRRSET", rc.Error())
	assert.False(t, errors.Is(err, provider.SoftError), "a conflict is not transient")
	assert.Equal(t, endpoint.Targets{"192.0.2.7"}, find(records(t, p), "raced.example.org", "A").Targets)
}

func TestBatchWithOneBadChangeAppliesTheOthers(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	p := newProvider(t, srv, func(c *rfc2136.Config) { c.MaxChangesPerUpdate = 100 })
	require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{
		ep("taken.example.org", "A", 300, "192.0.2.1"),
		ep("taken2.example.org", "A", 300, "192.0.2.2"),
	}}))

	creates := []*endpoint.Endpoint{
		ep("b1.example.org", "A", 300, "192.0.2.11"),
		ep("taken.example.org", "A", 300, "192.0.2.12"),
		ep("b2.example.org", "TXT", 300, "text"),
		ep("taken2.example.org", "CNAME", 300, "elsewhere.example.org"),
		ep("b3.example.org", "A", 300, "192.0.2.13"),
		// named refuses an MX whose in-zone target has no address.
		ep("mx.example.org", "MX", 300, "10 nowhere.example.org"),
		ep("b4.example.org", "AAAA", 300, "2001:db8::4"),
	}
	err := p.ApplyChanges(t.Context(), &plan.Changes{Create: creates})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rfc2136: zone example.org: create taken.example.org A: YXRRSET")
	assert.Contains(t, err.Error(), "rfc2136: zone example.org: create taken2.example.org CNAME: YXDOMAIN")
	assert.Contains(t, err.Error(), "rfc2136: zone example.org: create mx.example.org MX: REFUSED")
	assert.NotContains(t, err.Error(), "b1.example.org")
	recs := records(t, p)
	for _, ok := range []*endpoint.Endpoint{creates[0], creates[2], creates[4], creates[6]} {
		assert.NotNil(t, find(recs, ok.DNSName, ok.RecordType), "%s applied", ok.Key())
	}
	assert.Equal(t, endpoint.Targets{"192.0.2.1"}, find(recs, "taken.example.org", "A").Targets)
	assert.Nil(t, find(recs, "taken2.example.org", "CNAME"))
}

func TestTypeChangeDeletesBeforeCreating(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	p := newProvider(t, srv)
	a := ep("switch.example.org", "A", 300, "192.0.2.1")
	require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{a}}))
	cname := ep("switch.example.org", "CNAME", 300, "other.example.org")
	require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{cname}, Delete: []*endpoint.Endpoint{a}}))
	recs := records(t, p)
	assert.Nil(t, find(recs, "switch.example.org", "A"))
	assert.NotNil(t, find(recs, "switch.example.org", "CNAME"))
}

func TestFailingZoneDoesNotStopOthers(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{"example.org", "example.net"}})
	// example.com is configured but not served: the server refuses it.
	p := newProvider(t, srv, func(c *rfc2136.Config) { c.Zones = append(c.Zones, "example.com") })
	err := p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{
		ep("a.example.com", "A", 300, "192.0.2.1"),
		ep("a.example.net", "A", 300, "192.0.2.2"),
		ep("a.example.org", "A", 300, "192.0.2.3"),
		ep("a.example.edu", "A", 300, "192.0.2.4"),
	}})
	require.Error(t, err)
	var rc *rfc2136.RcodeError
	require.ErrorAs(t, err, &rc)
	assert.Equal(t, "example.com", rc.Zone)
	assert.Contains(t, []int{dns.RcodeNotAuth, dns.RcodeRefused}, rc.Rcode)
	assert.Contains(t, err.Error(), "record a.example.edu/A: no configured zone")

	_, err = p.Records(t.Context())
	require.Error(t, err, "Records fails when a zone cannot be transferred")
	assert.Contains(t, err.Error(), "rfc2136: zone example.com: transfer:")

	ok := newProvider(t, srv)
	recs := records(t, ok)
	assert.NotNil(t, find(recs, "a.example.net", "A"))
	assert.NotNil(t, find(recs, "a.example.org", "A"))
}

func TestNestedZones(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{"example.org", "sub.example.org"}})
	p := newProvider(t, srv)
	require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{
		ep("www.sub.example.org", "A", 300, "192.0.2.1"),
		ep("www.example.org", "A", 300, "192.0.2.2"),
	}}))
	// The parent zone holds the name as well (no delegation); only the
	// child zone's copy counts.
	srv.Update("example.org", []string{"www.sub.example.org. 300 IN A 192.0.2.66"}, nil)
	recs := records(t, p)
	got := find(recs, "www.sub.example.org", "A")
	require.NotNil(t, got)
	assert.Equal(t, endpoint.Targets{"192.0.2.1"}, got.Targets, "written to and read from the most specific zone")
	assert.NotNil(t, find(recs, "www.example.org", "A"))
}

func TestTSIG(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	for _, k := range srv.Keys() {
		t.Run(k.Algorithm, func(t *testing.T) {
			p := newProvider(t, srv, func(c *rfc2136.Config) {
				c.TSIG = &rfc2136.TSIG{KeyName: strings.ToUpper(strings.TrimSuffix(k.Name, ".")), Algorithm: strings.ToUpper(k.Algorithm), Secret: k.Secret}
			})
			e := ep(k.Algorithm+".example.org", "A", 300, "192.0.2.1")
			require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{e}}))
			assert.NotNil(t, find(records(t, p), e.DNSName, "A"))
		})
	}
	t.Run("wrong secret", func(t *testing.T) {
		p := newProvider(t, srv, func(c *rfc2136.Config) { c.TSIG.Secret = "d3Jvbmcgc2VjcmV0IHdyb25nIHNlY3JldA==" })
		err := p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{ep("bad.example.org", "A", 300, "192.0.2.1")}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "zone example.org")
		assert.False(t, errors.Is(err, provider.SoftError), "a bad key is not transient: %v", err)
		_, err = p.Records(t.Context())
		require.Error(t, err)
		assert.False(t, errors.Is(err, provider.SoftError), "a bad key is not transient: %v", err)
	})
	t.Run("unsigned", func(t *testing.T) {
		p := newProvider(t, srv, func(c *rfc2136.Config) { c.TSIG = nil })
		err := p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{
			ep("unsigned1.example.org", "A", 300, "192.0.2.1"),
			ep("unsigned2.example.org", "A", 300, "192.0.2.2"),
			ep("unsigned3.example.org", "A", 300, "192.0.2.3"),
		}})
		var rc *rfc2136.RcodeError
		require.ErrorAs(t, err, &rc)
		assert.Equal(t, dns.RcodeRefused, rc.Rcode)
		// The zone refuses everything: one error for the batch, not one
		// per change.
		assert.Equal(t, 1, strings.Count(err.Error(), "REFUSED"), err.Error())
		assert.Contains(t, err.Error(), "create unsigned1.example.org A and 2 more changes: REFUSED")
	})
}

func TestUnreachableServerIsSoft(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close()) // nothing listens there now

	p, err := rfc2136.New(rfc2136.Config{Server: addr, Zones: []string{"example.org"}, Timeout: 2 * time.Second})
	require.NoError(t, err)
	_, err = p.Records(t.Context())
	require.Error(t, err)
	assert.True(t, errors.Is(err, provider.SoftError), "%v", err)
	assert.Contains(t, err.Error(), "zone example.org")
	err = p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{ep("a.example.org", "A", 300, "192.0.2.1")}})
	assert.True(t, errors.Is(err, provider.SoftError), "%v", err)
}

func TestSilentServerTimesOut(t *testing.T) {
	// A server that accepts connections and never answers.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				_ = c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	p, err := rfc2136.New(rfc2136.Config{Server: l.Addr().String(), Zones: []string{"example.org"}, Timeout: 200 * time.Millisecond})
	require.NoError(t, err)
	_, err = p.Records(t.Context())
	require.Error(t, err)
	assert.True(t, errors.Is(err, provider.SoftError), "%v", err)
	err = p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{ep("a.example.org", "A", 300, "192.0.2.1")}})
	require.Error(t, err)
	assert.True(t, errors.Is(err, provider.SoftError), "%v", err)

	// A context that ends first wins, and its error is wrapped.
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	slow, err := rfc2136.New(rfc2136.Config{Server: l.Addr().String(), Zones: []string{"example.org"}, Timeout: time.Hour})
	require.NoError(t, err)
	_, err = slow.Records(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	err = slow.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{ep("a.example.org", "A", 300, "192.0.2.1")}})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestInvalidChanges(t *testing.T) {
	p, err := rfc2136.New(rfc2136.Config{Server: "127.0.0.1:1", Zones: []string{"example.org"}})
	require.NoError(t, err)
	tests := []struct {
		name    string
		changes *plan.Changes
		want    string
	}{
		{"bad target", &plan.Changes{Create: []*endpoint.Endpoint{ep("a.example.org", "A", 0, "not-an-ip")}},
			"zone example.org: create a.example.org A: A target \"not-an-ip\""},
		{"injected field", &plan.Changes{Create: []*endpoint.Endpoint{ep("a.example.org", "MX", 0, "10 mx.example.org ; x")}},
			"create a.example.org MX: MX target"},
		{"unsupported type", &plan.Changes{Create: []*endpoint.Endpoint{ep("a.example.org", "TLSA", 0, "3 1 1 ab")}},
			"record type \"TLSA\" is not supported"},
		{"set identifier", &plan.Changes{Create: []*endpoint.Endpoint{ep("a.example.org", "A", 0, "192.0.2.1").WithSetIdentifier("eu")}},
			"set identifiers are not supported"},
		{"name outside the zones", &plan.Changes{Delete: []*endpoint.Endpoint{ep("a.example.com", "A", 0, "192.0.2.1")}},
			"record a.example.com/A: no configured zone"},
		{"update changes the type", &plan.Changes{
			UpdateOld: []*endpoint.Endpoint{ep("a.example.org", "A", 0, "192.0.2.1")},
			UpdateNew: []*endpoint.Endpoint{ep("a.example.org", "AAAA", 0, "2001:db8::1")}},
			"an update cannot change the name or type"},
		{"unpaired update", &plan.Changes{UpdateNew: []*endpoint.Endpoint{ep("a.example.org", "A", 0, "192.0.2.1")}},
			"0 UpdateOld entries for 1 UpdateNew entries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.ApplyChanges(t.Context(), tt.changes)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	key := &rfc2136.TSIG{KeyName: "k", Algorithm: "hmac-sha256", Secret: "c2VjcmV0"}
	tests := []struct {
		name string
		cfg  rfc2136.Config
		want []string // parts of the error: the field at fault, what to set
	}{
		{"no server", rfc2136.Config{Zones: []string{"example.org"}}, []string{"Config.Server is empty", "primary name server"}},
		{"no zones", rfc2136.Config{Server: "127.0.0.1", Zones: []string{" "}}, []string{"Config.Zones is empty", "list the zones"}},
		{"root zone", rfc2136.Config{Server: "127.0.0.1", Zones: []string{"."}}, []string{"root zone"}},
		{"key without name", rfc2136.Config{Server: "127.0.0.1", Zones: []string{"example.org"}, TSIG: &rfc2136.TSIG{Algorithm: "hmac-sha256", Secret: "c2VjcmV0"}},
			[]string{"Config.TSIG.KeyName is empty", "name of the server's key statement", "Config.TSIG to nil"}},
		{"key without secret", rfc2136.Config{Server: "127.0.0.1", Zones: []string{"example.org"}, TSIG: &rfc2136.TSIG{KeyName: "k", Algorithm: "hmac-sha512"}},
			[]string{"Config.TSIG.Secret is empty", "secret of the server's key statement"}},
		{"unknown algorithm", rfc2136.Config{Server: "127.0.0.1", Zones: []string{"example.org"}, TSIG: &rfc2136.TSIG{KeyName: "k", Algorithm: "hmac-md5", Secret: "c2VjcmV0"}},
			[]string{`Config.TSIG.Algorithm "hmac-md5" is not supported`, "use hmac-sha256 or hmac-sha512"}},
		{"negative min TTL", rfc2136.Config{Server: "127.0.0.1", Zones: []string{"example.org"}, TSIG: key, MinTTL: -1}, []string{"Config.MinTTL"}},
		{"invalid zone", rfc2136.Config{Server: "127.0.0.1", Zones: []string{"bad..example.org"}}, []string{"Config.Zones", `"bad..example.org"`}},
		{"negative timeout", rfc2136.Config{Server: "127.0.0.1", Zones: []string{"example.org"}, Timeout: -time.Second}, []string{"Config.Timeout", "zero means"}},
		{"negative max changes", rfc2136.Config{Server: "127.0.0.1", Zones: []string{"example.org"}, MaxChangesPerUpdate: -1}, []string{"Config.MaxChangesPerUpdate", "zero means"}},
		{"negative default TTL", rfc2136.Config{Server: "127.0.0.1", Zones: []string{"example.org"}, DefaultTTL: -1}, []string{"Config.DefaultTTL", "zero means"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := rfc2136.New(tt.cfg)
			require.ErrorIs(t, err, rfc2136.ErrInvalidConfig)
			assert.Nil(t, p)
			for _, part := range tt.want {
				assert.Contains(t, err.Error(), part)
			}
		})
	}
}

func TestNoOtherDataBesideACNAME(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	p := newProvider(t, srv)
	require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{
		ep("alias.example.org", "CNAME", 300, "www.example.org"),
	}}))
	// named would silently ignore an A record added next to the CNAME; the
	// prerequisite turns that into an error naming the record.
	err := p.ApplyChanges(t.Context(), &plan.Changes{Create: []*endpoint.Endpoint{ep("alias.example.org", "A", 300, "192.0.2.1")}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rfc2136: zone example.org: create alias.example.org A: YXRRSET")
	assert.Nil(t, find(records(t, p), "alias.example.org", "A"))
}

func TestLogsThroughTheContext(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	p := newProvider(t, srv)
	var mu sync.Mutex
	var lines []string
	log := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, args)
	}, funcr.Options{Verbosity: 1})
	ctx := logr.NewContext(t.Context(), log)
	require.NoError(t, p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{ep("logged.example.org", "A", 300, "192.0.2.1")}}))
	_, err := p.Records(ctx)
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	joined := strings.Join(lines, "\n")
	assert.Contains(t, joined, `"msg"="rfc2136: update applied" "zone"="example.org" "changes"=1`)
	assert.Contains(t, joined, `"msg"="rfc2136: zone transferred" "zone"="example.org"`)
}
