package crd_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/crd"
)

// withPrevious sets the PreviousEndpointAnnotation of u to ep.
func withPrevious(t *testing.T, u *unstructured.Unstructured, ep *endpoint.Endpoint) *unstructured.Unstructured {
	t.Helper()
	b, err := json.Marshal(ep)
	require.NoError(t, err)
	u.SetAnnotations(map[string]string{crd.PreviousEndpointAnnotation: string(b)})
	return u
}

// atGeneration sets the generation of u and the observedGeneration of its
// Ready condition (0: none, as external-dns writes it).
func atGeneration(t *testing.T, u *unstructured.Unstructured, generation, observed int64) *unstructured.Unstructured {
	t.Helper()
	u.SetGeneration(generation)
	conds, _, err := unstructured.NestedSlice(u.Object, "status", "conditions")
	require.NoError(t, err)
	for _, c := range conds {
		if observed != 0 {
			c.(map[string]any)["observedGeneration"] = observed
		}
	}
	if len(conds) > 0 {
		require.NoError(t, unstructured.SetNestedSlice(u.Object, conds, "status", "conditions"))
	}
	return u
}

func resourceOf(ep *endpoint.Endpoint) string {
	r, _ := ep.Labels.Get(endpoint.ResourceLabelKey)
	return r
}

// The claim rules: which DNSRecord makes which provider record ours.
func TestRecordsClaims(t *testing.T) {
	const res = "service/default/app"
	stored := func(ep *endpoint.Endpoint) *endpoint.Endpoint {
		return ep.WithLabel(endpoint.OwnerLabelKey, testOwner).WithLabel(endpoint.ResourceLabelKey, res)
	}
	inNamespace := func(ns string, u *unstructured.Unstructured) *unstructured.Unstructured {
		u.SetNamespace(ns)
		return u
	}
	renamed := func(name string, u *unstructured.Unstructured) *unstructured.Unstructured {
		u.SetName(name)
		return u
	}
	tests := []struct {
		name    string
		record  *endpoint.Endpoint // in the provider
		objects []*unstructured.Unstructured
		ours    bool
		repairs int // PendingRepairs after the read
	}{
		{name: "Programmed, same data", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{dnsRecord(testOwner, stored(a("app", "192.0.2.1")), crd.ReasonProgrammed)},
			ours:    true},
		{name: "Programmed, data changed out of band", record: a("app", "192.0.2.99"),
			objects: []*unstructured.Unstructured{dnsRecord(testOwner, stored(a("app", "192.0.2.1")), crd.ReasonProgrammed)},
			ours:    true},
		{name: "Accepted, same data: a cycle cut before the status write", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{dnsRecord(testOwner, stored(a("app", "192.0.2.1")), crd.ReasonAccepted)},
			ours:    true, repairs: 1},
		{name: "Accepted, targets in another order and case", record: endpoint.NewEndpointWithTTL("app.example.com", "CNAME", 300, "Target.example.org"),
			objects: []*unstructured.Unstructured{dnsRecord(testOwner, stored(endpoint.NewEndpointWithTTL("app.example.com", "CNAME", 300, "target.example.org")), crd.ReasonAccepted)},
			ours:    true, repairs: 1},
		{name: "Accepted without a TTL: the provider's TTL is not a difference", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{dnsRecord(testOwner, stored(endpoint.NewEndpoint("app.example.com", "A", "192.0.2.1")), crd.ReasonAccepted)},
			ours:    true, repairs: 1},
		{name: "Accepted, other TTL", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{dnsRecord(testOwner, stored(endpoint.NewEndpointWithTTL("app.example.com", "A", 60, "192.0.2.1")), crd.ReasonAccepted)},
			ours:    false, repairs: 1},
		{name: "Accepted, other data: a foreign record made our create fail", record: a("app", "192.0.2.99"),
			objects: []*unstructured.Unstructured{dnsRecord(testOwner, stored(a("app", "192.0.2.1")), crd.ReasonAccepted)},
			ours:    false, repairs: 1},
		{name: "Failed create, same data: a record that appeared where the provider refused our create is not ours", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{dnsRecord(testOwner, stored(a("app", "192.0.2.1")), crd.ReasonFailed)},
			ours:    false, repairs: 1},
		{name: "Failed, other data", record: a("app", "192.0.2.99"),
			objects: []*unstructured.Unstructured{dnsRecord(testOwner, stored(a("app", "192.0.2.1")), crd.ReasonFailed)},
			ours:    false, repairs: 1},
		{name: "no status at all, same data: a DNSRecord somebody merely created claims nothing", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{atGeneration(t, dnsRecord(testOwner, stored(a("app", "192.0.2.1")), ""), 1, 0)},
			ours:    false, repairs: 1},
		{name: "Accepted for this generation, same data", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{atGeneration(t, dnsRecord(testOwner, stored(a("app", "192.0.2.1")), crd.ReasonAccepted), 3, 3)},
			ours:    true, repairs: 1},
		{name: "Accepted for an older generation, same data: the spec changed after the status was written", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{atGeneration(t, dnsRecord(testOwner, stored(a("app", "192.0.2.1")), crd.ReasonAccepted), 2, 1)},
			ours:    false, repairs: 1},
		{name: "Accepted without observedGeneration (external-dns's intent), same data", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{atGeneration(t, dnsRecord(testOwner, stored(a("app", "192.0.2.1")), crd.ReasonAccepted), 1, 0)},
			ours:    false, repairs: 1},
		{name: "Programmed without observedGeneration, as external-dns writes it", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{atGeneration(t, dnsRecord(testOwner, stored(a("app", "192.0.2.1")), crd.ReasonProgrammed), 1, 0)},
			ours:    true},
		{name: "Programmed for an older generation: an update not sent (its Accepted write failed)", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{atGeneration(t, withPrevious(t, dnsRecord(testOwner, stored(a("app", "192.0.2.2")), crd.ReasonProgrammed), a("app", "192.0.2.1")), 2, 1)},
			ours:    true},
		{name: "Failed update, the record holds the new data: the provider applied the update it reported failed", record: a("app", "192.0.2.2"),
			objects: []*unstructured.Unstructured{atGeneration(t, withPrevious(t, dnsRecord(testOwner, stored(a("app", "192.0.2.2")), crd.ReasonFailed), a("app", "192.0.2.1")), 2, 2)},
			ours:    true, repairs: 1},
		{name: "Accepted update cut before the provider: the record holds the previous data", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{atGeneration(t, withPrevious(t, dnsRecord(testOwner, stored(a("app", "192.0.2.2")), crd.ReasonAccepted), a("app", "192.0.2.1")), 2, 2)},
			ours:    true, repairs: 1},
		{name: "previous data without status: a forged annotation claims nothing", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{atGeneration(t, withPrevious(t, dnsRecord(testOwner, stored(a("app", "192.0.2.2")), ""), a("app", "192.0.2.1")), 1, 0)},
			ours:    false, repairs: 1},
		{name: "previous data, Failed for an older generation: the annotation was set after the status", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{atGeneration(t, withPrevious(t, dnsRecord(testOwner, stored(a("app", "192.0.2.2")), crd.ReasonFailed), a("app", "192.0.2.1")), 3, 2)},
			ours:    false, repairs: 1},
		{name: "Failed update: the record holds the previous data", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{withPrevious(t, dnsRecord(testOwner, stored(a("app", "192.0.2.2")), crd.ReasonFailed), a("app", "192.0.2.1"))},
			ours:    true, repairs: 1},
		{name: "Failed update: the record holds neither", record: a("app", "192.0.2.3"),
			objects: []*unstructured.Unstructured{withPrevious(t, dnsRecord(testOwner, stored(a("app", "192.0.2.2")), crd.ReasonFailed), a("app", "192.0.2.1"))},
			ours:    false, repairs: 1},
		{name: "another owner's Programmed DNSRecord", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{dnsRecord("someone-else", a("app", "192.0.2.1"), crd.ReasonProgrammed)},
			ours:    false},
		{name: "our DNSRecord in another namespace", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{inNamespace("other", dnsRecord(testOwner, stored(a("app", "192.0.2.1")), crd.ReasonProgrammed))},
			ours:    false},
		{name: "a DNSRecord whose spec records another name than its object name says", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{renamed(crd.ObjectName("app.example.com", "A", ""), dnsRecord(testOwner, stored(a("other", "192.0.2.1")), crd.ReasonProgrammed))},
			// The object claims nothing; "other.example.com" is missing: stale.
			ours: false, repairs: 1},
		{name: "another set identifier", record: a("app", "192.0.2.1").WithSetIdentifier("blue"),
			objects: []*unstructured.Unstructured{dnsRecord(testOwner, stored(a("app", "192.0.2.1").WithSetIdentifier("green")), crd.ReasonProgrammed)},
			ours:    false, repairs: 1},
		{name: "names compare without case and trailing dot", record: a("app", "192.0.2.1"),
			objects: []*unstructured.Unstructured{dnsRecord(testOwner, stored(endpoint.NewEndpointWithTTL("App.Example.COM.", "A", 300, "192.0.2.1")), crd.ReasonProgrammed)},
			ours:    true},
		{name: "external-dns named the object after the Unicode name", record: endpoint.NewEndpointWithTTL("xn--bcher-kva.example.com", "A", 300, "192.0.2.1"),
			objects: []*unstructured.Unstructured{dnsRecord(testOwner, stored(endpoint.NewEndpointWithTTL("bücher.example.com", "A", 300, "192.0.2.1")), crd.ReasonProgrammed)},
			ours:    true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zone := inmemory.New(inmemory.Options{Zones: []string{testZone}, Records: []*endpoint.Endpoint{tt.record}})
			reg := newRegistry(t, zone, newKube(t, tt.objects...), testOwner)
			recs, err := reg.Records(t.Context())
			require.NoError(t, err)
			require.Len(t, recs, 1)
			got := recs[0]
			if tt.ours {
				assert.Equal(t, testOwner, ownerOf(got))
				assert.Equal(t, res, resourceOf(got), "the resource label comes from the DNSRecord")
				assert.Equal(t, endpoint.OwnedByUs, got.Ownership())
			} else {
				assert.Zero(t, got.Labels.Len(), "a record not ours has no labels: %v", got.Labels)
				assert.Equal(t, endpoint.OwnedByNobody, got.Ownership())
			}
			assert.Equal(t, tt.repairs, reg.PendingRepairs())
		})
	}
}

// An owner label the provider returns claims nothing; other labels of the
// provider win over the DNSRecord's copy, the registry's own keys come from
// the DNSRecord.
func TestRecordsLabels(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}, Records: []*endpoint.Endpoint{
		a("ours", "192.0.2.1"), a("plain", "192.0.2.2"),
	}})
	p := providertest.Intercept(zone, providertest.Funcs{Records: func(ctx context.Context, next provider.Provider) ([]*endpoint.Endpoint, error) {
		recs, err := next.Records(ctx)
		for _, r := range recs {
			r.Labels.Set(endpoint.OwnerLabelKey, testOwner)
			r.Labels.Set(endpoint.ResourceLabelKey, "from-the-provider")
			r.Labels.Set("coredns/key", "/skydns/com/example/"+r.DNSName)
		}
		return recs, err
	}})
	stored := a("ours", "192.0.2.1").WithLabel(endpoint.OwnerLabelKey, testOwner).
		WithLabel(endpoint.ResourceLabelKey, "service/default/ours").WithLabel("coredns/key", "stale")
	reg := newRegistry(t, p, newKube(t, dnsRecord(testOwner, stored, crd.ReasonProgrammed)), testOwner)
	recs, err := reg.Records(t.Context())
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.Equal(t, map[string]string{
		endpoint.OwnerLabelKey: testOwner, endpoint.ResourceLabelKey: "service/default/ours",
		"coredns/key": "/skydns/com/example/ours.example.com",
	}, labelMap(recs[0]))
	assert.Equal(t, map[string]string{
		endpoint.ResourceLabelKey: "from-the-provider", "coredns/key": "/skydns/com/example/plain.example.com",
	}, labelMap(recs[1]), "the provider's owner label is gone")
}

func labelMap(ep *endpoint.Endpoint) map[string]string {
	out := map[string]string{}
	for k, v := range ep.Labels.All() {
		out[k] = v
	}
	return out
}

// A Programmed DNSRecord whose record was deleted out of band lends nothing
// to a record somebody else writes there later, and the next ApplyChanges
// deletes it.
func TestRecordsStaleDNSRecordClaimsNothing(t *testing.T) {
	ctx := t.Context()
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	k := newKube(t, dnsRecord(testOwner, a("gone", "192.0.2.1").WithLabel(endpoint.OwnerLabelKey, testOwner), crd.ReasonProgrammed))
	reg := newRegistry(t, zone, k, testOwner)
	name := crd.ObjectName("gone.example.com", "A", "")

	recs, err := reg.Records(ctx)
	require.NoError(t, err)
	assert.Empty(t, recs)
	assert.Equal(t, 1, reg.PendingRepairs(), "the DNSRecord is to delete")

	intruder := a("gone", "192.0.2.99")
	require.NoError(t, zone.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{intruder}}))
	recs, err = reg.Records(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Empty(t, ownerOf(recs[0]), "the intruder is not ours")
	assert.Equal(t, 1, reg.PendingRepairs())

	require.NotNil(t, k.get(t, name))
	require.NoError(t, reg.ApplyChanges(ctx, nil), "an empty ApplyChanges makes the repairs")
	assert.Nil(t, k.get(t, name), "the stale DNSRecord is deleted")
	recs, err = reg.Records(ctx)
	require.NoError(t, err)
	assert.Empty(t, ownerOf(recs[0]))
	assert.Zero(t, reg.PendingRepairs())
}

// A DNSRecord whose record is missing is reused, not deleted, when the
// ApplyChanges after the read creates the record.
func TestRecordsStaleDNSRecordReusedByCreate(t *testing.T) {
	ctx := t.Context()
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	k := newKube(t, dnsRecord(testOwner, a("back", "192.0.2.1").WithLabel(endpoint.OwnerLabelKey, testOwner), crd.ReasonProgrammed))
	reg := newRegistry(t, zone, k, testOwner)
	name := crd.ObjectName("back.example.com", "A", "")
	before := k.get(t, name)

	_, err := reg.Records(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, reg.PendingRepairs())
	back := a("back", "192.0.2.2").WithLabel(endpoint.ResourceLabelKey, "service/default/back")
	require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{back}}))

	after := k.get(t, name)
	require.NotNil(t, after, "the DNSRecord is kept")
	assert.Equal(t, before.GetUID(), after.GetUID(), "the same object, reused")
	assert.Equal(t, endpoint.Targets{"192.0.2.2"}, specOf(t, after).Targets, "its spec refreshed")
	reason, status := readyReason(after)
	assert.Equal(t, crd.ReasonProgrammed, reason)
	assert.Equal(t, "True", status)

	recs, err := reg.Records(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, testOwner, ownerOf(recs[0]))
	assert.Equal(t, "service/default/back", resourceOf(recs[0]))
	assert.Zero(t, reg.PendingRepairs())
}

// A missing record proves nothing outside the provider's domain filter:
// its DNSRecord is kept.
func TestRecordsOutsideDomainFilterNotStale(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}, DomainFilter: endpoint.NewDomainFilter([]string{"in." + testZone})})
	k := newKube(t,
		dnsRecord(testOwner, a("x.in", "192.0.2.1"), crd.ReasonProgrammed),
		dnsRecord(testOwner, a("x.out", "192.0.2.2"), crd.ReasonProgrammed))
	reg := newRegistry(t, zone, k, testOwner)
	_, err := reg.Records(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, reg.PendingRepairs(), "only the DNSRecord inside the filter is stale")
	require.NoError(t, reg.ApplyChanges(t.Context(), nil))
	assert.Equal(t, []string{crd.ObjectName("x.out.example.com", "A", "")}, k.names(t))
}

// Repairs mark Programmed the DNSRecords found holding their data while
// not Ready; one found holding the data from before a failed update gets
// that data back as its spec.
func TestRecordsStatusRepairs(t *testing.T) {
	ctx := t.Context()
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}, Records: []*endpoint.Endpoint{
		a("accepted", "192.0.2.1"), a("updated", "192.0.2.1"),
	}})
	k := newKube(t,
		dnsRecord(testOwner, a("accepted", "192.0.2.1"), crd.ReasonAccepted),
		withPrevious(t, dnsRecord(testOwner, a("updated", "192.0.2.2"), crd.ReasonFailed), a("updated", "192.0.2.1")))
	reg := newRegistry(t, zone, k, testOwner)
	_, err := reg.Records(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, reg.PendingRepairs())
	require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{}))

	for _, name := range []string{"accepted", "updated"} {
		u := k.get(t, crd.ObjectName(name+".example.com", "A", ""))
		require.NotNil(t, u)
		reason, status := readyReason(u)
		assert.Equal(t, crd.ReasonProgrammed, reason, name)
		assert.Equal(t, "True", status, name)
		assert.Equal(t, endpoint.Targets{"192.0.2.1"}, specOf(t, u).Targets, name)
		assert.NotContains(t, u.GetAnnotations(), crd.PreviousEndpointAnnotation, name)
	}
	_, err = reg.Records(ctx)
	require.NoError(t, err)
	assert.Zero(t, reg.PendingRepairs())
}
