package zonesync_test

import (
	"context"
	"testing"

	"github.com/go-logr/logr/testr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// TestRegression_PunycodeNamesKeepTheirOwnership: a record created under an
// IDN name keeps the ownership of its TXT record, whatever spelling the
// source uses, so it is deleted when no longer wanted (differential testing
// against external-dns v0.23.0 found it orphaned forever).
func TestRegression_PunycodeNamesKeepTheirOwnership(t *testing.T) {
	for _, tc := range []struct {
		name    string
		desired string
		seed    []*endpoint.Endpoint
	}{
		{name: "A-label from the source", desired: "xn--mnchen-3ya.example.com"},
		{name: "Unicode from the source", desired: "München.Example.com."},
		{name: "zone seeded with a Unicode name", desired: "xn--mnchen-3ya.example.com", seed: []*endpoint.Endpoint{
			a("münchen.example.com", "192.0.2.1"),
			endpoint.NewEndpoint("a-xn--mnchen-3ya.example.com", endpoint.RecordTypeTXT,
				`"heritage=external-dns,external-dns/owner=me,external-dns/resource=service/ns/a"`),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: tc.seed})
			require.NoError(t, p.Err())
			reg, err := txt.New(p, txt.Config{OwnerID: "me"})
			require.NoError(t, err)
			src := source.NewStatic(a(tc.desired, "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, "service/ns/a"))
			rec := &zonesync.Reconciler{Source: src, Registry: reg, Logger: testr.New(t)}

			_, err = rec.RunOnce(context.Background())
			require.NoError(t, err)
			assert.Equal(t, []string{
				`a-xn--mnchen-3ya.example.com TXT "heritage=external-dns,external-dns/owner=me,external-dns/resource=service/ns/a"`,
				"xn--mnchen-3ya.example.com A 192.0.2.1",
			}, zoneLines(t, p), "one spelling on the wire: A-labels")
			cyc, err := rec.RunOnce(context.Background())
			changes := cyc.Changes
			require.NoError(t, err)
			assert.False(t, changes.HasChanges(), "converged")

			src.Set()
			cyc, err = rec.RunOnce(context.Background())
			changes = cyc.Changes
			require.NoError(t, err)
			assert.Equal(t, []string{"delete xn--mnchen-3ya.example.com/A 192.0.2.1"}, changeLines(changes))
			assert.Empty(t, zoneLines(t, p), "the record and its TXT are gone")
		})
	}
}

// TestRegression_TrailingDotInTXTName: a desired name with a trailing dot
// gets the ownership TXT external-dns writes (no trailing dot), and a zone
// written by external-dns is not given a second spelling of it.
func TestRegression_TrailingDotInTXTName(t *testing.T) {
	aaaa := func(name string) *endpoint.Endpoint {
		return endpoint.NewEndpoint(name, endpoint.RecordTypeAAAA, "2001:db8::1")
	}
	for _, tc := range []struct {
		name string
		seed []*endpoint.Endpoint
	}{
		{name: "empty zone"},
		{name: "zone written by external-dns", seed: []*endpoint.Endpoint{
			aaaa("a-b.example.com"),
			endpoint.NewEndpoint("aaaa-a-b.example.com", endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=me"`),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, reg := newZone(t, tc.seed...)
			rec := &zonesync.Reconciler{Source: source.NewStatic(aaaa("a-b.example.com.")), Registry: reg, Logger: testr.New(t)}
			for range 3 {
				_, err := rec.RunOnce(context.Background())
				require.NoError(t, err)
			}
			assert.Equal(t, []string{
				"a-b.example.com AAAA 2001:db8::1",
				`aaaa-a-b.example.com TXT "heritage=external-dns,external-dns/owner=me"`,
			}, zoneLines(t, p))
			cyc, err := rec.RunOnce(context.Background())
			changes := cyc.Changes
			require.NoError(t, err)
			assert.False(t, changes.HasChanges())
		})
	}
}

// TestRegression_WhiteSpaceNameKeepsRecords: a source that writes a name with
// white space gets an error naming the record, reported as a per-object
// failure, and the record it meant stays.
func TestRegression_WhiteSpaceNameKeepsRecords(t *testing.T) {
	p, reg := newZone(t, a("web.example.com", "192.0.2.1"), ownershipTXT("a-web.example.com", "me"))
	before := zoneLines(t, p)
	rec := &zonesync.Reconciler{Source: source.NewStatic(a(" web.example.com", "192.0.2.9")), Registry: reg}
	pv, err := rec.Preview(context.Background())
	require.NoError(t, err)
	assert.False(t, pv.Plan.Changes.HasChanges())
	assert.Contains(t, pv.String(), `DNS name " web.example.com" contains white space`)
	var pe *source.PartialError
	require.ErrorAs(t, pv.SourceErr, &pe)
	_, err = rec.RunOnce(context.Background())
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), `DNS name " web.example.com" contains white space`)
	assert.Equal(t, before, zoneLines(t, p))
}
