package provider_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
)

func TestGroupKey(t *testing.T) {
	tests := []struct {
		name      string
		ep        *endpoint.Endpoint
		wantName  string
		wantSetID string
	}{
		{"plain record", endpoint.NewEndpoint("A.Example.com.", "A", "192.0.2.1"), "a.example.com", ""},
		{"ownership TXT goes with its record", endpoint.NewEndpoint("pre-a-a.example.com", "TXT", "x").
			WithLabel(endpoint.OwnedRecordLabelKey, "a.example.com").WithSetIdentifier("s1"), "a.example.com", "s1"},
		{"TXT without the label is its own group", endpoint.NewEndpoint("t.example.com", "TXT", "x"), "t.example.com", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, setID := provider.GroupKey(tt.ep)
			assert.Equal(t, tt.wantName, name)
			assert.Equal(t, tt.wantSetID, setID)
		})
	}
}

func TestSplitByZone(t *testing.T) {
	m := provider.NewZoneMatcher("example.com", "sub.example.com", "example.org")
	// An apex record of sub.example.com with a TXT prefix that puts its
	// ownership TXT in the parent zone: the record's zone decides.
	apexTXT := endpoint.NewEndpoint("a-sub.example.com", "TXT", "o").WithLabel(endpoint.OwnedRecordLabelKey, "sub.example.com")
	changes := &plan.Changes{
		Create:    []*endpoint.Endpoint{endpoint.NewEndpoint("sub.example.com", "A", "192.0.2.1"), endpoint.NewEndpoint("x.example.org", "A", "192.0.2.2"), apexTXT},
		UpdateOld: []*endpoint.Endpoint{endpoint.NewEndpoint("y.example.com", "A", "192.0.2.3")},
		UpdateNew: []*endpoint.Endpoint{endpoint.NewEndpoint("y.example.com", "A", "192.0.2.4")},
		Delete:    []*endpoint.Endpoint{endpoint.NewEndpoint("z.nowhere.net", "A", "192.0.2.5")},
	}
	zones, parts := provider.SplitByZone(changes, m)
	assert.Equal(t, []string{"", "example.com", "example.org", "sub.example.com"}, zones)
	assert.Equal(t, []*endpoint.Endpoint{changes.Create[0], apexTXT}, parts["sub.example.com"].Create)
	assert.Equal(t, changes.Create[1:2], parts["example.org"].Create)
	assert.Equal(t, changes.UpdateOld, parts["example.com"].UpdateOld)
	assert.Equal(t, changes.UpdateNew, parts["example.com"].UpdateNew)
	assert.Empty(t, parts["example.com"].Create)
	assert.Equal(t, changes.Delete, parts[""].Delete)
}

func TestSplitByZoneOneZone(t *testing.T) {
	m := provider.NewZoneMatcher("example.com", "example.org")
	changes := &plan.Changes{
		Create:    []*endpoint.Endpoint{endpoint.NewEndpoint("a.example.com", "A", "192.0.2.1")},
		UpdateOld: []*endpoint.Endpoint{endpoint.NewEndpoint("b.example.com", "A", "192.0.2.2")},
		UpdateNew: []*endpoint.Endpoint{endpoint.NewEndpoint("b.example.com", "A", "192.0.2.3")},
		Delete:    []*endpoint.Endpoint{endpoint.NewEndpoint("example.com", "A", "192.0.2.4")},
	}
	zones, parts := provider.SplitByZone(changes, m)
	assert.Equal(t, []string{"example.com"}, zones)
	assert.Same(t, changes, parts["example.com"], "one zone: no copy")

	zones, parts = provider.SplitByZone(&plan.Changes{}, m)
	assert.Empty(t, zones)
	assert.Empty(t, parts)

	// An update whose old record is in another zone (a rename) goes by
	// its new record.
	moved := &plan.Changes{
		UpdateOld: []*endpoint.Endpoint{endpoint.NewEndpoint("b.example.org", "A", "192.0.2.2")},
		UpdateNew: []*endpoint.Endpoint{endpoint.NewEndpoint("b.example.com", "A", "192.0.2.3")},
	}
	zones, parts = provider.SplitByZone(moved, m)
	assert.Equal(t, []string{"example.com"}, zones)
	assert.Same(t, moved, parts["example.com"])
}

func TestZonesOf(t *testing.T) {
	ctx := context.Background()
	zones, ok, err := provider.ZonesOf(ctx, inmemory.New(inmemory.Options{Zones: []string{"b.example", "a.example"}}))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, []string{"a.example", "b.example"}, zones)

	_, ok, err = provider.ZonesOf(ctx, noZones{})
	require.NoError(t, err)
	assert.False(t, ok, "a provider without the capability")

	_, ok, err = provider.ZonesOf(ctx, unsupported{})
	require.NoError(t, err)
	assert.False(t, ok, "a wrapper over a provider without the capability")
}

type noZones struct{ provider.BaseProvider }

func (noZones) Records(context.Context) ([]*endpoint.Endpoint, error) { return nil, nil }
func (noZones) ApplyChanges(context.Context, *plan.Changes) error     { return nil }

type unsupported struct{ noZones }

func (unsupported) ListZones(context.Context) ([]string, error) {
	return nil, fmt.Errorf("wrapper: %w", provider.ErrZonesUnsupported)
}

func TestRejected(t *testing.T) {
	bad := endpoint.NewEndpoint("bad.example.com", "A", "192.0.2.1")
	worse := endpoint.NewEndpoint("worse.example.org", "A", "192.0.2.2")
	reason := errors.New("invalid value")
	err := errors.Join(
		&provider.ZoneError{Zone: "example.com", Err: &provider.RejectedError{Rejected: []provider.Rejection{{Action: "create", Endpoint: bad, Reason: reason}}}},
		fmt.Errorf("wrapped: %w", &provider.ZoneError{Zone: "example.org", Err: provider.NewSoftError(&provider.RejectedError{Rejected: []provider.Rejection{{Action: "delete", Endpoint: worse, Reason: reason}}})}),
	)
	got := provider.Rejected(err)
	require.Len(t, got, 2)
	assert.Same(t, bad, got[0].Endpoint)
	assert.Same(t, worse, got[1].Endpoint)
	assert.ErrorIs(t, err, provider.SoftError, "rejections are retried next cycle")
	assert.ErrorIs(t, err, reason)
	assert.Contains(t, err.Error(), "zone example.com: 1 change(s) rejected: create bad.example.com/A: invalid value")
	assert.Nil(t, provider.Rejected(errors.New("plain")))
	assert.Equal(t, []string{"example.com", "example.org"}, provider.FailedZones(err))
	assert.Nil(t, provider.FailedZones(errors.New("plain")))
}

func TestRejectionOfANilEndpoint(t *testing.T) {
	r := provider.Rejection{Action: "create", Reason: errors.New("endpoint is nil")}
	assert.Equal(t, "create <nil>: endpoint is nil", r.String())
}
