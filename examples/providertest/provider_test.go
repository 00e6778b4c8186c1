package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/providertest"
)

// TestConformance is what a provider author adds to their own repository:
// one call runs every rule of the suite and reports every violation.
func TestConformance(t *testing.T) {
	providertest.TestProvider(t, newMapProvider("example.org"), providertest.Options{Zone: "example.org"})
}

func TestRunPrintsResult(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(context.Background(), &out))
	assert.Equal(t, "mapProvider passes the zonesync conformance suite\nrecords left behind by the suite: 0\n", out.String())
}

// The suite is only worth something if it catches bugs: a provider that
// forgets to check for existing records on create must fail it.
func TestSuiteCatchesBrokenProvider(t *testing.T) {
	p := newMapProvider("example.org")
	broken := providertest.Intercept(p, providertest.Funcs{
		ApplyChanges: func(ctx context.Context, next provider.Provider, c *plan.Changes) error {
			// Bug: a create of an existing record silently replaces it.
			if len(c.Create) > 0 {
				fix := &plan.Changes{}
				recs, err := next.Records(ctx)
				if err != nil {
					return err
				}
				for _, e := range c.Create {
					for _, r := range recs {
						if r.Key() == e.Key() {
							fix.Delete = append(fix.Delete, r)
						}
					}
				}
				if len(fix.Delete) > 0 {
					if err := next.ApplyChanges(ctx, fix); err != nil {
						return err
					}
				}
			}
			return next.ApplyChanges(ctx, c)
		},
	})
	err := providertest.CheckProvider(context.Background(), broken, providertest.Options{Zone: "example.org"})
	require.Error(t, err)
	var v *providertest.Violation
	require.True(t, errors.As(err, &v))
	assert.Equal(t, providertest.RuleCreateExisting, v.Rule)
}

func TestMapProviderErrors(t *testing.T) {
	ctx := context.Background()
	a := endpoint.NewEndpoint("a.example.org", endpoint.RecordTypeA, "192.0.2.1")
	tests := []struct {
		name    string
		changes *plan.Changes
		wantErr error
		wantMsg string
	}{
		{name: "outside the zone", changes: &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1")}}, wantMsg: `create a.example.com/A: name "a.example.com" is outside zone example.org`},
		{name: "duplicate", changes: &plan.Changes{Create: []*endpoint.Endpoint{a, a}}, wantErr: errExists},
		{name: "missing delete", changes: &plan.Changes{Delete: []*endpoint.Endpoint{a}}, wantErr: errNotFound},
		{name: "unpaired update", changes: &plan.Changes{UpdateNew: []*endpoint.Endpoint{a}}, wantMsg: "0 old and 1 new update records do not pair up"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newMapProvider("example.org")
			err := p.ApplyChanges(ctx, tt.changes)
			require.Error(t, err)
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
			}
			if tt.wantMsg != "" {
				assert.ErrorContains(t, err, tt.wantMsg)
			}
			recs, err := p.Records(ctx)
			require.NoError(t, err)
			assert.Empty(t, recs, "a failed ApplyChanges changes nothing")
		})
	}
}
