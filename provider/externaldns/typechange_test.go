package externaldns_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/externaldns/internal/pdnstest"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// TestTypeChangeAtOneNamePDNS: replacing an A record by a CNAME at one
// name. external-dns's pdns provider sends creates before deletes, and
// PowerDNS refuses a CNAME beside the A still there; the adapter applies
// the deletes of such a change set first, so the cycle succeeds and the
// rest of the zone is applied in it (the chaos test found the whole zone
// blocked for good).
func TestTypeChangeAtOneNamePDNS(t *testing.T) {
	quietLogrus(t)
	ctx := t.Context()
	srv := pdnstest.Start(t, pdnstest.Config{})
	srv.CreateZone("example.org")
	p := newPDNS(t, srv, "example.org")
	reg, err := txt.New(p, txt.Config{OwnerID: "chaos"})
	require.NoError(t, err)
	src := source.NewStatic(endpoint.NewEndpoint("n05.example.org", endpoint.RecordTypeA, "192.0.2.5"))
	r := &zonesync.Reconciler{Source: src, Registry: reg}
	_, err = r.RunOnce(ctx)
	require.NoError(t, err)

	src.Set(
		endpoint.NewEndpoint("n05.example.org", endpoint.RecordTypeCNAME, "app.zonesync.test"),
		endpoint.NewEndpoint("n06.example.org", endpoint.RecordTypeA, "192.0.2.6"),
	)
	_, err = r.RunOnce(ctx)
	require.NoError(t, err)
	has := func(name, typ string) bool {
		return slices.ContainsFunc(srv.RRsets("example.org"), func(rr pdnstest.RRset) bool { return rr.Name == name && rr.Type == typ })
	}
	assert.True(t, has("n05.example.org.", "CNAME"))
	assert.False(t, has("n05.example.org.", "A"))
	assert.True(t, has("n06.example.org.", "A"))
	assert.True(t, has("cname-n05.example.org.", "TXT"), "the CNAME has its ownership TXT")
	assert.False(t, has("a-n05.example.org.", "TXT"), "the A's ownership TXT went with it")
	cyc, err := r.RunOnce(ctx)
	changes := cyc.Changes
	require.NoError(t, err)
	assert.False(t, changes.HasChanges())
}
