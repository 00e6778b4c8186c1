package rfc2136_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/verify"
)

// externalDNSRR is the presentation text external-dns v0.23's rfc2136
// provider builds for one target of an endpoint (AddRecord), which it
// passes to dns.NewRR; bindtest's Server.Update does the same.
func externalDNSRR(name string, ttl int, recordType, target string) string {
	return fmt.Sprintf("%s %d %s %s", name, ttl, recordType, target)
}

// txtRdata returns the RDATA bytes of each TXT RR at name as named serves
// it, sorted.
func txtRdata(t *testing.T, srv *bindtest.Server, name string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, rr := range srv.Query(name, dns.TypeTXT).Answer {
		if rr.Header().Rrtype != dns.TypeTXT {
			continue
		}
		buf := make([]byte, dns.Len(rr)+16)
		n, err := dns.PackRR(rr, buf, 0, nil, false)
		require.NoError(t, err)
		out = append(out, buf[n-int(rr.Header().Rdlength):n])
	}
	slices.SortFunc(out, func(a, b []byte) int { return strings.Compare(string(a), string(b)) })
	return out
}

// txtStrings returns the character-strings of each TXT RR at name, in
// miekg/dns's presentation escaping, as dig shows them.
func txtStrings(t *testing.T, srv *bindtest.Server, name string) [][]string {
	t.Helper()
	var out [][]string
	for _, rr := range srv.Query(name, dns.TypeTXT).Answer {
		if r, ok := rr.(*dns.TXT); ok {
			out = append(out, r.Txt)
		}
	}
	return out
}

// runQuiet runs n cycles of r and requires that none plans a change.
func runQuiet(t *testing.T, r *zonesync.Reconciler, n int) {
	t.Helper()
	for i := range n {
		cyc, err := r.RunOnce(t.Context())
		changes := cyc.Changes
		require.NoError(t, err)
		require.False(t, changes.HasChanges(), "cycle %d of a converged zone plans: %s", i+1, describeChanges(changes))
	}
}

func describeChanges(c *plan.Changes) string {
	var b strings.Builder
	for _, l := range []struct {
		verb string
		eps  []*endpoint.Endpoint
	}{{"create", c.Create}, {"update-old", c.UpdateOld}, {"update-new", c.UpdateNew}, {"delete", c.Delete}} {
		for _, ep := range l.eps {
			fmt.Fprintf(&b, "%s %s %q; ", l.verb, ep.Key(), []string(ep.Targets))
		}
	}
	return b.String()
}

const ownText = "heritage=external-dns,external-dns/owner=e2e,external-dns/resource="

// (a) zonesync writes the ownership TXT as external-dns does: one
// character-string without the quotes, byte for byte the RDATA of the RR
// external-dns's code path builds from the same target.
func TestTXTOwnershipWrittenAsExternalDNS(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{"example.org"}})
	reg, err := txt.New(newProvider(t, srv), txt.Config{OwnerID: "e2e", ManagedRecordTypes: managedTypes})
	require.NoError(t, err)
	long := `"v=DKIM1; k=rsa; p=` + strings.Repeat("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A", 12) + `"` // > 255 bytes
	src := source.NewStatic(
		endpoint.NewEndpointWithTTL("www.example.org", endpoint.RecordTypeA, 300, "192.0.2.1").
			WithLabel(endpoint.ResourceLabelKey, "service/default/www"),
		endpoint.NewEndpointWithTTL("spf.example.org", endpoint.RecordTypeTXT, 300, `"v=spf1 -all"`).
			WithLabel(endpoint.ResourceLabelKey, "service/default/spf"),
		endpoint.NewEndpointWithTTL("dkim.example.org", endpoint.RecordTypeTXT, 300, long).
			WithLabel(endpoint.ResourceLabelKey, "service/default/dkim"),
	)
	r := &zonesync.Reconciler{Source: src, Registry: reg}
	cyc, err := r.RunOnce(t.Context())
	changes := cyc.Changes
	require.NoError(t, err)
	require.Len(t, changes.Create, 3)
	runQuiet(t, r, 2)

	ownWWW := `"` + ownText + `service/default/www"`
	assert.Equal(t, [][]string{{ownText + "service/default/www"}}, txtStrings(t, srv, "a-www.example.org"),
		"one character-string, no quotes")

	// The same targets through external-dns's code path, at other names.
	srv.Update("example.org", []string{
		externalDNSRR("a-ext.example.org", 300, "TXT", ownWWW),
		externalDNSRR("spf-ext.example.org", 300, "TXT", `"v=spf1 -all"`),
		externalDNSRR("dkim-ext.example.org", 300, "TXT", long),
	}, nil)
	assert.Equal(t, txtRdata(t, srv, "a-ext.example.org"), txtRdata(t, srv, "a-www.example.org"))
	assert.Equal(t, txtRdata(t, srv, "spf-ext.example.org"), txtRdata(t, srv, "spf.example.org"))
	assert.Equal(t, txtRdata(t, srv, "dkim-ext.example.org"), txtRdata(t, srv, "dkim.example.org"))
	assert.Len(t, txtStrings(t, srv, "dkim.example.org")[0], 2, "a value over 255 bytes: two character-strings, as dns.NewRR cuts it")
}

// (b) Records and ownership written by external-dns's rfc2136 provider
// (the presentation texts it builds, through dns.NewRR) are owned by
// zonesync's registry, and a Reconciler over them plans nothing, cycle
// after cycle; then it takes over: updates and deletes them.
func TestTXTReadsExternalDNSForm(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{"example.org"}})
	own := func(resource string) string { return `"` + ownText + resource + `"` }
	srv.Update("example.org", []string{
		externalDNSRR("www.example.org", 300, "A", "192.0.2.1"),
		externalDNSRR("a-www.example.org", 300, "TXT", own("service/default/www")),
		externalDNSRR("api.example.org", 300, "CNAME", "www.example.org"),
		externalDNSRR("cname-api.example.org", 300, "TXT", own("ingress/default/api")),
		externalDNSRR("spf.example.org", 300, "TXT", `"v=spf1 -all"`),
		externalDNSRR("txt-spf.example.org", 300, "TXT", own("service/default/spf")),
		externalDNSRR("tok.example.org", 300, "TXT", "token-123"),
		externalDNSRR("txt-tok.example.org", 300, "TXT", own("service/default/tok")),
	}, nil)
	reg, err := txt.New(newProvider(t, srv), txt.Config{OwnerID: "e2e", ManagedRecordTypes: managedTypes})
	require.NoError(t, err)
	recs, err := reg.Records(t.Context())
	require.NoError(t, err)
	owners := map[string]string{}
	for _, r := range recs {
		owners[r.Key().String()] = labelValue(r.Labels, endpoint.OwnerLabelKey)
	}
	for _, k := range []string{"www.example.org/A", "api.example.org/CNAME", "spf.example.org/TXT", "tok.example.org/TXT"} {
		assert.Equal(t, "e2e", owners[k], "%s is owned (%v)", k, owners)
	}

	desired := func(spf string) []*endpoint.Endpoint {
		return []*endpoint.Endpoint{
			endpoint.NewEndpointWithTTL("www.example.org", endpoint.RecordTypeA, 300, "192.0.2.1").
				WithLabel(endpoint.ResourceLabelKey, "service/default/www"),
			endpoint.NewEndpointWithTTL("api.example.org", endpoint.RecordTypeCNAME, 300, "www.example.org").
				WithLabel(endpoint.ResourceLabelKey, "ingress/default/api"),
			endpoint.NewEndpointWithTTL("spf.example.org", endpoint.RecordTypeTXT, 300, spf).
				WithLabel(endpoint.ResourceLabelKey, "service/default/spf"),
			endpoint.NewEndpointWithTTL("tok.example.org", endpoint.RecordTypeTXT, 300, "token-123").
				WithLabel(endpoint.ResourceLabelKey, "service/default/tok"),
		}
	}
	src := source.NewStatic(desired(`"v=spf1 -all"`)...)
	r := &zonesync.Reconciler{Source: src, Registry: reg}
	runQuiet(t, r, 3)

	// Taking over: an update of a TXT record and of an ownership TXT
	// written by external-dns, then deletes.
	eps := desired(`"v=spf1 ~all"`)
	eps[0] = endpoint.NewEndpointWithTTL("www.example.org", endpoint.RecordTypeA, 300, "192.0.2.2").
		WithLabel(endpoint.ResourceLabelKey, "service/other/www")
	src.Set(eps...)
	cyc, err := r.RunOnce(t.Context())
	changes := cyc.Changes
	require.NoError(t, err)
	require.True(t, changes.HasChanges())
	runQuiet(t, r, 2)
	assert.Equal(t, [][]string{{"v=spf1 ~all"}}, txtStrings(t, srv, "spf.example.org"))
	assert.Equal(t, [][]string{{ownText + "service/other/www"}}, txtStrings(t, srv, "a-www.example.org"))

	src.Set(eps[1:]...)
	cyc, err = r.RunOnce(t.Context())
	changes = cyc.Changes
	require.NoError(t, err)
	require.Len(t, changes.Delete, 1)
	runQuiet(t, r, 2)
	assert.Empty(t, txtStrings(t, srv, "a-www.example.org"))
	assert.Empty(t, srv.Query("www.example.org", dns.TypeA).Answer)
}

// (c) Records and ownership written by earlier zonesync releases, the
// quotes as data, are still owned and plan nothing; they can be updated
// and deleted, and an update rewrites them in the current form.
func TestTXTOldFormOwnedUpdatedDeletedHealed(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{"example.org"}})
	oldForm := func(v string) string { return `"` + strings.ReplaceAll(v, `"`, `\"`) + `"` } // quotes as data
	own := func(resource string) string { return `"` + ownText + resource + `"` }
	srv.Update("example.org", []string{
		"www.example.org. 300 IN A 192.0.2.1",
		"a-www.example.org. 0 IN TXT " + oldForm(own("service/default/www")),
		"spf.example.org. 300 IN TXT " + oldForm(`"v=spf1 -all"`),
		"txt-spf.example.org. 0 IN TXT " + oldForm(own("service/default/spf")),
		"gone.example.org. 300 IN A 192.0.2.9",
		"a-gone.example.org. 0 IN TXT " + oldForm(own("service/default/gone")),
		"multi.example.org. 300 IN TXT " + oldForm(`"one"`),
		"multi.example.org. 300 IN TXT two", // new form next to an old one
		"txt-multi.example.org. 0 IN TXT " + oldForm(own("service/default/multi")),
	}, nil)
	assert.Equal(t, [][]string{{`\"` + ownText + `service/default/www\"`}}, txtStrings(t, srv, "a-www.example.org"))

	reg, err := txt.New(newProvider(t, srv), txt.Config{OwnerID: "e2e", ManagedRecordTypes: managedTypes})
	require.NoError(t, err)
	desired := []*endpoint.Endpoint{
		endpoint.NewEndpointWithTTL("www.example.org", endpoint.RecordTypeA, 300, "192.0.2.1").
			WithLabel(endpoint.ResourceLabelKey, "service/default/www"),
		endpoint.NewEndpointWithTTL("spf.example.org", endpoint.RecordTypeTXT, 300, `"v=spf1 -all"`).
			WithLabel(endpoint.ResourceLabelKey, "service/default/spf"),
		endpoint.NewEndpointWithTTL("gone.example.org", endpoint.RecordTypeA, 300, "192.0.2.9").
			WithLabel(endpoint.ResourceLabelKey, "service/default/gone"),
		endpoint.NewEndpointWithTTL("multi.example.org", endpoint.RecordTypeTXT, 300, "one", `"two"`).
			WithLabel(endpoint.ResourceLabelKey, "service/default/multi"),
	}
	src := source.NewStatic(desired...)
	r := &zonesync.Reconciler{Source: src, Registry: reg}
	runQuiet(t, r, 3) // owned, and no churn in the old form

	// Update: the old data is removed whatever its form, the new data is
	// written in the current form; the ownership TXT of www heals (its
	// labels change).
	desired[0] = endpoint.NewEndpointWithTTL("www.example.org", endpoint.RecordTypeA, 300, "192.0.2.2").
		WithLabel(endpoint.ResourceLabelKey, "service/other/www")
	desired[1] = endpoint.NewEndpointWithTTL("spf.example.org", endpoint.RecordTypeTXT, 300, `"v=spf1 ~all"`).
		WithLabel(endpoint.ResourceLabelKey, "service/default/spf")
	desired[3] = endpoint.NewEndpointWithTTL("multi.example.org", endpoint.RecordTypeTXT, 300, "one", "three").
		WithLabel(endpoint.ResourceLabelKey, "service/default/multi")
	src.Set(desired[:3]...)
	src.Set(append(desired[:3:3], desired[3])...)
	cyc, err := r.RunOnce(t.Context())
	changes := cyc.Changes
	require.NoError(t, err, "updates of old-form records pass their prerequisites")
	require.Len(t, changes.UpdateNew, 3, describeChanges(changes))
	runQuiet(t, r, 2)
	assert.Equal(t, [][]string{{ownText + "service/other/www"}}, txtStrings(t, srv, "a-www.example.org"), "healed")
	assert.Equal(t, [][]string{{"v=spf1 ~all"}}, txtStrings(t, srv, "spf.example.org"), "healed")
	multi := txtStrings(t, srv, "multi.example.org")
	slices.SortFunc(multi, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	assert.Equal(t, [][]string{{"one"}, {"three"}}, multi, "healed")

	// Delete of an old-form record and of its old-form ownership TXT.
	assert.Len(t, txtStrings(t, srv, "a-gone.example.org"), 1)
	src.Set(desired[0], desired[1], desired[3])
	cyc, err = r.RunOnce(t.Context())
	changes = cyc.Changes
	require.NoError(t, err)
	require.Len(t, changes.Delete, 1, describeChanges(changes))
	runQuiet(t, r, 2)
	assert.Empty(t, txtStrings(t, srv, "a-gone.example.org"))
	assert.Empty(t, srv.Query("gone.example.org", dns.TypeA).Answer)
}

// (d, e) A Reconciler over zonesync's rfc2136 provider and TXT registry
// creates, updates and deletes records over several cycles, and plans
// nothing in between, with TXT values of every kind: the quotes of a
// quoted value are syntax, every other value is written as its bytes and
// reads back as itself; verify agrees with what is served.
func TestTXTReconcilerCycles(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{"example.org"}})
	p := newProvider(t, srv)
	reg, err := txt.New(p, txt.Config{OwnerID: "e2e", ManagedRecordTypes: managedTypes})
	require.NoError(t, err)
	long := strings.Repeat(`a "quoted" \ long value `, 30) // 720 bytes
	values := map[string]string{
		"spaces":   "two words here",
		"quotes":   `say "hi"`,
		"escaped":  `"say \"hi\""`,
		"backs":    `back\slash \\ and \065`,
		"long":     long,
		"longq":    `"` + strings.Repeat("x", 300) + `"`,
		"unicode":  "grüße 日本",
		"unicodeq": `"grüße 日本"`,
		"spf":      `"v=spf1 -all"`,
		"plain":    "token-123",
		"empty":    `""`,
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range values {
			if !yield(k) {
				return
			}
		}
	})
	desired := func(suffix string) []*endpoint.Endpoint {
		var eps []*endpoint.Endpoint
		for _, k := range names {
			v := values[k]
			if suffix != "" && k != "empty" {
				v = strings.TrimSuffix(v, `"`) + suffix
				if strings.HasPrefix(values[k], `"`) && strings.HasSuffix(values[k], `"`) {
					v += `"`
				}
			}
			eps = append(eps, endpoint.NewEndpointWithTTL(k+".example.org", endpoint.RecordTypeTXT, 300, v).
				WithLabel(endpoint.ResourceLabelKey, "service/default/"+k))
		}
		return append(eps, endpoint.NewEndpointWithTTL("www.example.org", endpoint.RecordTypeA, 300, "192.0.2.1").
			WithLabel(endpoint.ResourceLabelKey, "service/default/www"))
	}
	src := source.NewStatic(desired("")...)
	// Every record changes at once on purpose.
	r := &zonesync.Reconciler{Source: src, Registry: reg, Safety: plan.SafetyThreshold{Disabled: true}}
	v, err := verify.New(verify.Options{Nameserver: srv.Addr(), TCP: true})
	require.NoError(t, err)

	check := func(eps []*endpoint.Endpoint) {
		t.Helper()
		recs, err := p.Records(t.Context())
		require.NoError(t, err)
		byKey := map[string]*endpoint.Endpoint{}
		for _, rec := range recs {
			byKey[rec.Key().String()] = rec
		}
		adjusted, err := p.AdjustEndpoints(t.Context(), eps)
		require.NoError(t, err)
		for i, want := range eps {
			got := byKey[want.Key().String()]
			require.NotNil(t, got, want.Key().String())
			assert.Equal(t, []string(adjusted[i].Targets), []string(got.Targets), "%s reads back", want.Key())
			if want.RecordType == endpoint.RecordTypeTXT {
				data := dnstxtData(t, srv, want.DNSName)
				tgt := want.Targets[0]
				if len(tgt) >= 2 && tgt[0] == '"' && tgt[len(tgt)-1] == '"' && !strings.ContainsAny(tgt[1:len(tgt)-1], `"\`) {
					tgt = tgt[1 : len(tgt)-1] // quotes as syntax
				}
				assert.Equal(t, []string{tgt}, data, "data of %s", want.DNSName)
			}
		}
		results, err := v.Verify(t.Context(), eps)
		require.NoError(t, err)
		for _, res := range results {
			assert.Equal(t, verify.Sync, res.Status, "verify %s: seen %q, %v", res.Endpoint.Key(), res.Seen, res.Err)
		}
	}

	cyc, err := r.RunOnce(t.Context())
	changes := cyc.Changes
	require.NoError(t, err)
	require.Len(t, changes.Create, len(values)+1)
	runQuiet(t, r, 3)
	check(desired(""))

	src.Set(desired(" v2")...)
	cyc, err = r.RunOnce(t.Context())
	changes = cyc.Changes
	require.NoError(t, err)
	require.Len(t, changes.UpdateNew, len(values)-1, describeChanges(changes)) // "empty" keeps its value
	runQuiet(t, r, 3)
	check(desired(" v2"))

	eps := desired(" v2")
	src.Set(eps[len(eps)-1])
	cyc, err = r.RunOnce(t.Context())
	changes = cyc.Changes
	require.NoError(t, err)
	require.Len(t, changes.Delete, len(values), describeChanges(changes))
	runQuiet(t, r, 3)
	for _, k := range names {
		assert.Empty(t, txtStrings(t, srv, k+".example.org"), k)
		assert.Empty(t, txtStrings(t, srv, "txt-"+k+".example.org"), k)
	}
}

// dnstxtData returns the data of each TXT RR at name: its
// character-strings unescaped and joined.
func dnstxtData(t *testing.T, srv *bindtest.Server, name string) []string {
	t.Helper()
	var out []string
	for _, rr := range srv.Query(name, dns.TypeTXT).Answer {
		if r, ok := rr.(*dns.TXT); ok {
			buf := make([]byte, dns.Len(r)+16)
			n, err := dns.PackRR(r, buf, 0, nil, false)
			require.NoError(t, err)
			rd := buf[n-int(r.Hdr.Rdlength) : n]
			var b []byte
			for len(rd) > 0 {
				l := int(rd[0])
				b = append(b, rd[1:1+l]...)
				rd = rd[1+l:]
			}
			out = append(out, string(b))
		}
	}
	return out
}

// managedTypes are the types the TXT registry of these tests manages: TXT
// records too.
var managedTypes = []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT}

// An update of a TXT RRset, in either data form, still fails its
// prerequisite when the RRset changed behind zonesync's back, and changes
// nothing.
func TestTXTUpdatePrerequisiteStillGuards(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{"example.org"}})
	p := newProvider(t, srv)
	srv.Update("example.org", []string{
		`new.example.org. 300 IN TXT "v=spf1 -all"`,
		`old.example.org. 300 IN TXT "\"v=spf1 -all\""`,
	}, nil)
	for _, name := range []string{"new.example.org", "old.example.org"} {
		oldEp := endpoint.NewEndpointWithTTL(name, endpoint.RecordTypeTXT, 300, `"v=spf1 -all"`)
		newEp := endpoint.NewEndpointWithTTL(name, endpoint.RecordTypeTXT, 300, `"v=spf1 ~all"`)
		// Someone adds a string behind zonesync's back.
		srv.Update("example.org", []string{name + `. 300 IN TXT "added"`}, nil)
		before := txtRdata(t, srv, name)
		err := p.ApplyChanges(t.Context(), &plan.Changes{UpdateOld: []*endpoint.Endpoint{oldEp}, UpdateNew: []*endpoint.Endpoint{newEp}})
		require.Error(t, err, name)
		assert.ErrorContains(t, err, "NXRRSET", name)
		assert.Equal(t, before, txtRdata(t, srv, name), "%s unchanged", name)
		// With the RRset as read, the update goes through.
		recs, err := p.Records(t.Context())
		require.NoError(t, err)
		var cur *endpoint.Endpoint
		for _, r := range recs {
			if r.DNSName == name && r.RecordType == endpoint.RecordTypeTXT {
				cur = r
			}
		}
		require.NotNil(t, cur)
		assert.ElementsMatch(t, []string{"v=spf1 -all", "added"}, []string(cur.Targets))
		require.NoError(t, p.ApplyChanges(t.Context(), &plan.Changes{UpdateOld: []*endpoint.Endpoint{cur}, UpdateNew: []*endpoint.Endpoint{newEp}}))
		assert.Equal(t, [][]string{{"v=spf1 ~all"}}, txtStrings(t, srv, name))
	}
}
