package verify_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/provider/rfc2136"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/verify"
)

// verify.Verifier is what a Reconciler's Verifier field takes.
var _ zonesync.Verifier = (*verify.Verifier)(nil)

type lastCycle struct{ c zonesync.Cycle }

func (o *lastCycle) CycleStarted(context.Context, time.Time)           {}
func (o *lastCycle) CycleFinished(_ context.Context, c zonesync.Cycle) { o.c = c }

// TestReconcilerVerifiesAgainstNamed wires verify into a Reconciler that
// applies through rfc2136 to a real named: the Observer sees every applied
// record in sync.
func TestReconcilerVerifiesAgainstNamed(t *testing.T) {
	srv := bindtest.Start(t, bindtest.Config{})
	k := srv.Key()
	p, err := rfc2136.New(rfc2136.Config{Server: srv.Addr(), Zones: srv.Zones(),
		TSIG: &rfc2136.TSIG{KeyName: k.Name, Algorithm: k.Algorithm, Secret: k.Secret}})
	require.NoError(t, err)
	reg, err := txt.New(p, txt.Config{OwnerID: "verify"})
	require.NoError(t, err)
	v, err := verify.New(verify.Options{Nameserver: srv.Addr()})
	require.NoError(t, err)
	obs := &lastCycle{}
	r := &zonesync.Reconciler{
		Source: source.NewStatic(
			endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.1", "192.0.2.2"),
			endpoint.NewEndpoint("api.example.org", endpoint.RecordTypeCNAME, "www.example.org"),
		),
		Registry: reg, Verifier: v, Observer: obs,
	}
	_, err = r.RunOnce(t.Context())
	require.NoError(t, err)
	require.NoError(t, obs.c.VerifyErr)
	require.Len(t, obs.c.Verified, 2)
	for _, res := range obs.c.Verified {
		assert.Equal(t, verify.Sync, res.Status, "%s: seen %v, err %v", res.Endpoint.Key(), res.Seen, res.Err)
	}
}
