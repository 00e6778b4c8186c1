package txt_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/clock/clocktest"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/txt"
)

// sharedCycle reads r, plans desired and applies the changes, as a
// Reconciler does; it returns the plan.
func sharedCycle(t *testing.T, r *txt.Registry, desired ...*endpoint.Endpoint) (*plan.Plan, error) {
	t.Helper()
	ctx := context.Background()
	cur, err := r.Records(ctx)
	require.NoError(t, err)
	pl := (&plan.Plan{Current: cur, Desired: desired, OwnerID: r.OwnerID(), Ownable: r.CheckOwnable,
		ManagedRecords: []string{"A", "AAAA", "CNAME", "TXT"}}).Calculate()
	return pl, r.ApplyChanges(ctx, pl.Changes)
}

func zoneByKey(t *testing.T, p *inmemory.Provider) map[string]*endpoint.Endpoint {
	t.Helper()
	recs, err := p.Records(context.Background())
	require.NoError(t, err)
	out := map[string]*endpoint.Endpoint{}
	for _, r := range recs {
		out[r.DNSName+"/"+r.RecordType] = r
	}
	return out
}

func TestSharedConfigValidation(t *testing.T) {
	p := newZone()
	for _, tc := range []struct {
		name string
		cfg  txt.Config
		want string
	}{
		{"bad name", txt.Config{Shared: &txt.SharedConfig{Names: []string{"a..b"}}}, "Shared.Names"},
		{"bad type", txt.Config{Shared: &txt.SharedConfig{RecordTypes: []string{"PTR"}}}, "Shared.RecordTypes"},
		{"short heartbeat", txt.Config{Shared: &txt.SharedConfig{Heartbeat: time.Second}}, "Shared.Heartbeat"},
		{"short expiry", txt.Config{Shared: &txt.SharedConfig{ExpireAfter: 5 * time.Minute}}, "Shared.ExpireAfter"},
		{"expiry under three heartbeats", txt.Config{Shared: &txt.SharedConfig{Heartbeat: 10 * time.Minute, ExpireAfter: 20 * time.Minute}}, "three heartbeats"},
		{"reserved owner", txt.Config{OwnerID: txt.SharedOwnerID}, "zonesync-shared"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cfg.OwnerID == "" {
				tc.cfg.OwnerID = "c1"
			}
			_, err := txt.New(p, tc.cfg)
			require.ErrorIs(t, err, txt.ErrInvalidConfig)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := txt.New(p, txt.Config{OwnerID: "c1", Shared: &txt.SharedConfig{Names: []string{"*.lb.example.com", "app.example.com."}, ExpireAfter: time.Hour}})
	require.NoError(t, err)
}

// TestSharedRecordsFormat pins what a shared record set looks like in the
// zone: the record with the union, its ownership TXT naming the shared
// owner, and one contribution TXT per owner.
func TestSharedRecordsFormat(t *testing.T) {
	clk := clocktest.New(time.Unix(1795934925, 0))
	p := newZone()
	c1 := newRegistry(t, p, txt.Config{OwnerID: "c1", Shared: &txt.SharedConfig{Clock: clk}})
	c2 := newRegistry(t, p, txt.Config{OwnerID: "c2", Shared: &txt.SharedConfig{Clock: clk}})
	e1 := endpoint.NewEndpointWithTTL("app.example.com", "A", 60, "192.0.2.1")
	e1.Labels.Set(endpoint.ResourceLabelKey, "service/default/app")
	_, err := sharedCycle(t, c1, e1)
	require.NoError(t, err)
	_, err = sharedCycle(t, c2, endpoint.NewEndpointWithTTL("app.example.com", "A", 30, "192.0.2.2", "192.0.2.1"))
	require.NoError(t, err)

	z := zoneByKey(t, p)
	assert.Equal(t, endpoint.Targets{"192.0.2.1", "192.0.2.2"}, z["app.example.com/A"].Targets)
	assert.Equal(t, endpoint.TTL(30), z["app.example.com/A"].RecordTTL, "the lowest TTL")
	assert.Equal(t, endpoint.Targets{`"heritage=external-dns,external-dns/owner=zonesync-shared,external-dns/shared=1"`}, z["a-app.example.com/TXT"].Targets)
	name := txt.ContributionName("c1", endpoint.Key{DNSName: "app.example.com", RecordType: "A"})
	assert.Regexp(t, `^_zs-[a-z2-7]{12}-a\.app\.example\.com$`, name)
	assert.Equal(t, endpoint.Targets{`"heritage=external-dns,external-dns/owner=zonesync-shared,external-dns/resource=service/default/app,external-dns/shared=1,` +
		`external-dns/shared-owner=c1,external-dns/shared-record=app.example.com,external-dns/shared-refresh=300,external-dns/shared-seen=1795934925,` +
		`external-dns/shared-targets=192.0.2.1,external-dns/shared-ttl=60,external-dns/shared-type=A"`}, z[name+"/TXT"].Targets)
	require.Len(t, z, 4)

	// Each owner sees its own contribution as its record.
	recs, err := c2.Records(context.Background())
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, endpoint.Targets{"192.0.2.2", "192.0.2.1"}, recs[0].Targets)
	assert.Equal(t, endpoint.OwnedByUs, recs[0].Ownership())
	shared := c2.SharedRecords()
	require.Len(t, shared, 1)
	assert.Equal(t, 2, shared[0].Live())
	assert.Equal(t, "service/default/app", shared[0].Contributions[0].Resource)
}

func TestSharedRecordsFormatRoundTrip(t *testing.T) {
	key := endpoint.Key{DNSName: "*.apps.example.com", RecordType: "TXT", SetIdentifier: "eu"}
	c := registry.Contribution{Owner: `we,ird "owner"`, Targets: endpoint.Targets{`v=spf1 a,b;c "q" %x`, "plain"}, TTL: 60,
		ProviderSpecific: endpoint.ProviderSpecific{{Name: "aws/weight", Value: "10;20!"}}, Resource: "service/ns/x",
		Seen: time.Unix(1700000000, 0).UTC(), Refresh: 5 * time.Minute}
	labels := txt.ContributionLabels(key, c)
	require.NoError(t, endpoint.ValidateLabels(labels))
	back, err := endpoint.ParseLabels(labels.Serialize(true))
	require.NoError(t, err)
	name := txt.ContributionName(c.Owner, key)
	assert.True(t, strings.HasSuffix(name, "-txt-w.apps.example.com"), name)
	gotKey, got, err := txt.ParseContribution(back, name, "eu")
	require.NoError(t, err)
	assert.Equal(t, key, gotKey)
	assert.Equal(t, c, got)

	// The same value at another name is not a contribution.
	_, _, err = txt.ParseContribution(back, "_zs-aaaaaaaaaaaa-txt-w.apps.example.com", "eu")
	require.Error(t, err)
	_, _, err = txt.ParseContribution(back, name, "us")
	require.Error(t, err, "another set identifier")
}

// A CNAME is shared only while every owner asks for the same target.
func TestSharedRecordsCNAMEConflict(t *testing.T) {
	p := newZone()
	c1 := newRegistry(t, p, txt.Config{OwnerID: "c1", Shared: &txt.SharedConfig{}})
	c2 := newRegistry(t, p, txt.Config{OwnerID: "c2", Shared: &txt.SharedConfig{}})
	c3 := newRegistry(t, p, txt.Config{OwnerID: "c3", Shared: &txt.SharedConfig{}})
	_, err := sharedCycle(t, c1, endpoint.NewEndpoint("www.example.com", "CNAME", "lb1.example.net"))
	require.NoError(t, err)
	pl, err := sharedCycle(t, c2, endpoint.NewEndpoint("www.example.com", "CNAME", "lb2.example.net"))
	require.NoError(t, err)
	require.Len(t, pl.Skipped, 1)
	assert.Equal(t, plan.SkipUnownable, pl.Skipped[0].Reason)
	assert.Contains(t, pl.Skipped[0].Detail, "conflicts with the shared record set")

	// Asked directly, the registry refuses too, and applies nothing.
	_, err = c2.Records(context.Background())
	require.NoError(t, err)
	err = c2.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint("www.example.com", "CNAME", "lb2.example.net")}})
	require.ErrorIs(t, err, txt.ErrSharedConflict)
	assert.Equal(t, endpoint.Targets{"lb1.example.net"}, zoneByKey(t, p)["www.example.com/CNAME"].Targets)

	_, err = sharedCycle(t, c3, endpoint.NewEndpoint("www.example.com", "CNAME", "lb1.example.net"))
	require.NoError(t, err)
	_, err = c3.Records(context.Background())
	require.NoError(t, err)
	assert.Len(t, c3.SharedRecords()[0].Contributions, 2)
}

// External-dns-style owners and shared owners leave each other alone.
func TestSharedRecordsAndSingleOwners(t *testing.T) {
	p := newZone(
		a("ext.example.com", "198.51.100.1"),
		txtRecord("a-ext.example.com", `"heritage=external-dns,external-dns/owner=extdns"`),
		a("bare.example.com", "198.51.100.2"),
	)
	c1 := newRegistry(t, p, txt.Config{OwnerID: "c1", Shared: &txt.SharedConfig{}})
	single := newRegistry(t, p, txt.Config{OwnerID: "single"})

	pl, err := sharedCycle(t, c1, a("ext.example.com", "192.0.2.1"), a("bare.example.com", "192.0.2.1"), a("app.example.com", "192.0.2.1"))
	require.NoError(t, err)
	reasons := map[string]plan.SkipReason{}
	for _, sk := range pl.Skipped {
		reasons[sk.Endpoint.DNSName] = sk.Reason
	}
	assert.Equal(t, map[string]plan.SkipReason{"ext.example.com": plan.SkipForeignOwner, "bare.example.com": plan.SkipUnowned}, reasons)

	// A registry not in shared mode sees the shared record as somebody
	// else's.
	pl, err = sharedCycle(t, single, a("app.example.com", "192.0.2.9"))
	require.NoError(t, err)
	require.Len(t, pl.Skipped, 1)
	assert.Equal(t, plan.SkipForeignOwner, pl.Skipped[0].Reason)
	assert.Equal(t, txt.SharedOwnerID, pl.Skipped[0].Owner)

	z := zoneByKey(t, p)
	assert.Equal(t, endpoint.Targets{"198.51.100.1"}, z["ext.example.com/A"].Targets)
	assert.Equal(t, endpoint.Targets{"198.51.100.2"}, z["bare.example.com/A"].Targets)
	assert.Equal(t, endpoint.Targets{"192.0.2.1"}, z["app.example.com/A"].Targets)
	assert.Nil(t, z["a-bare.example.com/TXT"])
}

func TestSharedRecordsEncrypted(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	p := newZone()
	c1 := newRegistry(t, p, txt.Config{OwnerID: "c1", EncryptionKey: key, Shared: &txt.SharedConfig{}})
	c2 := newRegistry(t, p, txt.Config{OwnerID: "c2", EncryptionKey: key, Shared: &txt.SharedConfig{}})
	_, err := sharedCycle(t, c1, a("app.example.com", "192.0.2.1"))
	require.NoError(t, err)
	_, err = sharedCycle(t, c2, a("app.example.com", "192.0.2.2"))
	require.NoError(t, err)
	z := zoneByKey(t, p)
	assert.Equal(t, endpoint.Targets{"192.0.2.1", "192.0.2.2"}, z["app.example.com/A"].Targets)
	for k, r := range z {
		if r.RecordType == "TXT" {
			assert.NotContains(t, r.Targets[0], "heritage", "%s is not encrypted", k)
		}
	}
	// Steady: a second cycle changes nothing.
	pl, err := sharedCycle(t, c1, a("app.example.com", "192.0.2.1"))
	require.NoError(t, err)
	assert.False(t, pl.Changes.HasChanges())
	assert.Zero(t, c1.PendingRepairs())
}

// The heartbeat rewrites a contribution when it is due, and only then.
func TestSharedRecordsHeartbeat(t *testing.T) {
	clk := clocktest.New(time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC))
	p := newZone()
	c1 := newRegistry(t, p, txt.Config{OwnerID: "c1", Shared: &txt.SharedConfig{Clock: clk, Heartbeat: 2 * time.Minute}})
	_, err := sharedCycle(t, c1, a("app.example.com", "192.0.2.1"))
	require.NoError(t, err)
	seen := func() time.Time { return c1.SharedRecords()[0].Contributions[0].Seen }
	for i, want := range []bool{false, true, false, true} {
		clk.Advance(time.Minute)
		_, err := c1.Records(context.Background())
		require.NoError(t, err)
		before := seen()
		assert.Equal(t, want, c1.PendingRepairs() > 0, "minute %d", i+1)
		require.NoError(t, c1.ApplyChanges(context.Background(), nil))
		_, err = c1.Records(context.Background())
		require.NoError(t, err)
		assert.Equal(t, want, seen().After(before), "minute %d: rewritten", i+1)
	}
}

// Ownership data left without any contribution is removed by any owner in
// shared mode: the last owner's leaving is finished.
func TestSharedRecordsLeftoversRemoved(t *testing.T) {
	p := newZone(
		a("app.example.com", "192.0.2.1"),
		txtRecord("a-app.example.com", `"heritage=external-dns,external-dns/owner=zonesync-shared,external-dns/shared=1"`),
		txtRecord("a-gone.example.com", `"heritage=external-dns,external-dns/owner=zonesync-shared,external-dns/shared=1"`),
	)
	c1 := newRegistry(t, p, txt.Config{OwnerID: "c1", Shared: &txt.SharedConfig{}})
	_, err := c1.Records(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 2, c1.PendingRepairs())
	require.NoError(t, c1.ApplyChanges(context.Background(), nil))
	assert.Empty(t, zoneByKey(t, p))
}

// A create at a record set that is not shared is refused by ApplyChanges
// even when the plan asks for it (a stale plan).
func TestSharedRecordsCreateOverUnsharedRefused(t *testing.T) {
	p := newZone(a("app.example.com", "198.51.100.1"))
	c1 := newRegistry(t, p, txt.Config{OwnerID: "c1", Shared: &txt.SharedConfig{}})
	_, err := c1.Records(context.Background())
	require.NoError(t, err)
	err = c1.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{a("app.example.com", "192.0.2.1")}})
	require.ErrorIs(t, err, txt.ErrSharedConflict)
	assert.True(t, errors.Is(err, txt.ErrSharedConflict))
	assert.Equal(t, endpoint.Targets{"198.51.100.1"}, zoneByKey(t, p)["app.example.com/A"].Targets)
	require.Len(t, zoneByKey(t, p), 1)
}

// Shared mode holds only for the names and types selected.
func TestSharedRecordsScope(t *testing.T) {
	p := newZone()
	cfg := &txt.SharedConfig{Names: []string{"*.lb.example.com", "app.example.com"}, RecordTypes: []string{"A"}}
	c1 := newRegistry(t, p, txt.Config{OwnerID: "c1", Shared: cfg})
	for _, tc := range []struct {
		name, typ string
		want      bool
	}{
		{"app.example.com", "A", true},
		{"APP.example.com.", "A", true},
		{"app.example.com", "AAAA", false},
		{"x.lb.example.com", "A", true},
		{"y.x.lb.example.com", "A", true},
		{"*.lb.example.com", "A", true},
		{"lb.example.com", "A", false},
		{"web.example.com", "A", false},
	} {
		assert.Equal(t, tc.want, c1.Shares(tc.name, tc.typ), "%s/%s", tc.name, tc.typ)
	}
}

// A record of nobody's at a record set with live contributions is adopted
// only when a contribution asks for every target it holds: the state a
// half-done leaving leaves. With any other target it is left alone.
func TestSharedRecordsAdoptsOnlyCoveredRecord(t *testing.T) {
	for _, tc := range []struct {
		name    string
		targets []string
		adopted bool
	}{
		{"every target asked for", []string{"192.0.2.2"}, true},
		{"a target nobody asked for", []string{"192.0.2.2", "198.51.100.7"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newZone()
			c1 := newRegistry(t, p, txt.Config{OwnerID: "c1", Shared: &txt.SharedConfig{}})
			c2 := newRegistry(t, p, txt.Config{OwnerID: "c2", Shared: &txt.SharedConfig{}})
			_, err := sharedCycle(t, c1, a("app.example.com", "192.0.2.1"))
			require.NoError(t, err)
			_, err = sharedCycle(t, c2, a("app.example.com", "192.0.2.2"))
			require.NoError(t, err)
			// c1 left half-way: its contribution, the marker and its target
			// are gone; the record holds what the test says.
			z := zoneByKey(t, p)
			c1Name := txt.ContributionName("c1", endpoint.Key{DNSName: "app.example.com", RecordType: "A"})
			require.NoError(t, p.ApplyChanges(context.Background(), &plan.Changes{
				UpdateOld: []*endpoint.Endpoint{z["app.example.com/A"]}, UpdateNew: []*endpoint.Endpoint{a("app.example.com", tc.targets...)},
				Delete: []*endpoint.Endpoint{z[c1Name+"/TXT"], z["a-app.example.com/TXT"]},
			}))
			_, err = sharedCycle(t, c2, a("app.example.com", "192.0.2.2"))
			require.NoError(t, err)
			_, err = sharedCycle(t, c2, a("app.example.com", "192.0.2.2"))
			require.NoError(t, err)
			z = zoneByKey(t, p)
			assert.Equal(t, endpoint.Targets(tc.targets), z["app.example.com/A"].Targets)
			assert.Equal(t, tc.adopted, z["a-app.example.com/TXT"] != nil, "ownership TXT written again")
			c2Name := txt.ContributionName("c2", endpoint.Key{DNSName: "app.example.com", RecordType: "A"})
			assert.Equal(t, tc.adopted, z[c2Name+"/TXT"] != nil, "c2's contribution kept")
		})
	}
}
