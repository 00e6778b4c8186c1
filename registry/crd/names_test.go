package crd_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/crd"
)

// The expected names were computed outside Go, from the rule external-dns
// uses (its recordObjectName): the hash with `printf '%s' 'name/TYPE/set' |
// sha256sum`, the readable part by hand.
func TestObjectName(t *testing.T) {
	long := strings.Join([]string{strings.Repeat("a", 60), strings.Repeat("b", 60), strings.Repeat("c", 60),
		strings.Repeat("d", 60), strings.Repeat("e", 50)}, ".") + ".example.com" // 306 characters
	tests := []struct {
		name, dnsName, recordType, setID string
		want                             string
	}{
		{"plain", "www.example.com", "A", "", "www-example-com-2c8f910d"},
		{"case, trailing dot and type case do not matter", "WWW.Example.COM.", "a", "", "www-example-com-2c8f910d"},
		{"set identifier", "weighted.example.com", "A", "blue", "weighted-example-com-26a8b85a"},
		{"another set identifier", "weighted.example.com", "A", "green", "weighted-example-com-d5b1a81e"},
		{"Unicode name: non-ASCII letters become dashes", "bücher.example.com", "A", "", "b-cher-example-com-c0ea16c1"},
		{"the A-label form of the same name", "xn--bcher-kva.example.com", "A", "", "xn-bcher-kva-example-com-3ba34cfb"},
		{"wildcard", "*.apps.example.com", "CNAME", "", "apps-example-com-aeb79f71"},
		{"underscores", "_sip._tcp.example.com", "SRV", "", "sip-tcp-example-com-fc7893d3"},
		// 4×60 letters and 4 dashes are the 244 characters left beside the
		// suffix; the last is a dash, trimmed.
		{"306 characters, cut to fit 253", long, "A", "",
			strings.Repeat("a", 60) + "-" + strings.Repeat("b", 60) + "-" + strings.Repeat("c", 60) + "-" +
				strings.Repeat("d", 60) + "-4166207e"},
		{"nothing but symbols", "*._-.", "TXT", "", "record-f1e67e20"},
		{"empty", "", "A", "", "record-8c24af8e"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := crd.ObjectName(tt.dnsName, tt.recordType, tt.setID)
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, len(got), 253)
		})
	}
}

// The fallback name: the readable part of ObjectName, cut to fit the
// longer suffix, and the whole SHA-256 (computed with `printf '%s'
// 'name/TYPE/set' | sha256sum`). It never equals an ObjectName.
func TestFallbackObjectName(t *testing.T) {
	long := strings.Join([]string{strings.Repeat("a", 60), strings.Repeat("b", 60), strings.Repeat("c", 60),
		strings.Repeat("d", 60), strings.Repeat("e", 50)}, ".") + ".example.com"
	tests := []struct {
		name, dnsName, recordType, setID string
		want                             string
	}{
		{"plain", "www.example.com", "A", "",
			"www-example-com-2c8f910d5dab9de47de51f26dbebe840992edae2e7a482f39cf5f72f6178db32"},
		{"case, trailing dot and type case do not matter", "WWW.Example.COM.", "a", "",
			"www-example-com-2c8f910d5dab9de47de51f26dbebe840992edae2e7a482f39cf5f72f6178db32"},
		{"the second of a colliding pair", collidingName, "A", collidingSetB,
			"collide-example-com-e0e21dfa9523e853393069ed9692c0d88f00af61eb64926ca5e7b74e74054e31"},
		// 188 characters are left beside the 65 of the suffix.
		{"306 characters, cut to fit 253", long, "A", "",
			strings.Repeat("a", 60) + "-" + strings.Repeat("b", 60) + "-" + strings.Repeat("c", 60) + "-ddddd" +
				"-4166207e09eed3ad217066c03686e5aa494da5b5e3da8e84bc1ca39c08eb278c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := crd.FallbackObjectName(tt.dnsName, tt.recordType, tt.setID)
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, len(got), 253)
			assert.NotEqual(t, crd.ObjectName(tt.dnsName, tt.recordType, tt.setID), got)
		})
	}
}

// Of a colliding pair, the record set created first keeps its ObjectName,
// the second gets its FallbackObjectName; the fallback object is found
// when the first one is gone, and a record set whose ObjectName is free
// again is created under it.
func TestObjectNameCollisionNames(t *testing.T) {
	ctx := t.Context()
	pair := collidingPairs()["one name with two set identifiers"]
	first, second := pair[0], pair[1]
	zone := inmemory.New(inmemory.Options{Zones: []string{testZone}})
	k := newKube(t)
	reg := newRegistry(t, zone, k, testOwner)
	apply := func(c *plan.Changes) {
		t.Helper()
		_, err := reg.Records(ctx)
		require.NoError(t, err)
		require.NoError(t, reg.ApplyChanges(ctx, c))
	}
	apply(&plan.Changes{Create: []*endpoint.Endpoint{first, second}})
	primary := crd.ObjectName(first.DNSName, "A", first.SetIdentifier)
	fallback := crd.FallbackObjectName(second.DNSName, "A", second.SetIdentifier)
	assert.ElementsMatch(t, []string{primary, fallback}, k.names(t))
	assert.Equal(t, collidingSetB, specOf(t, k.get(t, fallback)).SetIdentifier)

	recs, err := reg.Records(ctx)
	require.NoError(t, err)
	require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{find(recs, first)}}))
	assert.Equal(t, []string{fallback}, k.names(t))
	recs, err = newRegistry(t, zone, k, testOwner).Records(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, endpoint.OwnedByUs, recs[0].Ownership(), "found under the fallback name")

	apply(&plan.Changes{Create: []*endpoint.Endpoint{first}})
	assert.ElementsMatch(t, []string{primary, fallback}, k.names(t))
}
