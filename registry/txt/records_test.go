package txt_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/txt"
)

// staticRecords is a provider whose Records returns copies of eps, for
// record sets the in-memory provider refuses to hold.
func staticRecords(eps ...*endpoint.Endpoint) provider.Provider {
	return providertest.Intercept(newZone(), providertest.Funcs{
		Records: func(context.Context, provider.Provider) ([]*endpoint.Endpoint, error) {
			out := make([]*endpoint.Endpoint, len(eps))
			for i, e := range eps {
				out[i] = e.DeepCopy()
			}
			return out, nil
		},
	})
}

type readResult struct {
	labels  endpoint.Labels
	forced  bool
	verdict endpoint.Ownership
}

func TestRecordsOwnership(t *testing.T) {
	other := `"heritage=external-dns,external-dns/owner=other,external-dns/resource=service/x/y"`
	legacy := `"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/legacy"`
	owned := endpoint.LabelsFromMap(map[string]string{"owner": "default", "resource": "service/default/app"})
	legacyLabels := endpoint.LabelsFromMap(map[string]string{"owner": "default", "resource": "service/default/legacy"})
	ours, nobody := endpoint.OwnedByUs, endpoint.OwnedByNobody
	tests := []struct {
		name    string
		cfg     txt.Config
		records []*endpoint.Endpoint
		// want maps "name/type[/set]" of every returned record to its labels
		// and whether txt/force-update was added.
		want map[string]readResult
	}{
		{
			name:    "typed",
			records: []*endpoint.Endpoint{a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", v1)},
			want:    map[string]readResult{"app.example.com/A": {labels: owned, verdict: ours}},
		},
		{
			name:    "unquoted value",
			records: []*endpoint.Endpoint{a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", v1[1:len(v1)-1])},
			want:    map[string]readResult{"app.example.com/A": {labels: owned, verdict: ours}},
		},
		{
			name:    "first target only",
			records: []*endpoint.Endpoint{a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", v1, `"heritage=external-dns,external-dns/owner=intruder"`)},
			want:    map[string]readResult{"app.example.com/A": {labels: owned, verdict: ours}},
		},
		{
			name:    "no TXT at all: no owner, nothing forced",
			records: []*endpoint.Endpoint{a("app.example.com", "192.0.2.1")},
			want:    map[string]readResult{"app.example.com/A": {verdict: nobody}},
		},
		{
			name:    "other owner: labels attached, nothing forced",
			records: []*endpoint.Endpoint{a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", other)},
			want:    map[string]readResult{"app.example.com/A": {labels: endpoint.LabelsFromMap(map[string]string{"owner": "other", "resource": "service/x/y"}), verdict: endpoint.OwnedByOther}},
		},
		{
			name: "legacy untyped A: owned, typed TXT forced",
			records: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1"), txtRecord("app.example.com", legacy),
			},
			want: map[string]readResult{"app.example.com/A": {labels: legacyLabels, forced: true, verdict: ours}},
		},
		{
			name: "legacy untyped with prefix, shared by A and MX",
			cfg:  txt.Config{Prefix: "txt-", ManagedRecordTypes: []string{"A", "MX"}},
			records: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1"), endpoint.NewEndpoint("app.example.com", "MX", "10 mail.example.com"),
				txtRecord("txt-app.example.com", legacy),
			},
			want: map[string]readResult{
				"app.example.com/A":  {labels: legacyLabels, forced: true, verdict: ours},
				"app.example.com/MX": {labels: legacyLabels, forced: true, verdict: ours},
			},
		},
		{
			name: "legacy untyped not used for AAAA",
			records: []*endpoint.Endpoint{
				endpoint.NewEndpoint("app.example.com", "AAAA", "2001:db8::1"), txtRecord("app.example.com", legacy),
			},
			want: map[string]readResult{"app.example.com/AAAA": {verdict: nobody}},
		},
		{
			name: "typed preferred over untyped",
			records: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1"), txtRecord("app.example.com", legacy), txtRecord("a-app.example.com", v1),
			},
			want: map[string]readResult{"app.example.com/A": {labels: owned, verdict: ours}},
		},
		{
			name: "unmanaged type owned via legacy is not forced",
			records: []*endpoint.Endpoint{
				endpoint.NewEndpoint("app.example.com", "MX", "10 mail.example.com"), txtRecord("app.example.com", legacy),
			},
			want: map[string]readResult{"app.example.com/MX": {labels: legacyLabels, verdict: ours}},
		},
		{
			name: "A alias owned through legacy cname TXT, a- forced",
			records: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1").WithProviderSpecific("alias", "true"), txtRecord("cname-app.example.com", v1),
			},
			want: map[string]readResult{"app.example.com/A": {labels: owned, forced: true, verdict: ours}},
		},
		{
			name: "A alias value A uses the fallback too",
			records: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1").WithProviderSpecific("alias", "A"), txtRecord("cname-app.example.com", v1),
			},
			want: map[string]readResult{"app.example.com/A": {labels: owned, forced: true, verdict: ours}},
		},
		{
			name: "A alias, cname naming chosen: not forced",
			cfg:  txt.Config{AliasTXTType: txt.AliasTXTTypeCNAME},
			records: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1").WithProviderSpecific("alias", "true"), txtRecord("cname-app.example.com", v1),
			},
			want: map[string]readResult{"app.example.com/A": {labels: owned, verdict: ours}},
		},
		{
			name: "A alias: typed a- preferred over cname-",
			records: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1").WithProviderSpecific("alias", "true"),
				txtRecord("cname-app.example.com", other), txtRecord("a-app.example.com", v1),
			},
			want: map[string]readResult{"app.example.com/A": {labels: owned, verdict: ours}},
		},
		{
			name: "no cname fallback without alias",
			records: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1"), txtRecord("cname-app.example.com", v1),
			},
			want: map[string]readResult{"app.example.com/A": {verdict: nobody}},
		},
		{
			name: "wildcard replacement: *.x and any.x share the TXT",
			cfg:  txt.Config{Prefix: "txt-", WildcardReplacement: "any"},
			records: []*endpoint.Endpoint{
				a("*.apps.example.com", "192.0.2.1"), a("any.apps.example.com", "192.0.2.2"),
				txtRecord("txt-a-any.apps.example.com", v1),
			},
			want: map[string]readResult{"*.apps.example.com/A": {labels: owned, verdict: ours}, "any.apps.example.com/A": {labels: owned, verdict: ours}},
		},
		{
			name: "set identifiers are matched",
			records: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1").WithSetIdentifier("eu"), a("app.example.com", "192.0.2.2").WithSetIdentifier("us"),
				txtRecord("a-app.example.com", v1).WithSetIdentifier("eu"),
			},
			want: map[string]readResult{"app.example.com/A/eu": {labels: owned, verdict: ours}, "app.example.com/A/us": {verdict: nobody}},
		},
		{
			name: "foreign and plain TXT records are ordinary records",
			records: []*endpoint.Endpoint{
				txtRecord("a-app.example.com", `"heritage=someone-else,external-dns/owner=default"`),
				txtRecord("app.example.com", "v=spf1 -all"),
				txtRecord("b.example.com", `"external-dns/owner=default"`),
			},
			want: map[string]readResult{"a-app.example.com/TXT": {verdict: nobody}, "app.example.com/TXT": {verdict: nobody}, "b.example.com/TXT": {verdict: nobody}},
		},
		{
			name: "managed TXT record owned by txt- TXT",
			cfg:  txt.Config{ManagedRecordTypes: []string{"TXT"}},
			records: []*endpoint.Endpoint{
				txtRecord("app.example.com", "hello"), txtRecord("txt-app.example.com", v1),
			},
			want: map[string]readResult{"app.example.com/TXT": {labels: owned, verdict: ours}},
		},
		{
			name: "ownership TXT outside the prefix is hidden and matches nothing",
			cfg:  txt.Config{Prefix: "own-"},
			records: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", v1),
			},
			want: map[string]readResult{"app.example.com/A": {verdict: nobody}},
		},
		{
			name: "templated prefix for apex",
			cfg:  txt.Config{Prefix: "extdns-%{record_type}."},
			records: []*endpoint.Endpoint{
				a("example.com", "192.0.2.1"), txtRecord("extdns-a.example.com", v1),
			},
			want: map[string]readResult{"example.com/A": {labels: owned, verdict: ours}},
		},
		{
			name: "owner migration: the old owner's record is ours under the old owner id, labels as read, nothing forced",
			cfg:  txt.Config{OwnerID: "new", OldOwnerID: "default"},
			records: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", v1),
			},
			want: map[string]readResult{"app.example.com/A": {labels: endpoint.LabelsFromMap(map[string]string{"owner": "default", "resource": "service/default/app"}), verdict: endpoint.OwnedByOldOwner}},
		},
		{
			name: "excluded types are not forced",
			cfg:  txt.Config{ExcludeRecordTypes: []string{"a"}},
			records: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1"), txtRecord("app.example.com", legacy),
			},
			want: map[string]readResult{"app.example.com/A": {labels: legacyLabels, verdict: ours}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := newRegistry(t, newZone(tt.records...), tt.cfg)
			recs, err := reg.Records(context.Background())
			require.NoError(t, err)
			got := map[string]readResult{}
			for _, r := range recs {
				_, forced := r.GetProviderSpecificProperty(endpoint.ProviderSpecificForceUpdate)
				labels := r.Labels
				got[r.Key().String()] = readResult{labels: labels, forced: forced, verdict: r.Ownership()}
			}
			assert.Equal(t, tt.want, got)
			assert.IsNonDecreasing(t, keysOf(recs))
		})
	}
}

func TestRecordsSkipsTXTWithoutTargets(t *testing.T) {
	p := staticRecords(a("app.example.com", "192.0.2.1"), &endpoint.Endpoint{DNSName: "a-app.example.com", RecordType: "TXT"})
	reg := newRegistry(t, p, txt.Config{})
	recs, err := reg.Records(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"app.example.com/A/192.0.2.1"}, keysOf(recs))
}

func TestRecordsSortsUnsortedProviderOutput(t *testing.T) {
	p := staticRecords(a("b.example.com", "192.0.2.2"), txtRecord("a-b.example.com", v1), a("a.example.com", "192.0.2.1"),
		nil, endpoint.NewEndpoint("a.example.com", "AAAA", "2001:db8::1"))
	reg := newRegistry(t, p, txt.Config{})
	recs, err := reg.Records(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"a.example.com/A/192.0.2.1", "a.example.com/AAAA/2001:db8::1", "b.example.com/A/192.0.2.2"}, keysOf(recs))
}

func TestRecordsKeepsProviderLabels(t *testing.T) {
	p := staticRecords(a("app.example.com", "192.0.2.1").WithLabel("zone-id", "z1"), txtRecord("a-app.example.com", v1))
	reg := newRegistry(t, p, txt.Config{})
	recs, err := reg.Records(context.Background())
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, endpoint.LabelsFromMap(map[string]string{"zone-id": "z1", "owner": "default", "resource": "service/default/app"}), recs[0].Labels)
}

// TestRecordsLabelsBelongToTheCaller: no two returned records share a
// Labels map, even when they are owned through one TXT record or through
// TXT records with identical values, and changing them leaks nowhere.
func TestRecordsLabelsBelongToTheCaller(t *testing.T) {
	legacy := `"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app"`
	tests := []struct {
		name        string
		cfg         txt.Config
		records     []*endpoint.Endpoint
		wantForce   bool
		wantVerdict endpoint.Ownership
	}{
		{
			name:    "identical values",
			records: []*endpoint.Endpoint{a("x.example.com", "192.0.2.1"), txtRecord("a-x.example.com", v1), a("y.example.com", "192.0.2.2"), txtRecord("a-y.example.com", v1)},
		},
		{
			name:    "one wildcard TXT owns two records",
			cfg:     txt.Config{WildcardReplacement: "any"},
			records: []*endpoint.Endpoint{a("*.example.com", "192.0.2.1"), a("any.example.com", "192.0.2.2"), txtRecord("a-any.example.com", v1)},
		},
		{
			name: "one legacy TXT owns two records, migrated",
			cfg:  txt.Config{OwnerID: "new", OldOwnerID: "default", ManagedRecordTypes: []string{"A", "MX"}},
			records: []*endpoint.Endpoint{a("app.example.com", "192.0.2.1"), endpoint.NewEndpoint("app.example.com", "MX", "10 mail.example.com"),
				txtRecord("app.example.com", legacy)},
			wantForce: true, wantVerdict: endpoint.OwnedByOldOwner,
		},
		{
			name:        "one wildcard TXT owns two records, migrated",
			cfg:         txt.Config{OwnerID: "new", OldOwnerID: "default", WildcardReplacement: "any"},
			records:     []*endpoint.Endpoint{a("*.example.com", "192.0.2.1"), a("any.example.com", "192.0.2.2"), txtRecord("a-any.example.com", v1)},
			wantVerdict: endpoint.OwnedByOldOwner,
		},
		{
			name:        "identical values, migrated",
			cfg:         txt.Config{OwnerID: "new", OldOwnerID: "default"},
			records:     []*endpoint.Endpoint{a("x.example.com", "192.0.2.1"), txtRecord("a-x.example.com", v1), a("y.example.com", "192.0.2.2"), txtRecord("a-y.example.com", v1)},
			wantVerdict: endpoint.OwnedByOldOwner,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.wantVerdict == endpoint.OwnershipUndecided {
				tt.wantVerdict = endpoint.OwnedByUs
			}
			for _, cache := range []time.Duration{0, time.Hour} {
				reg := newRegistry(t, withCache(staticRecords(tt.records...), cache), tt.cfg)
				recs, err := reg.Records(context.Background())
				require.NoError(t, err)
				require.Len(t, recs, 2)
				for _, rec := range recs {
					assert.Equal(t, endpoint.LabelsFromMap(map[string]string{"owner": "default", "resource": "service/default/app"}), rec.Labels, rec.DNSName)
					_, forced := rec.GetProviderSpecificProperty(endpoint.ProviderSpecificForceUpdate)
					assert.Equal(t, tt.wantForce, forced, rec.DNSName)
					assert.Equal(t, tt.wantVerdict, rec.Ownership(), rec.DNSName)
				}
				recs[0].Labels.Set("resource", "changed")
				assert.Equal(t, "service/default/app", labelValue(recs[1].Labels, "resource"), "maps are not shared")

				again, err := reg.Records(context.Background())
				require.NoError(t, err)
				for _, rec := range again {
					assert.Equal(t, endpoint.LabelsFromMap(map[string]string{"owner": "default", "resource": "service/default/app"}), rec.Labels, rec.DNSName)
				}
			}
		})
	}
}

func TestRecordsProviderError(t *testing.T) {
	p := providertest.FailRandomly(newZone(), 1, nil, provider.NewSoftError(nil))
	reg := newRegistry(t, p, txt.Config{})
	_, err := reg.Records(context.Background())
	require.ErrorIs(t, err, providertest.ErrInjected)
	assert.Contains(t, err.Error(), "txt registry")
}

// TestRegression_TLSAOwnershipTXT: external-dns v0.23.0 names the ownership
// TXT of a TLSA record "tlsa-…"; the record is owned
// through it, under every naming.
func TestRegression_TLSAOwnershipTXT(t *testing.T) {
	const mine = `"heritage=external-dns,external-dns/owner=me"`
	tests := []struct {
		name    string
		cfg     txt.Config
		txtName string
	}{
		{name: "no affix", txtName: "tlsa-_443._tcp.example.com"},
		{name: "prefix", cfg: txt.Config{Prefix: "txt-"}, txtName: "txt-tlsa-_443._tcp.example.com"},
		{name: "templated prefix", cfg: txt.Config{Prefix: "extdns-%{record_type}."}, txtName: "extdns-tlsa._443._tcp.example.com"},
		{name: "templated suffix", cfg: txt.Config{Suffix: "-%{record_type}"}, txtName: "_443-tlsa._tcp.example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.OwnerID = "me"
			cfg.ManagedRecordTypes = []string{"TLSA"}
			tlsa := endpoint.NewEndpoint("_443._tcp.example.com", endpoint.RecordTypeTLSA, "3 1 1 abcdef")
			reg := newRegistry(t, staticRecords(tlsa, txtRecord(tt.txtName, mine)), cfg)
			recs, err := reg.Records(context.Background())
			require.NoError(t, err)
			require.Len(t, recs, 1, "the ownership TXT is consumed")
			assert.True(t, recs[0].IsOwnedBy("me"))
			_, forced := recs[0].GetProviderSpecificProperty(endpoint.ProviderSpecificForceUpdate)
			assert.False(t, forced, "its typed TXT exists")
			assert.Equal(t, tt.txtName, reg.TXTName(tlsa))
		})
	}
}
