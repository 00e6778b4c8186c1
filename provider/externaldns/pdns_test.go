package externaldns_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	"sigs.k8s.io/external-dns/provider/pdns"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/provider/externaldns/internal/pdnstest"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// newPDNS constructs external-dns's pdns provider for srv the way a user
// moving from external-dns would: from its command-line flags.
func newPDNS(t testing.TB, srv *pdnstest.Server, zones ...string) *externaldns.Provider {
	t.Helper()
	cfg, err := externaldns.ParseFlags([]string{
		"--provider=pdns",
		"--pdns-server=" + srv.APIURL(),
		"--pdns-api-key=" + srv.APIKey(),
	})
	require.NoError(t, err)
	require.Equal(t, pdnstest.ServerID, cfg.PDNSServerID, "the flag's default server id is PowerDNS's only one")
	p, err := externaldns.New(context.Background(), pdns.New, cfg, xendpoint.NewDomainFilter(zones))
	require.NoError(t, err)
	require.Equal(t, "pdns", p.Name())
	return p
}

// pdnsTXTGap is why external-dns's pdns provider fails every rule that
// writes a plain TXT value.
const pdnsTXTGap = "external-dns's pdns provider sends a TXT target as the PowerDNS record content unchanged, " +
	"and PowerDNS parses content in zone-file form, where TXT data must be quoted: a plain value such as " +
	"zs-conformance-text is refused (422, \"Data field in DNS should start with quote\"), and the provider's " +
	"Records returns TXT data with PowerDNS's quotes; only values written already quoted (as the TXT registry's " +
	"ownership records are) round-trip"

// pdnsOptions declares what external-dns's pdns provider (v0.23) lacks
// against PowerDNS 4.7.
func pdnsOptions() providertest.Options {
	lacks := map[string]string{
		providertest.RuleChangeMissing: "external-dns's pdns provider deletes with a PATCH of changetype DELETE, " +
			"which PowerDNS accepts (204) for an RRset that does not exist, so deleting a missing record succeeds",
	}
	for _, b := range []string{
		providertest.RuleCreate, providertest.RuleDelete, providertest.RuleWildcardNames,
		providertest.RuleMultiTarget, providertest.RuleTXTQuotes, providertest.RuleTXTLongValues,
		providertest.RuleAdjustEndpoints, providertest.RuleSortedRecords,
	} {
		lacks[b] = pdnsTXTGap
	}
	return providertest.Options{
		Zone: "example.org",
		// The provider keys PowerDNS RRsets by name and type only and
		// ignores set identifiers: two records differing in set
		// identifier are one duplicate RRset to PowerDNS.
		NoSetIdentifier: true,
		// Creates and updates are PATCHes of changetype REPLACE: a create
		// replaces an existing RRset, an update of a missing one creates
		// it.
		Upsert: true,
		Lacks:  lacks,
	}
}

// TestConformancePDNS runs the provider conformance suite on external-dns's
// pdns provider, through the adapter, against a real PowerDNS.
func TestConformancePDNS(t *testing.T) {
	srv := pdnstest.Start(t, pdnstest.Config{})
	srv.CreateZone("example.org")
	providertest.TestProvider(t, newPDNS(t, srv, "example.org"), pdnsOptions())
}

// TestConformancePDNSQuotedTXT runs the suite again with TXT values put
// into PowerDNS's quoted form on the way in and taken out of it on the way
// back, as a caller of the pdns provider has to. Every rule declared
// lacking for TXT then conforms (only ChangeMissing is left), which shows
// that TXT quoting is the provider's only gap beyond deletes of missing
// records.
func TestConformancePDNSQuotedTXT(t *testing.T) {
	srv := pdnstest.Start(t, pdnstest.Config{})
	srv.CreateZone("example.org")
	opts := pdnsOptions()
	opts.Lacks = map[string]string{providertest.RuleChangeMissing: opts.Lacks[providertest.RuleChangeMissing]}
	providertest.TestProvider(t, quotedTXT{newPDNS(t, srv, "example.org")}, opts)
}

// quotedTXT quotes TXT targets (Go syntax, which PowerDNS's zone-file
// parser reads for the characters the suite uses) before they reach the
// pdns provider and unquotes what Records returns.
type quotedTXT struct{ *externaldns.Provider }

func (p quotedTXT) Unwrap() provider.Provider { return p.Provider }

func (p quotedTXT) ApplyChanges(ctx context.Context, c *plan.Changes) error {
	return p.Provider.ApplyChanges(ctx, &plan.Changes{
		Create: quoteTXT(c.Create), UpdateOld: quoteTXT(c.UpdateOld),
		UpdateNew: quoteTXT(c.UpdateNew), Delete: quoteTXT(c.Delete),
	})
}

func (p quotedTXT) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, err := p.Provider.Records(ctx)
	if err != nil {
		return nil, err
	}
	for _, ep := range eps {
		if ep.RecordType != endpoint.RecordTypeTXT {
			continue
		}
		for i, v := range ep.Targets {
			u, err := strconv.Unquote(v)
			if err != nil {
				return nil, fmt.Errorf("TXT %s: PowerDNS returned %q: %w", ep.DNSName, v, err)
			}
			ep.Targets[i] = u
		}
	}
	return eps, nil
}

func quoteTXT(eps []*endpoint.Endpoint) []*endpoint.Endpoint {
	out := make([]*endpoint.Endpoint, 0, len(eps))
	for _, ep := range eps {
		ep = ep.DeepCopy()
		if ep.RecordType == endpoint.RecordTypeTXT {
			for i, v := range ep.Targets {
				ep.Targets[i] = strconv.Quote(v)
			}
		}
		out = append(out, ep)
	}
	return out
}

// view is the zone as PowerDNS holds it, one line per RRset, without the
// SOA and NS records PowerDNS made when the zone was created.
func view(srv *pdnstest.Server, zone string) []string {
	var out []string
	for _, rr := range srv.RRsets(zone) {
		if rr.Name == zone+"." && (rr.Type == "SOA" || rr.Type == "NS") {
			continue
		}
		out = append(out, rr.String())
	}
	return out
}

// expectedView is what PowerDNS must hold for the desired records written
// with owner: each record (CNAME targets fully qualified), its ownership
// TXT record as external-dns's TXT registry names it ("<type>-<name>", TTL
// 0 written, so PowerDNS's default 300 via the provider) and the foreign
// records, in pdnstest's order.
func expectedView(owner string, desired []*endpoint.Endpoint, foreign ...pdnstest.RRset) []string {
	var sets []pdnstest.RRset
	for _, ep := range desired {
		targets := slices.Clone([]string(ep.Targets))
		if ep.RecordType == endpoint.RecordTypeCNAME {
			for i, v := range targets {
				targets[i] = v + "."
			}
		}
		slices.Sort(targets)
		sets = append(sets, pdnstest.RRset{Name: ep.DNSName + ".", Type: ep.RecordType, TTL: uint32(ep.RecordTTL), Records: targets})
		label := strings.ToLower(ep.RecordType)
		first, rest, _ := strings.Cut(ep.DNSName, ".")
		resource, _ := ep.Labels.Get(endpoint.ResourceLabelKey)
		value := fmt.Sprintf(`"heritage=external-dns,external-dns/owner=%s,external-dns/resource=%s"`, owner, resource)
		sets = append(sets, pdnstest.RRset{Name: label + "-" + first + "." + rest + ".", Type: "TXT", TTL: 300, Records: []string{value}})
	}
	sets = append(sets, foreign...)
	slices.SortFunc(sets, func(a, b pdnstest.RRset) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Type, b.Type)
	})
	out := make([]string, 0, len(sets))
	for _, s := range sets {
		out = append(out, s.String())
	}
	return out
}

func desiredRecord(name, typ string, ttl endpoint.TTL, targets ...string) *endpoint.Endpoint {
	return endpoint.NewEndpointWithTTL(name, typ, ttl, targets...).
		WithLabel(endpoint.ResourceLabelKey, "service/default/"+strings.Split(name, ".")[0])
}

// TestReconcilerAgainstPDNS runs zonesync's Reconciler with the TXT
// registry over external-dns's pdns provider against a real PowerDNS, over
// several cycles, and compares PowerDNS's own view (its API) with the
// desired records after each one. A record in the zone that nobody owns is
// never touched.
func TestReconcilerAgainstPDNS(t *testing.T) {
	const zone, owner = "example.org", "pdns-e2e"
	srv := pdnstest.Start(t, pdnstest.Config{})
	srv.CreateZone(zone)
	foreign := []pdnstest.RRset{
		{Name: "foreign.example.org.", Type: "A", TTL: 120, Records: []string{"192.0.2.250"}},
		// TXT is a managed type here, but this one has no owner.
		{Name: "foreign-txt.example.org.", Type: "TXT", TTL: 120, Records: []string{`"not ours"`}},
	}
	for _, f := range foreign {
		srv.ReplaceRRset(zone, f)
	}

	p := newPDNS(t, srv, zone)
	reg, err := txt.New(p, txt.Config{OwnerID: owner, ManagedRecordTypes: []string{"A", "CNAME", "TXT"}})
	require.NoError(t, err)
	src := source.NewStatic()
	r := &zonesync.Reconciler{Source: src, Registry: reg}

	// TXT values go to PowerDNS in its quoted zone-file form: that is
	// what external-dns's pdns provider needs (see pdnsTXTGap).
	cycles := []struct {
		name    string
		desired []*endpoint.Endpoint
		create  int
		update  int
		delete  int
	}{
		{
			name: "create",
			desired: []*endpoint.Endpoint{
				desiredRecord("www.example.org", endpoint.RecordTypeA, 300, "192.0.2.1", "192.0.2.2"),
				desiredRecord("single.example.org", endpoint.RecordTypeA, 60, "192.0.2.10"),
				desiredRecord("api.example.org", endpoint.RecordTypeCNAME, 300, "www.example.org"),
				desiredRecord("spf.example.org", endpoint.RecordTypeTXT, 300, `"v=spf1 -all"`),
			},
			create: 4,
		},
		{
			name: "update targets and TTL, delete one, add one",
			desired: []*endpoint.Endpoint{
				desiredRecord("www.example.org", endpoint.RecordTypeA, 300, "192.0.2.3", "192.0.2.1", "192.0.2.4"),
				desiredRecord("api.example.org", endpoint.RecordTypeCNAME, 900, "www.example.org"),
				desiredRecord("spf.example.org", endpoint.RecordTypeTXT, 300, `"v=spf1 ip4:192.0.2.0/24 -all"`),
				desiredRecord("multi.example.org", endpoint.RecordTypeTXT, 300, `"one"`, `"two"`),
			},
			create: 1, update: 3, delete: 1,
		},
		{
			name: "delete most",
			desired: []*endpoint.Endpoint{
				desiredRecord("api.example.org", endpoint.RecordTypeCNAME, 900, "www.example.org"),
			},
			delete: 3,
		},
	}
	// The counts are of the desired records' changes; the registry adds
	// an ownership TXT change to each.
	for _, c := range cycles {
		src.Set(c.desired...)
		cyc, err := r.RunOnce(t.Context())
		changes := cyc.Changes
		require.NoError(t, err, c.name)
		assert.Len(t, changes.Create, c.create, "%s: creates %v", c.name, changes.Create)
		assert.Len(t, changes.UpdateNew, c.update, "%s: updates %v", c.name, changes.UpdateNew)
		assert.Len(t, changes.Delete, c.delete, "%s: deletes %v", c.name, changes.Delete)
		assert.Equal(t, expectedView(owner, c.desired, foreign...), view(srv, zone), c.name)

		cyc, err = r.RunOnce(t.Context())
		changes = cyc.Changes
		require.NoError(t, err, c.name)
		assert.False(t, changes.HasChanges(), "%s: the next cycle must plan nothing: %+v", c.name, changes)
		assert.Equal(t, expectedView(owner, c.desired, foreign...), view(srv, zone), c.name+", steady")
	}
}
