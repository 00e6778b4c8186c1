package txt_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/txt"
)

// TestWorkedExamples runs every row of the external-dns TXT registry worked examples through the registry:
// a create writes the record and its TXT (name and value as in the table),
// and reading the zone back attaches the labels.
func TestWorkedExamples(t *testing.T) {
	const v3 = `"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/web"`
	const v9 = `"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/sip"`
	tests := []struct {
		name     string
		cfg      txt.Config
		owned    *endpoint.Endpoint
		wantName string
		wantTXT  string
	}{
		{name: "1 A", owned: a("app.example.com", "192.0.2.10").WithLabel("resource", "service/default/app"),
			wantName: "a-app.example.com", wantTXT: v1},
		{name: "2 AAAA", owned: endpoint.NewEndpoint("app.example.com", "AAAA", "2001:db8::10").WithLabel("resource", "service/default/app"),
			wantName: "aaaa-app.example.com", wantTXT: v1},
		{name: "3 CNAME prefix", cfg: txt.Config{Prefix: "txt-"},
			owned:    endpoint.NewEndpoint("www.example.com", "CNAME", "lb.example.net").WithLabel("resource", "ingress/default/web"),
			wantName: "txt-cname-www.example.com", wantTXT: v3},
		{name: "4 CNAME templated suffix", cfg: txt.Config{Suffix: "-%{record_type}"},
			owned:    endpoint.NewEndpoint("api.example.com", "CNAME", "lb.example.net").WithLabel("resource", "ingress/default/web"),
			wantName: "api-cname.example.com", wantTXT: v3},
		{name: "5 wildcard", cfg: txt.Config{Prefix: "txt-", WildcardReplacement: "any"},
			owned:    a("*.apps.example.com", "192.0.2.20").WithLabel("resource", "service/default/app"),
			wantName: "txt-a-any.apps.example.com", wantTXT: v1},
		{name: "6 apex", cfg: txt.Config{Prefix: "extdns-%{record_type}."},
			owned:    a("example.com", "192.0.2.30").WithLabel("resource", "service/default/app"),
			wantName: "extdns-a.example.com", wantTXT: v1},
		{name: "7 alias v0.22+", owned: a("app.example.com", "192.0.2.10").WithLabel("resource", "service/default/app").WithProviderSpecific("alias", "true"),
			wantName: "a-app.example.com", wantTXT: v1},
		{name: "7 alias <=v0.21", cfg: txt.Config{AliasTXTType: txt.AliasTXTTypeCNAME},
			owned:    a("app.example.com", "192.0.2.10").WithLabel("resource", "service/default/app").WithProviderSpecific("alias", "true"),
			wantName: "cname-app.example.com", wantTXT: v1},
		{name: "8 typed only, no affix", owned: a("app.example.com", "192.0.2.10").WithLabel("resource", "service/default/app"),
			wantName: "a-app.example.com", wantTXT: v1},
		{name: "8 typed only, prefix", cfg: txt.Config{Prefix: "txt-"}, owned: a("app.example.com", "192.0.2.10").WithLabel("resource", "service/default/app"),
			wantName: "txt-a-app.example.com", wantTXT: v1},
		{name: "9 SRV", owned: endpoint.NewEndpoint("_sip._udp.example.com", "SRV", "0 50 30060 sip.example.com.").WithLabel("resource", "service/default/sip"),
			wantName: "srv-_sip._udp.example.com", wantTXT: v9},
		{name: "10 set identifier", owned: a("app.example.com", "192.0.2.10").WithLabel("resource", "service/default/app").WithSetIdentifier("eu"),
			wantName: "a-app.example.com", wantTXT: v1},
		{name: "11 no resource label", owned: a("app.example.com", "192.0.2.10"),
			wantName: "a-app.example.com", wantTXT: `"heritage=external-dns,external-dns/owner=default"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			zone := newZone()
			rp := providertest.NewRecordingProvider(zone)
			reg := newRegistry(t, rp, tt.cfg)
			_, err := reg.Records(ctx)
			require.NoError(t, err)

			in := tt.owned.DeepCopy()
			require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{in}}))
			assert.Equal(t, tt.owned, in, "the caller's endpoint must not change")

			got := lastApply(t, rp)
			require.Len(t, got.Create, 2)
			wantRec := tt.owned.DeepCopy().WithLabel("owner", "default")
			assert.Equal(t, wantRec, got.Create[1], "the record goes after its TXT")
			wantTXT := &endpoint.Endpoint{
				DNSName: tt.wantName, Targets: endpoint.Targets{tt.wantTXT}, RecordType: "TXT",
				SetIdentifier:    tt.owned.SetIdentifier,
				Labels:           endpoint.LabelsFromMap(map[string]string{"ownedRecord": tt.owned.DNSName}),
				ProviderSpecific: tt.owned.ProviderSpecific,
			}
			wantTXT.DeleteProviderSpecificProperty("alias")
			if len(wantTXT.ProviderSpecific) == 0 {
				wantTXT.ProviderSpecific = nil
			}
			assert.Equal(t, wantTXT, got.Create[0])

			// Read side: the labels come back, the TXT is hidden.
			recs, err := reg.Records(ctx)
			require.NoError(t, err)
			require.Len(t, recs, 1)
			assert.Equal(t, tt.owned.DNSName, recs[0].DNSName)
			assert.Equal(t, wantRec.Labels, recs[0].Labels)
			_, forced := recs[0].GetProviderSpecificProperty(endpoint.ProviderSpecificForceUpdate)
			assert.False(t, forced)
		})
	}
}

// TestWorkedExchange reproduces the ApplyChanges body external-dns sends a webhook provider
// byte for byte, but for one departure: the ownership TXT of a created
// record comes before the record (external-dns appends it after), so that
// a provider that stops half-way leaves a TXT without record, which heals,
// rather than a record without TXT, which cannot be told from a foreign
// one. Deletes keep external-dns's order: the record, then its TXT.
func TestWorkedExchange(t *testing.T) {
	ctx := context.Background()
	oldValue := `"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/old"`
	zone := newZone(
		endpoint.NewEndpointWithTTL("old.example.com", "A", 300, "192.0.2.1"),
		endpoint.NewEndpointWithTTL("a-old.example.com", "TXT", 300, oldValue),
	)
	rp := providertest.NewRecordingProvider(zone)
	reg := newRegistry(t, rp, txt.Config{})
	current, err := reg.Records(ctx)
	require.NoError(t, err)
	require.Len(t, current, 1)

	app := endpoint.NewEndpointWithTTL("app.example.com", "A", 300, "192.0.2.10").
		WithLabel("resource", "service/default/app").WithProviderSpecific("webhook/priority", "10")
	require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{app}, Delete: current}))

	body, err := json.Marshal(lastApply(t, rp))
	require.NoError(t, err)
	want := `{"create":[{"dnsName":"a-app.example.com","targets":["\"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app\""],"recordType":"TXT","labels":{"ownedRecord":"app.example.com"},"providerSpecific":[{"name":"webhook/priority","value":"10"}]},{"dnsName":"app.example.com","targets":["192.0.2.10"],"recordType":"A","recordTTL":300,"labels":{"owner":"default","resource":"service/default/app"},"providerSpecific":[{"name":"webhook/priority","value":"10"}]}],"delete":[{"dnsName":"old.example.com","targets":["192.0.2.1"],"recordType":"A","recordTTL":300,"labels":{"owner":"default","resource":"service/default/old"}},{"dnsName":"a-old.example.com","targets":["\"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/old\""],"recordType":"TXT","labels":{"ownedRecord":"old.example.com"}}]}`
	assert.Equal(t, want, string(body))
	assert.Equal(t, []string{
		"a-app.example.com TXT " + `"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app"`,
		"app.example.com A 192.0.2.10",
	}, zoneDump(t, zone))
}

// TestEncryptionVector reads a zone holding the encrypted value of external-dns's
// test vector and rewrites it byte for byte on update and delete.
func TestEncryptionVector(t *testing.T) {
	const key = ")K_Fy|?Z.64#UuHm`}[d!GC%WJM_fs{_"
	const value = "+lvP8q9KHJ6BS6O81i2Q6DLNdf2JSKy8j/gbZKviTZlGYj7q+yDoYMgkQ1hPn6urtGllM5bfFMcaaHto52otQtiOYrX8990J3kQqg4s47m3bH3Ejl8RSxSSuWJM3HJtPghQzYg0/LSOsdQ0="
	for _, quoted := range []bool{true, false} {
		stored := value
		if quoted {
			stored = `"` + value + `"`
		}
		t.Run(map[bool]string{true: "quoted", false: "unquoted"}[quoted], func(t *testing.T) {
			ctx := context.Background()
			zone := newZone(a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", stored))
			rp := providertest.NewRecordingProvider(zone)
			reg := newRegistry(t, rp, txt.Config{OwnerID: "foo-owner", EncryptionKey: []byte(key)})

			recs, err := reg.Records(ctx)
			require.NoError(t, err)
			require.Len(t, recs, 1)
			assert.Equal(t, endpoint.LabelsFromMap(map[string]string{
				"owner": "foo-owner", "resource": "foo-resource", "txt-encryption-nonce": "+lvP8q9KHJ6BS6O8",
			}), recs[0].Labels)

			// Regenerating from the labels gives the identical value.
			own, err := reg.OwnershipTXT(recs[0])
			require.NoError(t, err)
			assert.Equal(t, endpoint.Targets{`"` + value + `"`}, own.Targets)

			// An update rewrites the TXT: old value as read, new value
			// identical (same labels, same nonce).
			newRec := recs[0].DeepCopy()
			newRec.Targets = endpoint.Targets{"192.0.2.2"}
			require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{
				UpdateOld: []*endpoint.Endpoint{recs[0]}, UpdateNew: []*endpoint.Endpoint{newRec},
			}))
			got := lastApply(t, rp)
			require.Len(t, got.UpdateOld, 2)
			require.Len(t, got.UpdateNew, 2)
			assert.Equal(t, endpoint.Targets{stored}, got.UpdateOld[1].Targets)
			assert.Equal(t, endpoint.Targets{`"` + value + `"`}, got.UpdateNew[1].Targets)

			// A delete removes the TXT with the value as stored.
			recs, err = reg.Records(ctx)
			require.NoError(t, err)
			require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Delete: recs}))
			got = lastApply(t, rp)
			require.Len(t, got.Delete, 2)
			assert.Equal(t, "a-app.example.com", got.Delete[1].DNSName)
			assert.Equal(t, endpoint.Targets{`"` + value + `"`}, got.Delete[1].Targets)
			assert.Empty(t, zoneDump(t, zone))
		})
	}
}

// TestEncryptedWrites checks that a keyed registry writes encrypted values
// that decrypt to the plain labels, and still reads plain values.
func TestEncryptedWrites(t *testing.T) {
	ctx := context.Background()
	key := []byte("ZPitL0NGVQBZbTD6DwXJzD8RiStSazzYXQsdUowLURY=")
	zone := newZone(a("plain.example.com", "192.0.2.1"), txtRecord("a-plain.example.com", v1))
	reg := newRegistry(t, zone, txt.Config{EncryptionKey: key})
	recs, err := reg.Records(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, "default", labelValue(recs[0].Labels, "owner"), "plain values are read with a key configured")

	require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		a("new.example.com", "192.0.2.2").WithLabel("resource", "service/default/app"),
	}}))
	all, err := zone.Records(ctx)
	require.NoError(t, err)
	var value string
	for _, r := range all {
		if r.DNSName == "a-new.example.com" {
			value = r.Targets[0]
		}
	}
	require.NotEmpty(t, value)
	assert.NotContains(t, value, "heritage")
	k, err := endpoint.ParseEncryptionKey(key)
	require.NoError(t, err)
	labels, err := endpoint.ParseLabelsWithKey(value, k)
	require.NoError(t, err)
	labels.Delete(endpoint.TxtEncryptionNonceLabelKey)
	assert.Equal(t, endpoint.LabelsFromMap(map[string]string{"owner": "default", "resource": "service/default/app"}), labels)

	recs, err = reg.Records(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.Equal(t, "service/default/app", labelValue(recs[0].Labels, "resource"))
	nonce, _ := recs[0].Labels.Get("txt-encryption-nonce")
	assert.Len(t, nonce, 16)
}
