package txt_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/txt"
)

// Some providers keep their own labels on the records they return
// (external-dns's coredns provider keeps each record's etcd key, and the
// owner it stored). These tests pin down how the registry treats them.

// vStale is an ownership value written when the provider's key label of the
// record was still "old".
const vStale = `"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app,external-dns/key=old"`

func TestProviderLabels(t *testing.T) {
	tests := []struct {
		name    string
		records []*endpoint.Endpoint
		want    map[string]map[string]string // record key -> labels
	}{
		{
			name: "the provider's own label wins over the TXT's stale copy",
			records: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1").WithLabel("key", "new"),
				txtRecord("a-app.example.com", vStale),
			},
			want: map[string]map[string]string{
				"app.example.com A": {"key": "new", "owner": "default", "resource": "service/default/app"},
			},
		},
		{
			name: "ownership and resource come from the TXT only",
			records: []*endpoint.Endpoint{
				a("app.example.com", "192.0.2.1").WithLabel("owner", "intruder").WithLabel("resource", "service/x/y"),
				txtRecord("a-app.example.com", v1),
			},
			want: map[string]map[string]string{
				"app.example.com A": {"owner": "default", "resource": "service/default/app"},
			},
		},
		{
			name: "an owner label without an ownership TXT claims nothing",
			records: []*endpoint.Endpoint{
				a("other.example.com", "192.0.2.2").WithLabel("owner", "default").WithLabel("key", "k"),
			},
			want: map[string]map[string]string{
				"other.example.com A": {"key": "k"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := newRegistry(t, staticRecords(tt.records...), txt.Config{})
			recs, err := reg.Records(context.Background())
			require.NoError(t, err)
			got := map[string]map[string]string{}
			for _, r := range recs {
				m := map[string]string{}
				for k, v := range r.Labels.All() {
					m[k] = v
				}
				got[r.DNSName+" "+r.RecordType] = m
			}
			assert.Equal(t, tt.want, got)
			for _, r := range recs {
				if r.DNSName == "other.example.com" {
					assert.False(t, r.IsOwnedBy("default"))
				}
			}
		})
	}
}

// TestProviderLabelsOfTXTRecordsReachTheProvider: the changes that replace
// or delete an ownership TXT carry the labels the provider returned with
// it, so a provider that finds records by label finds the TXT.
func TestProviderLabelsOfTXTRecordsReachTheProvider(t *testing.T) {
	zone := newZone(a("app.example.com", "192.0.2.1"), txtRecord("a-app.example.com", v1))
	rp := providertest.NewRecordingProvider(keyLabels(zone))
	reg := newRegistry(t, rp, txt.Config{})
	ctx := context.Background()

	// An update rewrites the TXT: its old side carries the TXT's key.
	_, err := cycle(ctx, reg, []*endpoint.Endpoint{a("app.example.com", "192.0.2.9").WithLabel("resource", "service/default/app")})
	require.NoError(t, err)
	c := lastApply(t, rp)
	txtOld := findTXT(c.UpdateOld)
	require.NotNil(t, txtOld, "the TXT is updated: %v", c)
	key, _ := txtOld.Labels.Get("key")
	assert.Equal(t, "k-a-app.example.com", key)
	// The record's old side carries the record's own key.
	for _, ep := range c.UpdateOld {
		if ep.RecordType == endpoint.RecordTypeA {
			key, _ := ep.Labels.Get("key")
			assert.Equal(t, "k-app.example.com", key)
		}
	}

	// A delete deletes the TXT with its key.
	_, err = cycle(ctx, reg, nil)
	require.NoError(t, err)
	c = lastApply(t, rp)
	txtDel := findTXT(c.Delete)
	require.NotNil(t, txtDel, "the TXT is deleted: %v", c)
	key, _ = txtDel.Labels.Get("key")
	assert.Equal(t, "k-a-app.example.com", key)
	owned, _ := txtDel.Labels.Get(endpoint.OwnedRecordLabelKey)
	assert.Equal(t, "app.example.com", owned)
	assert.Empty(t, zoneDump(t, zone))
}

// keyLabels returns zone as a provider that returns every record with its
// own "key" label, as external-dns's coredns provider returns etcd keys.
func keyLabels(zone provider.Provider) provider.Provider {
	return providertest.Intercept(zone, providertest.Funcs{
		Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
			eps, err := next.Records(ctx)
			for _, ep := range eps {
				ep.Labels.Set("key", "k-"+ep.DNSName)
			}
			return eps, err
		},
	})
}

func findTXT(eps []*endpoint.Endpoint) *endpoint.Endpoint {
	for _, ep := range eps {
		if ep.RecordType == endpoint.RecordTypeTXT {
			return ep
		}
	}
	return nil
}

// TestProviderLabelsAfterATXTIsRemoved: after an ApplyChanges removes an
// ownership TXT, the TXT records read after it move down in what the
// registry remembers; the labels the provider returned with them, and
// their set identifiers, move with them, so that a second ApplyChanges
// without a read in between deletes each TXT with its own labels.
func TestProviderLabelsAfterATXTIsRemoved(t *testing.T) {
	zone := newZone(
		a("a1.example.com", "192.0.2.1"), txtRecord("a-a1.example.com", v1),
		a("a2.example.com", "192.0.2.2").WithSetIdentifier("eu"), txtRecord("a-a2.example.com", v1).WithSetIdentifier("eu"),
		a("a3.example.com", "192.0.2.3"), txtRecord("a-a3.example.com", v1),
	)
	rp := providertest.NewRecordingProvider(keyLabels(zone))
	reg := newRegistry(t, rp, txt.Config{})
	ctx := context.Background()
	recs, err := reg.Records(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 3)
	byName := map[string]*endpoint.Endpoint{}
	for _, r := range recs {
		byName[r.DNSName] = r
	}
	require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{byName["a1.example.com"]}}))
	for _, name := range []string{"a3.example.com", "a2.example.com"} {
		require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{byName[name]}}))
		txtDel := findTXT(lastApply(t, rp).Delete)
		require.NotNil(t, txtDel)
		key, _ := txtDel.Labels.Get("key")
		assert.Equal(t, "k-a-"+name, key)
		assert.Equal(t, byName[name].SetIdentifier, txtDel.SetIdentifier)
	}
	assert.Empty(t, zoneDump(t, zone))
}
