package txt_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/cache"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry/txt"
)

// v1 is the ownership value of the external-dns worked examples.
const v1 = `"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app"`

func newZone(eps ...*endpoint.Endpoint) *inmemory.Provider {
	return inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: eps})
}

func a(name string, targets ...string) *endpoint.Endpoint {
	return endpoint.NewEndpoint(name, endpoint.RecordTypeA, targets...)
}

func txtRecord(name string, values ...string) *endpoint.Endpoint {
	return endpoint.NewEndpoint(name, endpoint.RecordTypeTXT, values...)
}

// withCache wraps p in the records cache of provider/cache for ttl; a ttl
// of zero returns p as it is.
func withCache(p provider.Provider, ttl time.Duration) provider.Provider {
	if ttl <= 0 {
		return p
	}
	return mustCache(cache.New(p, cache.Options{TTL: ttl}))
}

// mustCache returns c, and panics on err: for cache options known to be
// valid.
func mustCache(c *cache.Provider, err error) *cache.Provider {
	if err != nil {
		panic(err)
	}
	return c
}

func newRegistry(t testing.TB, p provider.Provider, cfg txt.Config) *txt.Registry {
	t.Helper()
	if cfg.OwnerID == "" {
		cfg.OwnerID = "default"
	}
	r, err := txt.New(p, cfg)
	require.NoError(t, err)
	return r
}

// zoneDump renders the provider's records as sorted lines
// "name TYPE [set] targets".
func zoneDump(t testing.TB, p provider.Provider) []string {
	t.Helper()
	recs, err := p.Records(context.Background())
	require.NoError(t, err)
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		line := r.DNSName + " " + r.RecordType
		if r.SetIdentifier != "" {
			line += " [" + r.SetIdentifier + "]"
		}
		out = append(out, line+" "+strings.Join(r.Targets, ";"))
	}
	slices.Sort(out)
	return out
}

// lastApply returns the changes of the last ApplyChanges call recorded.
func lastApply(t testing.TB, rp *providertest.RecordingProvider) *plan.Changes {
	t.Helper()
	calls := rp.CallsTo(providertest.MethodApplyChanges)
	require.NotEmpty(t, calls, "no ApplyChanges call reached the provider")
	return calls[len(calls)-1].Changes
}

// cycle runs one Records → Calculate → ApplyChanges round and returns the
// changes planned.
func cycle(ctx context.Context, r *txt.Registry, desired []*endpoint.Endpoint) (*plan.Changes, error) {
	current, err := r.Records(ctx)
	if err != nil {
		return nil, err
	}
	p := (&plan.Plan{Current: current, Desired: desired, OwnerID: r.OwnerID()}).Calculate()
	if !p.Changes.HasChanges() {
		return p.Changes, nil
	}
	return p.Changes, r.ApplyChanges(ctx, p.Changes)
}

// checkOwnershipInvariant verifies that every non-TXT record of the zone has
// its typed ownership TXT owned by owner, and every ownership TXT owns an
// existing record. Records named in except are not checked.
func checkOwnershipInvariant(t testing.TB, p provider.Provider, n txt.Namer, owner string, except ...string) {
	t.Helper()
	recs, err := p.Records(context.Background())
	require.NoError(t, err)
	txts := map[string]endpoint.Labels{}
	records := map[string]bool{}
	for _, r := range recs {
		if r.RecordType == endpoint.RecordTypeTXT {
			labels, err := endpoint.ParseLabels(r.Targets[0])
			require.NoError(t, err, "TXT %s", r.DNSName)
			txts[r.DNSName+"/"+r.SetIdentifier] = labels
			continue
		}
		records[r.DNSName+"/"+r.RecordType+"/"+r.SetIdentifier] = true
	}
	for _, r := range recs {
		if r.RecordType == endpoint.RecordTypeTXT {
			name, typ, ok := n.ParseTXTName(r.DNSName)
			require.True(t, ok, "TXT %s", r.DNSName)
			require.True(t, records[name+"/"+typ+"/"+r.SetIdentifier], "ownership TXT %s points at nothing", r.DNSName)
			continue
		}
		if slices.Contains(except, r.DNSName) {
			continue
		}
		labels, ok := txts[n.TXTName(r.DNSName, r.RecordType)+"/"+r.SetIdentifier]
		require.True(t, ok, "record %s has no ownership TXT", r.Key())
		require.Equal(t, owner, labelValue(labels, endpoint.OwnerLabelKey), "record %s", r.Key())
	}
}

func keysOf(eps []*endpoint.Endpoint) []string {
	out := make([]string, len(eps))
	for i, e := range eps {
		out[i] = fmt.Sprintf("%s/%s", e.Key(), strings.Join(e.Targets, ";"))
	}
	return out
}

// labelValue returns the value of key in l, "" when it is not set.
func labelValue(l endpoint.Labels, key string) string {
	v, _ := l.Get(key)
	return v
}
