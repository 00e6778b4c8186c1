package interop

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	xplan "sigs.k8s.io/external-dns/plan"
	xinmemory "sigs.k8s.io/external-dns/provider/inmemory"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
)

func heritage(owner, resource string) string {
	v := "heritage=external-dns,external-dns/owner=" + owner
	if resource != "" {
		v += ",external-dns/resource=" + resource
	}
	return `"` + v + `"`
}

// zoneLines renders a zone as sorted lines "name type setID targets",
// names canonical, targets sorted.
func zoneLines(eps []*endpoint.Endpoint) []string {
	out := make([]string, 0, len(eps))
	for _, ep := range eps {
		targets := append([]string(nil), ep.Targets...)
		sort.Strings(targets)
		out = append(out, fmt.Sprintf("%s %s %q %s", endpoint.ToALabel(ep.DNSName), ep.RecordType, ep.SetIdentifier, strings.Join(targets, " ")))
	}
	sort.Strings(out)
	return out
}

// nonTXT keeps the lines of records other than TXT.
func nonTXT(lines []string) []string {
	var out []string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 1 && f[1] != "TXT" {
			out = append(out, l)
		}
	}
	return out
}

// upsertProvider gives external-dns's in-memory provider the UPSERT
// semantics of most real providers (Route 53, Cloud DNS changes, RFC 2136
// with no prerequisites): an update of a record that does not exist yet
// creates it, and the old side of such an update is dropped. The
// in-memory provider refuses them ("record not found"), which makes
// external-dns's upgrade of legacy ownership TXT records (an update whose
// typed TXT does not exist yet) fail against it; real deployments upgrade.
type upsertProvider struct {
	*xinmemory.InMemoryProvider
}

func (p upsertProvider) ApplyChanges(ctx context.Context, changes *xplan.Changes) error {
	recs, err := p.Records(ctx)
	if err != nil {
		return err
	}
	have := make(map[string]bool, len(recs))
	for _, r := range recs {
		have[r.DNSName+" "+r.RecordType+" "+r.SetIdentifier] = true
	}
	out := &xplan.Changes{Create: changes.Create, Delete: changes.Delete}
	for _, ep := range changes.UpdateOld {
		if have[ep.DNSName+" "+ep.RecordType+" "+ep.SetIdentifier] {
			out.UpdateOld = append(out.UpdateOld, ep)
		}
	}
	for _, ep := range changes.UpdateNew {
		if have[ep.DNSName+" "+ep.RecordType+" "+ep.SetIdentifier] {
			out.UpdateNew = append(out.UpdateNew, ep)
		} else {
			out.Create = append(out.Create, ep)
		}
	}
	return p.InMemoryProvider.ApplyChanges(ctx, out)
}

// TestMigration runs one cycle of each side over the same zone, written by
// an older external-dns or by another owner, and checks that both leave
// the same zone behind, that no record other than an ownership TXT changes
// (no churn), and that a second cycle of each plans nothing.
func TestMigration(t *testing.T) {
	cases := []struct {
		name     string
		zone     []*endpoint.Endpoint
		oldOwner string
		// owned: the records end up owned by testOwner.
		owned bool
	}{
		{
			name: "legacy untyped TXT, same owner",
			zone: []*endpoint.Endpoint{
				endpoint.NewEndpoint("legacy.example.com", "A", "192.0.2.1"),
				endpoint.NewEndpoint("legacy.example.com", "TXT", heritage(testOwner, "service/default/legacy")),
				endpoint.NewEndpoint("alias.example.com", "CNAME", "legacy.example.com"),
				endpoint.NewEndpoint("alias.example.com", "TXT", heritage(testOwner, "service/default/alias")),
			},
			owned: true,
		},
		{
			name: "legacy untyped TXT, other owner, not configured",
			zone: []*endpoint.Endpoint{
				endpoint.NewEndpoint("legacy.example.com", "A", "192.0.2.1"),
				endpoint.NewEndpoint("legacy.example.com", "TXT", heritage("other", "service/default/legacy")),
			},
		},
		{
			name: "typed TXT, other owner, not configured",
			zone: []*endpoint.Endpoint{
				endpoint.NewEndpoint("app.example.com", "A", "192.0.2.2"),
				endpoint.NewEndpoint("a-app.example.com", "TXT", heritage("other", "service/default/app")),
				endpoint.NewEndpoint("www.example.com", "CNAME", "app.example.com"),
				endpoint.NewEndpoint("cname-www.example.com", "TXT", heritage("other", "service/default/www")),
			},
		},
		{
			name: "typed TXT, other owner, migrated",
			zone: []*endpoint.Endpoint{
				endpoint.NewEndpoint("app.example.com", "A", "192.0.2.2"),
				endpoint.NewEndpoint("a-app.example.com", "TXT", heritage("other", "service/default/app")),
				endpoint.NewEndpoint("www.example.com", "CNAME", "app.example.com"),
				endpoint.NewEndpoint("cname-www.example.com", "TXT", heritage("other", "service/default/www")),
			},
			oldOwner: "other",
			owned:    true,
		},
		{
			name: "legacy untyped TXT, other owner, migrated",
			zone: []*endpoint.Endpoint{
				endpoint.NewEndpoint("legacy.example.com", "A", "192.0.2.1"),
				endpoint.NewEndpoint("legacy.example.com", "TXT", heritage("other", "service/default/legacy")),
			},
			oldOwner: "other",
			owned:    true,
		},
		{
			name: "A ALIAS record owned through a cname- TXT (external-dns <= v0.21)",
			zone: []*endpoint.Endpoint{
				endpoint.NewEndpoint("alias.example.com", "A", "192.0.2.5").WithProviderSpecific("alias", "true"),
				endpoint.NewEndpoint("cname-alias.example.com", "TXT", heritage(testOwner, "service/default/alias")),
			},
			owned: true,
		},
		{
			name: "unowned records are left alone",
			zone: []*endpoint.Endpoint{
				endpoint.NewEndpoint("app.example.com", "A", "192.0.2.2"),
				endpoint.NewEndpoint("www.example.com", "CNAME", "app.example.com"),
			},
			oldOwner: "other",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			cfg := registryConfig{name: "plain", oldOwner: tc.oldOwner}
			// Desired: the non-TXT records of the zone, as a source asks
			// for them, with the resource label the old ownership TXT
			// names.
			var desired []*endpoint.Endpoint
			for _, ep := range tc.zone {
				if ep.RecordType != "TXT" {
					d := endpoint.NewEndpoint(ep.DNSName, ep.RecordType, ep.Targets...).
						WithLabel(endpoint.ResourceLabelKey, "service/default/"+strings.Split(ep.DNSName, ".")[0])
					d.ProviderSpecific = append(d.ProviderSpecific, ep.ProviderSpecific...)
					desired = append(desired, d)
				}
			}
			before := zoneLines(tc.zone)

			// external-dns
			xp := xinmemory.NewInMemoryProvider()
			require.NoError(t, xp.CreateZone(testZone))
			require.NoError(t, xp.ApplyChanges(ctx, &xplan.Changes{Create: FromZonesyncAll(tc.zone)}))
			xreg, err := cfg.external(upsertProvider{xp}, testOwner)
			require.NoError(t, err)
			_, err = externalCycle(ctx, xreg, FromZonesyncAll(desired), testOwner, tc.oldOwner)
			require.NoError(t, err)
			xafter, err := ReadZonesync(ctx, xp)
			require.NoError(t, err)

			// zonesync
			zp := inmemory.New(inmemory.Options{Zones: []string{testZone}})
			require.NoError(t, zp.ApplyChanges(ctx, &plan.Changes{Create: tc.zone}))
			zreg, err := cfg.zonesync(zp, testOwner)
			require.NoError(t, err)
			zonesyncRunOnce(ctx, t, zreg, desired)
			zafter, err := zp.Records(ctx)
			require.NoError(t, err)

			want := zoneLines(xafter)
			if tc.oldOwner != "" {
				want = ruleOldOwnerRewritten.rewriteOwner(want, tc.oldOwner, testOwner)
			}
			require.Equal(t, want, zoneLines(zafter), "zone after one cycle: external-dns (expected, after known difference %s: %s) and zonesync (actual)", ruleOldOwnerRewritten.name, ruleOldOwnerRewritten.reason)
			require.Equal(t, nonTXT(before), nonTXT(zoneLines(zafter)), "no record other than an ownership TXT changes")

			// Ownership as the registries now report it.
			xrecs, err := ReadZonesync(ctx, xreg)
			require.NoError(t, err)
			zrecs, err := zreg.Records(ctx)
			require.NoError(t, err)
			require.Equal(t, ownershipOf(xrecs), ownershipOf(zrecs), "ownership after one cycle")
			for k, o := range ownershipOf(zrecs) {
				if tc.owned {
					require.Equal(t, testOwner, o.Owner, "%s is taken over", k)
				} else {
					require.NotEqual(t, testOwner, o.Owner, "%s is left alone", k)
				}
			}

			// A second cycle plans nothing on either side.
			xch, err := externalCycle(ctx, xreg, FromZonesyncAll(desired), testOwner, tc.oldOwner)
			require.NoError(t, err)
			require.False(t, xch.HasChanges(), "external-dns second cycle:\n%s", formatChanges(ChangesToZonesync(xch)))
			pv := zonesyncPreview(ctx, t, zreg, desired)
			require.True(t, emptyChanges(pv.Plan.Changes), "zonesync second cycle:\n%s", formatChanges(pv.Plan.Changes))
		})
	}
}

// ruleOldOwnerRewritten: with an old owner id configured, external-dns
// v0.23 reads the records of the old owner as its own, but never rewrites
// their ownership TXT: its registry relabels them in memory before the
// planner sees them, so the update the planner makes for them equals the
// current record, and Changes.HasChanges (which the controller checks
// before applying) drops it. The zone keeps naming the old owner, and
// removing the old owner id later hands the records back. zonesync
// rewrites the typed ownership TXT with the new owner in the first cycle
// (legacy untyped TXT records are never touched, on either side).
var ruleOldOwnerRewritten = knownDifference{
	name:   "old-owner-rewritten",
	reason: "external-dns never rewrites the ownership TXT of a migrated record; zonesync does",
}

// rewriteOwner applies the rule to external-dns's zone: the typed
// ownership TXT records naming oldOwner name newOwner.
func (knownDifference) rewriteOwner(lines []string, oldOwner, newOwner string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) > 1 && f[1] == "TXT" && (strings.HasPrefix(f[0], "a-") || strings.HasPrefix(f[0], "cname-")) {
			l = strings.Replace(l, "external-dns/owner="+oldOwner+",", "external-dns/owner="+newOwner+",", 1)
		}
		out[i] = l
	}
	sort.Strings(out)
	return out
}

// endpointLines renders endpoints as sorted lines with every field the
// webhook carries: name (canonical), type, set identifier, TTL, sorted
// targets, labels and provider-specific properties.
func endpointLines(eps []*endpoint.Endpoint) []string {
	out := make([]string, 0, len(eps))
	for _, ep := range eps {
		targets := append([]string(nil), ep.Targets...)
		sort.Strings(targets)
		out = append(out, fmt.Sprintf("%s %s %q ttl=%d %q labels=%v ps=%v", endpoint.ToALabel(ep.DNSName), ep.RecordType, ep.SetIdentifier, ep.RecordTTL, targets, maps.Collect(ep.Labels.All()), ep.ProviderSpecific))
	}
	sort.Strings(out)
	return out
}
