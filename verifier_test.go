package zonesync_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/verify/result"
)

// fakeVerifier reports every endpoint as in sync and records what it was
// asked.
type fakeVerifier struct {
	calls [][]*endpoint.Endpoint
	err   error
}

func (f *fakeVerifier) Verify(_ context.Context, eps []*endpoint.Endpoint) ([]result.Result, error) {
	f.calls = append(f.calls, eps)
	if f.err != nil {
		return nil, f.err
	}
	out := make([]result.Result, len(eps))
	for i, ep := range eps {
		out[i] = result.Result{Endpoint: ep, Status: result.Sync, Seen: ep.Targets}
	}
	return out, nil
}

func names(eps []*endpoint.Endpoint) []string {
	var out []string
	for _, ep := range eps {
		out = append(out, ep.Key().String())
	}
	return out
}

func TestVerifierRunsAfterApplying(t *testing.T) {
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "me"})
	require.NoError(t, err)
	src := source.NewStatic(a("www.example.com", "192.0.2.1"), a("api.example.com", "192.0.2.2"))
	v := &fakeVerifier{}
	obs := newCycleObserver()
	r := &zonesync.Reconciler{Source: src, Registry: reg, Verifier: v, Observer: obs}

	_, err = r.RunOnce(t.Context())
	require.NoError(t, err)
	c := <-obs.finished
	require.Len(t, v.calls, 1)
	assert.ElementsMatch(t, []string{"api.example.com/A", "www.example.com/A"}, names(v.calls[0]),
		"the created records, without their ownership TXT")
	require.Len(t, c.Verified, 2)
	for _, res := range c.Verified {
		assert.Equal(t, result.Sync, res.Status)
	}
	assert.NoError(t, c.VerifyErr)

	// Nothing to apply: nothing to verify.
	_, err = r.RunOnce(t.Context())
	require.NoError(t, err)
	c = <-obs.finished
	assert.Len(t, v.calls, 1)
	assert.Nil(t, c.Verified)

	// An update is verified with its new targets; a verifier error is
	// reported but does not fail the cycle.
	v.err = errors.New("resolver unreachable")
	src.Set(a("www.example.com", "192.0.2.9"), a("api.example.com", "192.0.2.2"))
	_, err = r.RunOnce(t.Context())
	require.NoError(t, err)
	c = <-obs.finished
	require.Len(t, v.calls, 2)
	require.Len(t, v.calls[1], 1)
	assert.Equal(t, endpoint.Targets{"192.0.2.9"}, v.calls[1][0].Targets)
	assert.ErrorContains(t, c.VerifyErr, "resolver unreachable")
	assert.NoError(t, c.Err)

	// Dry run applies nothing and verifies nothing.
	r.DryRun = true
	src.Set(a("www.example.com", "192.0.2.10"))
	_, err = r.RunOnce(t.Context())
	require.NoError(t, err)
	c = <-obs.finished
	assert.Len(t, v.calls, 2)
	assert.Nil(t, c.Verified)
}
