package txt_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
)

// visitedZone is an in-memory zone (which implements
// provider.RecordVisitor) whose ApplyChanges fails as scripted: before
// applying anything, or after applying everything (a lost response). It
// records the change sets it receives.
type visitedZone struct {
	*inmemory.Provider
	fault   string // "", "before" or "after": the next ApplyChanges fails so
	applied []*plan.Changes
}

func (z *visitedZone) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	z.applied = append(z.applied, changes)
	fault := z.fault
	z.fault = ""
	if fault == "before" {
		return provider.NewSoftError(errFault)
	}
	if err := z.Provider.ApplyChanges(ctx, changes); err != nil {
		return err
	}
	if fault == "after" {
		return provider.NewSoftError(errFault)
	}
	return nil
}

// listedZone hides the RecordVisitor of the zone it wraps, so that the
// registry reads it with Records; its Unwrap keeps the zone's other
// capabilities (ListZones) reachable.
type listedZone struct{ zone *visitedZone }

func (z listedZone) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return z.zone.Records(ctx)
}

func (z listedZone) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	return z.zone.ApplyChanges(ctx, changes)
}

func (z listedZone) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return z.zone.AdjustEndpoints(ctx, eps)
}

func (z listedZone) GetDomainFilter() endpoint.DomainFilterInterface {
	return z.zone.GetDomainFilter()
}

func (z listedZone) Unwrap() provider.Provider { return z.zone }

// TestVisitedReadMatchesRecordsRead runs the registry over the same zones
// through provider.RecordVisitor and through Records, over several
// cycles with faults and changes made behind the registry's back, and
// requires the same records, the same plans, the same change sets sent to
// the provider, the same errors and the same zones.
func TestVisitedReadMatchesRecordsRead(t *testing.T) {
	key := []byte(testKey)
	aesKey, err := endpoint.ParseEncryptionKey(key)
	require.NoError(t, err)
	tests := []struct {
		name    string
		cfg     txt.Config
		encrypt bool // initial values encrypted
	}{
		{name: "default naming", cfg: txt.Config{OwnerID: "default"}},
		{name: "prefix with type and wildcard", cfg: txt.Config{OwnerID: "default", Prefix: "%{record_type}-pre.", WildcardReplacement: "any"}},
		{name: "prefix", cfg: txt.Config{OwnerID: "default", Prefix: "txt."}},
		{name: "suffix", cfg: txt.Config{OwnerID: "default", Suffix: "-own"}},
		{name: "old owner migration", cfg: txt.Config{OwnerID: "default", OldOwnerID: "old"}},
		{name: "alias TXT named cname", cfg: txt.Config{OwnerID: "default", AliasTXTType: txt.AliasTXTTypeCNAME}},
		{name: "managed MX", cfg: txt.Config{OwnerID: "default", ManagedRecordTypes: []string{"A", "AAAA", "CNAME", "MX"}}},
		{name: "encrypted, decrypt only", cfg: txt.Config{OwnerID: "default", EncryptionKey: key, EncryptionMode: txt.EncryptionDecryptOnly}, encrypt: true},
		{name: "encrypted, read-write", cfg: txt.Config{OwnerID: "default", EncryptionKey: key}, encrypt: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			probe := newRegistry(t, newZone(), tt.cfg)
			initial := differentialZone(t, probe.Namer(), aesKey, tt.encrypt)
			zones := []string{"example.com", "example.org", "sub.example.com"}
			newSide := func() *visitedZone {
				return &visitedZone{Provider: inmemory.New(inmemory.Options{
					Zones:   zones,
					Records: endpoint.DeepCopyAll(initial),
					// Names below excluded.example.org are outside the
					// provider's filter, although in a zone.
					DomainFilter: endpoint.NewDomainFilterWithExclusions(zones, []string{"excluded.example.org"}),
				})}
			}
			visited, listed := newSide(), newSide()
			_, ok := provider.Provider(visited).(provider.RecordVisitor)
			require.True(t, ok, "the visited side must offer RecordVisitor")
			_, ok = provider.Provider(listed.wrap()).(provider.RecordVisitor)
			require.False(t, ok, "the listed side must hide it")
			regV := newRegistry(t, visited, tt.cfg)
			regL := newRegistry(t, listed.wrap(), tt.cfg)
			norm := normalizer{key: aesKey}

			for i, step := range differentialSteps() {
				msg := fmt.Sprintf("step %d (%s)", i, step.name)
				if step.behind != nil {
					require.NoError(t, visited.Provider.ApplyChanges(ctx, step.behind()), msg)
					require.NoError(t, listed.Provider.ApplyChanges(ctx, step.behind()), msg)
				}
				recsV, errV := regV.Records(ctx)
				recsL, errL := regL.Records(ctx)
				require.NoError(t, errV, msg)
				require.NoError(t, errL, msg)
				require.Equal(t, norm.all(recsL), norm.all(recsV), "%s: records", msg)
				require.Equal(t, regL.PendingRepairs(), regV.PendingRepairs(), "%s: pending repairs", msg)
				require.Equal(t, regL.SettingsWarnings(), regV.SettingsWarnings(), "%s: settings warnings", msg)

				planV := (&plan.Plan{Current: recsV, Desired: step.desired(), OwnerID: "default"}).Calculate().Changes
				planL := (&plan.Plan{Current: recsL, Desired: step.desired(), OwnerID: "default"}).Calculate().Changes
				require.Equal(t, norm.changes(planL), norm.changes(planV), "%s: plan", msg)

				visited.fault, listed.fault = step.fault, step.fault
				nV, nL := len(visited.applied), len(listed.applied)
				errV = regV.ApplyChanges(ctx, planV)
				errL = regL.ApplyChanges(ctx, planL)
				if tt.encrypt {
					require.Equal(t, errL == nil, errV == nil, "%s: apply error: %v / %v", msg, errL, errV)
				} else {
					require.Equal(t, fmt.Sprint(errL), fmt.Sprint(errV), "%s: apply error", msg)
				}
				require.Equal(t, len(listed.applied)-nL, len(visited.applied)-nV, "%s: provider calls", msg)
				for k := range len(visited.applied) - nV {
					require.Equal(t, norm.changes(listed.applied[nL+k]), norm.changes(visited.applied[nV+k]), "%s: change set %d", msg, k)
				}
				require.Equal(t, norm.zone(t, listed.Provider), norm.zone(t, visited.Provider), "%s: zone", msg)
			}
		})
	}
}

func (z *visitedZone) wrap() provider.Provider { return listedZone{z} }

// differentialZone is the initial content of the differential test: owned
// records with typed, legacy and missing TXT records, foreign and unowned
// records, orphan TXT records (ours and foreign), plain TXT records, set
// identifiers, an A ALIAS record, a wildcard, an IDN, an MX record, in
// three zones. Values are encrypted with key when encrypt is set.
func differentialZone(t *testing.T, n txt.Namer, key []byte, encrypt bool) []*endpoint.Endpoint {
	t.Helper()
	value := func(owner, resource string) string {
		l := endpoint.LabelsFromMap(map[string]string{"heritage": "external-dns", endpoint.OwnerLabelKey: owner})
		if resource != "" {
			l.Set(endpoint.ResourceLabelKey, resource)
		}
		if !encrypt {
			return l.Serialize(true)
		}
		v, err := l.SerializeEncrypted(key, true)
		require.NoError(t, err)
		return v
	}
	var eps []*endpoint.Endpoint
	// owned adds rec and its typed ownership TXT.
	owned := func(rec *endpoint.Endpoint, owner string) {
		txtRec := txtRecord(n.TXTName(rec.DNSName, rec.RecordType), value(owner, "service/default/"+strings.SplitN(rec.DNSName, ".", 2)[0]))
		txtRec.SetIdentifier = rec.SetIdentifier
		eps = append(eps, rec, txtRec)
	}
	owned(a("app.example.com", "192.0.2.1"), "default")
	owned(endpoint.NewEndpoint("app.example.com", endpoint.RecordTypeAAAA, "2001:db8::1"), "default")
	owned(a("w.example.com", "192.0.2.2").WithSetIdentifier("eu").WithProviderSpecific("zs/weight", "1"), "default")
	owned(a("w.example.com", "192.0.2.3").WithSetIdentifier("us").WithProviderSpecific("zs/weight", "2"), "default")
	owned(a("lb.example.com", "192.0.2.4").WithProviderSpecific(endpoint.ProviderSpecificAlias, "true"), "default")
	owned(a("*.apps.sub.example.com", "192.0.2.5"), "default")
	owned(endpoint.NewEndpoint("www.sub.example.com", endpoint.RecordTypeCNAME, "app.example.com"), "default")
	owned(endpoint.NewEndpoint("mail.example.org", endpoint.RecordTypeMX, "10 mx.example.org"), "default")
	owned(a("xn--mnchen-3ya.example.org", "192.0.2.6"), "default")
	owned(a("old.example.org", "192.0.2.7"), "old")
	owned(a("theirs.example.com", "198.51.100.1"), "other")
	// A record with only a legacy (untyped) TXT: its typed TXT is written.
	eps = append(eps, a("legacy.example.org", "192.0.2.8"), txtRecord(n.LegacyTXTName("legacy.example.org"), value("default", "")))
	// An apex record with only a legacy TXT: its typed TXT would be
	// outside the provider's filter, so it is not rewritten.
	// (With a suffix, that TXT would be outside every zone: the apex is
	// left unowned.)
	eps = append(eps, a("example.org", "192.0.2.9"))
	if legacy := n.LegacyTXTName("example.org"); strings.HasSuffix(legacy, "example.org") {
		eps = append(eps, txtRecord(legacy, value("default", "")))
	}
	// Orphan TXT records: one of ours, one of ours for a name outside the
	// provider's filter (left alone), one foreign.
	eps = append(eps, txtRecord(n.TXTName("gone.example.org", endpoint.RecordTypeA), value("default", "")))
	eps = append(eps, txtRecord(n.TXTName("hidden.excluded.example.org", endpoint.RecordTypeA), value("default", "")))
	eps = append(eps, txtRecord(n.TXTName("gone2.example.org", endpoint.RecordTypeA), value("other", "")))
	// Unowned records and plain TXT records.
	eps = append(eps, a("manual.example.com", "198.51.100.2"),
		txtRecord("note.example.com", `"v=spf1 -all"`),
		txtRecord("multi.example.org", "one", "two"))
	return eps
}

type differentialStep struct {
	name    string
	behind  func() *plan.Changes // changed in the zone behind the registry's back first
	desired func() []*endpoint.Endpoint
	fault   string // ApplyChanges fails "before" or "after" applying
}

func differentialSteps() []differentialStep {
	svc := func(rec *endpoint.Endpoint) *endpoint.Endpoint {
		return rec.WithLabel(endpoint.ResourceLabelKey, "service/default/"+strings.SplitN(rec.DNSName, ".", 2)[0])
	}
	base := func() []*endpoint.Endpoint {
		return []*endpoint.Endpoint{
			svc(a("app.example.com", "192.0.2.1")),
			svc(endpoint.NewEndpoint("app.example.com", endpoint.RecordTypeAAAA, "2001:db8::1")),
			svc(a("w.example.com", "192.0.2.2").WithSetIdentifier("eu").WithProviderSpecific("zs/weight", "1")),
			svc(a("w.example.com", "192.0.2.3").WithSetIdentifier("us").WithProviderSpecific("zs/weight", "2")),
			svc(a("example.org", "192.0.2.9")),
			svc(a("lb.example.com", "192.0.2.4").WithProviderSpecific(endpoint.ProviderSpecificAlias, "true")),
			svc(a("*.apps.sub.example.com", "192.0.2.5")),
			svc(endpoint.NewEndpoint("www.sub.example.com", endpoint.RecordTypeCNAME, "app.example.com")),
			svc(a("xn--mnchen-3ya.example.org", "192.0.2.6")),
			svc(a("old.example.org", "192.0.2.7")),
			svc(a("legacy.example.org", "192.0.2.8")),
			svc(a("theirs.example.com", "192.0.2.99")), // foreign: never taken over
			svc(a("manual.example.com", "192.0.2.98")), // unowned: never taken over
		}
	}
	grown := func() []*endpoint.Endpoint {
		eps := base()
		eps[1] = svc(a("new.example.com", "192.0.2.10"))                                                              // AAAA deleted, a new name
		eps[2] = svc(a("w.example.com", "192.0.2.12").WithSetIdentifier("eu").WithProviderSpecific("zs/weight", "1")) // retargeted
		return append(eps, svc(a("gone.example.org", "192.0.2.11")), svc(a("fresh.sub.example.com", "192.0.2.13")))
	}
	faulty := func() []*endpoint.Endpoint {
		return append(grown(), svc(a("late.example.com", "192.0.2.14")), svc(a("lost.example.org", "192.0.2.15")))
	}
	return []differentialStep{
		{name: "steady read, upgrades and migrations", desired: base},
		{name: "converged", desired: base},
		{name: "creates, deletes, updates", desired: grown},
		{name: "create fails before applying", desired: faulty, fault: "before"},
		{name: "create fails after applying", desired: faulty, fault: "after"},
		{name: "after the lost response", desired: faulty},
		{
			name: "records deleted and a foreign record created behind our back",
			behind: func() *plan.Changes {
				return &plan.Changes{
					Delete: []*endpoint.Endpoint{a("late.example.com", "192.0.2.14"), a("fresh.sub.example.com", "192.0.2.13")},
					Create: []*endpoint.Endpoint{a("stray.example.org", "203.0.113.1")},
				}
			},
			desired: func() []*endpoint.Endpoint {
				eps := faulty()
				return eps[:len(eps)-2]
			},
		},
		{name: "orphans repaired", desired: grown},
		{name: "converged again", desired: grown},
		{name: "everything deleted", desired: func() []*endpoint.Endpoint { return nil }},
		{name: "empty", desired: func() []*endpoint.Endpoint { return nil }},
	}
}

// normalizer makes records comparable across two registries that encrypt
// with fresh nonces: TXT values that decrypt are replaced by their plain
// labels, and the nonce label is dropped.
type normalizer struct{ key []byte }

func (n normalizer) one(ep *endpoint.Endpoint) string {
	if ep == nil {
		return "<nil>"
	}
	c := ep.DeepCopy()
	c.Labels.Delete(endpoint.TxtEncryptionNonceLabelKey)
	if c.RecordType == endpoint.RecordTypeTXT && len(c.Targets) > 0 {
		if l, err := endpoint.ParseLabelsWithKey(c.Targets[0], n.key); err == nil {
			l.Delete(endpoint.TxtEncryptionNonceLabelKey)
			c.Targets[0] = "labels:" + l.Serialize(false)
		}
	}
	return fmt.Sprintf("%s %s [%s] ttl=%d %q labels=%s props=%v", c.DNSName, c.RecordType, c.SetIdentifier, c.RecordTTL, []string(c.Targets), c.Labels, c.ProviderSpecific)
}

func (n normalizer) all(eps []*endpoint.Endpoint) []string {
	out := make([]string, len(eps))
	for i, ep := range eps {
		out[i] = n.one(ep)
	}
	return out
}

func (n normalizer) changes(c *plan.Changes) [4][]string {
	if c == nil {
		return [4][]string{}
	}
	return [4][]string{n.all(c.Create), n.all(c.UpdateOld), n.all(c.UpdateNew), n.all(c.Delete)}
}

func (n normalizer) zone(t *testing.T, p provider.Provider) []string {
	t.Helper()
	recs, err := p.Records(context.Background())
	require.NoError(t, err)
	return n.all(recs)
}
