package motoserver_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/internal/motoserver"
)

func ttl(n int64) *int64 { return &n }

func a(name string, seconds int64, values ...string) motoserver.RecordSet {
	r := motoserver.RecordSet{Name: name, Type: "A", TTL: ttl(seconds)}
	for _, v := range values {
		r.ResourceRecords = append(r.ResourceRecords, motoserver.ResourceRecord{Value: v})
	}
	return r
}

func weighted(r motoserver.RecordSet, id string, w int64) motoserver.RecordSet {
	r.SetIdentifier = id
	r.Weight = &w
	return r
}

func change(action string, r motoserver.RecordSet) motoserver.Change {
	return motoserver.Change{Action: action, ResourceRecordSet: r}
}

func strs(sets []motoserver.RecordSet) []string {
	var out []string
	for _, r := range sets {
		if r.Type == "NS" || r.Type == "SOA" {
			continue
		}
		out = append(out, r.String())
	}
	return out
}

// TestServer drives moto through the proxy with raw change batches and
// checks Route 53's behaviour where moto's own differs.
func TestServer(t *testing.T) {
	srv := motoserver.Start(t)
	ctx := context.Background()
	const (
		create = motoserver.ActionCreate
		upsert = motoserver.ActionUpsert
		del    = motoserver.ActionDelete
	)
	alias := motoserver.RecordSet{Name: "shop.example.com", Type: "A", AliasTarget: &motoserver.AliasTarget{
		HostedZoneID: "Z35SXDOTRQ7X7K", DNSName: "k8s-shop-1234567890.us-east-1.elb.amazonaws.com", EvaluateTargetHealth: true}}
	geo := a("geo.example.com", 60, "192.0.2.9")
	geo.SetIdentifier = "de"
	geo.GeoLocation = &motoserver.GeoLocation{CountryCode: "DE"}

	for _, tc := range []struct {
		name string
		// before is written through the proxy first and must succeed.
		before []motoserver.Change
		// batch is then sent through the proxy.
		batch []motoserver.Change
		// wantRefused are the messages of the refusal; empty: accepted.
		wantRefused []string
		// want is the zone afterwards, without NS and SOA, in moto's order.
		want []string
	}{
		{
			name:  "create",
			batch: []motoserver.Change{change(create, a("www.example.com", 300, "192.0.2.2", "192.0.2.1"))},
			want:  []string{"www.example.com. A ttl=300 192.0.2.1 192.0.2.2"},
		},
		{
			name:        "create of an existing record set is refused and nothing changes",
			before:      []motoserver.Change{change(create, a("www.example.com", 300, "192.0.2.1"))},
			batch:       []motoserver.Change{change(create, a("new.example.com", 300, "192.0.2.5")), change(create, a("www.example.com", 60, "192.0.2.2"))},
			wantRefused: []string{"Tried to create resource record set [name='www.example.com.', type='A'] but it already exists"},
			want:        []string{"www.example.com. A ttl=300 192.0.2.1"},
		},
		{
			name:   "create of a weighted record set beside another identifier",
			before: []motoserver.Change{change(create, weighted(a("w.example.com", 60, "192.0.2.1"), "blue", 10))},
			batch:  []motoserver.Change{change(create, weighted(a("w.example.com", 60, "192.0.2.2"), "green", 90))},
			want: []string{
				"w.example.com. A set=blue weight=10 ttl=60 192.0.2.1",
				"w.example.com. A set=green weight=90 ttl=60 192.0.2.2",
			},
		},
		{
			name:        "create of an existing weighted record set is refused",
			before:      []motoserver.Change{change(create, weighted(a("w.example.com", 60, "192.0.2.1"), "blue", 10))},
			batch:       []motoserver.Change{change(create, weighted(a("w.example.com", 60, "192.0.2.3"), "blue", 20))},
			wantRefused: []string{"Tried to create resource record set [name='w.example.com.', type='A', set-identifier='blue'] but it already exists"},
			want:        []string{"w.example.com. A set=blue weight=10 ttl=60 192.0.2.1"},
		},
		{
			name:   "upsert replaces",
			before: []motoserver.Change{change(create, a("www.example.com", 300, "192.0.2.1"))},
			batch:  []motoserver.Change{change(upsert, a("www.example.com", 60, "192.0.2.2"))},
			want:   []string{"www.example.com. A ttl=60 192.0.2.2"},
		},
		{
			name:        "delete of a missing record set is refused",
			batch:       []motoserver.Change{change(del, a("www.example.com", 300, "192.0.2.1"))},
			wantRefused: []string{"Tried to delete resource record set [name='www.example.com.', type='A'] but it was not found"},
		},
		{
			name: "delete of a record set gone since is refused",
			before: []motoserver.Change{
				change(create, a("www.example.com", 300, "192.0.2.1")),
				change(upsert, a("www.example.com", 60, "192.0.2.2")),
			},
			batch:       []motoserver.Change{change(del, a("www.example.com", 300, "192.0.2.1"))},
			wantRefused: []string{"Tried to delete resource record set [name='www.example.com.', type='A'] but the values provided do not match the current values"},
			want:        []string{"www.example.com. A ttl=60 192.0.2.2"},
		},
		{
			name:   "delete with the values in another order",
			before: []motoserver.Change{change(create, a("www.example.com", 300, "192.0.2.1", "192.0.2.2"))},
			batch:  []motoserver.Change{change(del, a("www.example.com.", 300, "192.0.2.2", "192.0.2.1"))},
		},
		{
			name: "delete of one weighted record set leaves others with the identifier",
			before: []motoserver.Change{
				change(create, weighted(a("w.example.com", 60, "192.0.2.1"), "blue", 10)),
				change(create, weighted(a("w.example.com", 60, "192.0.2.2"), "green", 90)),
				change(create, weighted(a("v.example.com", 60, "192.0.2.3"), "blue", 50)),
			},
			batch: []motoserver.Change{change(del, weighted(a("w.example.com", 60, "192.0.2.1"), "blue", 10))},
			want: []string{
				"v.example.com. A set=blue weight=50 ttl=60 192.0.2.3",
				"w.example.com. A set=green weight=90 ttl=60 192.0.2.2",
			},
		},
		{
			name:   "delete then create in one batch",
			before: []motoserver.Change{change(create, a("www.example.com", 300, "192.0.2.1"))},
			batch: []motoserver.Change{
				change(del, a("www.example.com", 300, "192.0.2.1")),
				change(create, a("www.example.com", 60, "192.0.2.7")),
			},
			want: []string{"www.example.com. A ttl=60 192.0.2.7"},
		},
		{
			name:   "recreate after a delete",
			before: []motoserver.Change{change(create, a("www.example.com", 300, "192.0.2.1")), change(del, a("www.example.com", 300, "192.0.2.1")), change(create, a("zzz.example.com", 300, "192.0.2.1"))},
			batch:  []motoserver.Change{change(create, a("www.example.com", 300, "192.0.2.1"))},
			want:   []string{"www.example.com. A ttl=300 192.0.2.1", "zzz.example.com. A ttl=300 192.0.2.1"},
		},
		{
			name:   "alias and geolocation",
			before: []motoserver.Change{change(create, alias), change(create, geo)},
			batch:  []motoserver.Change{change(del, alias)},
			want:   []string{"geo.example.com. A set=de geo=/DE/ ttl=60 192.0.2.9"},
		},
		{
			name:        "outside the zone",
			batch:       []motoserver.Change{change(create, a("www.example.org", 300, "192.0.2.1"))},
			wantRefused: []string{"RRSet with DNS name www.example.org. is not permitted in zone example.com."},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset()
			zone := srv.CreateZone("example.com")
			for _, c := range tc.before {
				require.NoError(t, srv.Change(ctx, zone, c))
			}
			srv.ResetCounts()
			err := srv.Change(ctx, zone, tc.batch...)
			if len(tc.wantRefused) > 0 {
				var be *motoserver.BatchError
				require.ErrorAs(t, err, &be)
				assert.Equal(t, tc.wantRefused, be.Messages)
				assert.Equal(t, []motoserver.Refusal{{ZoneID: zone, Messages: tc.wantRefused}}, srv.Refusals())
			} else {
				require.NoError(t, err)
				assert.Empty(t, srv.Refusals())
			}
			assert.Equal(t, tc.want, strs(srv.RecordSets(zone)))
			assert.Equal(t, motoserver.Counts{motoserver.OpChangeResourceRecordSets: 1}, srv.Counts())
		})
	}
}

// TestServerRefusalDocument checks the refusal's wire form: HTTP 400 and
// the InvalidChangeBatch document the AWS SDK parses.
func TestServerRefusalDocument(t *testing.T) {
	srv := motoserver.Start(t)
	zone := srv.CreateZone("example.com")
	body := `<?xml version="1.0" encoding="UTF-8"?>
<ChangeResourceRecordSetsRequest xmlns="https://route53.amazonaws.com/doc/2013-04-01/"><ChangeBatch><Changes>
<Change><Action>DELETE</Action><ResourceRecordSet><Name>nope.example.com</Name><Type>TXT</Type><TTL>300</TTL><ResourceRecords><ResourceRecord><Value>"x"</Value></ResourceRecord></ResourceRecords></ResourceRecordSet></Change>
</Changes></ChangeBatch></ChangeResourceRecordSetsRequest>`
	req, err := http.NewRequest(http.MethodPost, srv.URL()+"/2013-04-01/hostedzone/"+zone+"/rrset/", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/route53/aws4_request, SignedHeaders=host, Signature=0")
	req.Header.Set("Content-Type", "text/xml")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, "text/xml", resp.Header.Get("Content-Type"))
	id := resp.Header.Get("X-Amzn-Requestid")
	require.NotEmpty(t, id)
	assert.Equal(t, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
		`<InvalidChangeBatch xmlns="https://route53.amazonaws.com/doc/2013-04-01/"><Messages><Message>`+
		`Tried to delete resource record set [name=&#39;nope.example.com.&#39;, type=&#39;TXT&#39;] but it was not found`+
		`</Message></Messages><RequestId>`+id+`</RequestId></InvalidChangeBatch>`, string(got))
}

// TestServerCounts checks the per-operation counts of requests through the
// proxy and that requests straight to moto are not counted.
func TestServerCounts(t *testing.T) {
	srv := motoserver.Start(t)
	zone := srv.CreateZone("example.com")
	get := func(base, path string) {
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/route53/aws4_request, SignedHeaders=host, Signature=0")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
	}
	get(srv.URL(), "/2013-04-01/hostedzone")
	get(srv.URL(), "/2013-04-01/hostedzone/"+zone+"/rrset")
	get(srv.URL(), "/2013-04-01/hostedzone/"+zone+"/rrset?maxitems=1")
	get(srv.URL(), "/2013-04-01/hostedzone/"+zone)
	get(srv.MotoURL(), "/2013-04-01/hostedzone")
	require.NoError(t, srv.Change(context.Background(), zone, change(motoserver.ActionCreate, a("www.example.com", 300, "192.0.2.1"))))
	want := motoserver.Counts{
		motoserver.OpListHostedZones:          1,
		motoserver.OpListResourceRecordSets:   2,
		motoserver.OpGetHostedZone:            1,
		motoserver.OpChangeResourceRecordSets: 1,
	}
	assert.Equal(t, want, srv.Counts())
	assert.Equal(t, 5, srv.Counts().Total())
	assert.Equal(t, "ChangeResourceRecordSets=1 GetHostedZone=1 ListHostedZones=1 ListResourceRecordSets=2", srv.Counts().String())
	srv.ResetCounts()
	assert.Empty(t, srv.Counts())
}

// TestServerLoad fills a zone straight in moto and deletes one of the
// loaded record sets through the proxy.
func TestServerLoad(t *testing.T) {
	srv := motoserver.Start(t)
	zone := srv.CreateZone("example.com")
	var sets []motoserver.RecordSet
	for _, n := range []string{"c", "a", "b"} {
		sets = append(sets, a(n+".example.com", 300, "192.0.2.2", "192.0.2.1"))
	}
	srv.Load(zone, sets)
	assert.Empty(t, srv.Counts())
	require.NoError(t, srv.Change(context.Background(), zone, change(motoserver.ActionDelete, a("b.example.com", 300, "192.0.2.1", "192.0.2.2"))))
	assert.Equal(t, []string{
		"a.example.com. A ttl=300 192.0.2.1 192.0.2.2",
		"c.example.com. A ttl=300 192.0.2.1 192.0.2.2",
	}, strs(srv.RecordSets(zone)))
}

func TestOperation(t *testing.T) {
	for _, tc := range []struct {
		method, path, want string
	}{
		{"GET", "/2013-04-01/hostedzone", motoserver.OpListHostedZones},
		{"POST", "/2013-04-01/hostedzone", motoserver.OpCreateHostedZone},
		{"GET", "/2013-04-01/hostedzonesbyname", motoserver.OpListHostedZonesByName},
		{"GET", "/2013-04-01/hostedzonecount", motoserver.OpGetHostedZoneCount},
		{"GET", "/2013-04-01/hostedzone/Z1", motoserver.OpGetHostedZone},
		{"DELETE", "/2013-04-01/hostedzone/Z1", motoserver.OpDeleteHostedZone},
		{"GET", "/2013-04-01/hostedzone/Z1/rrset", motoserver.OpListResourceRecordSets},
		{"POST", "/2013-04-01/hostedzone/Z1/rrset/", motoserver.OpChangeResourceRecordSets},
		{"GET", "/2013-04-01/change/C1", motoserver.OpGetChange},
		{"GET", "/2013-04-01/tags/hostedzone/Z1", motoserver.OpListTagsForResource},
		{"POST", "/2013-04-01/tags/hostedzone/Z1", motoserver.OpChangeTagsForResource},
		{"POST", "/2013-04-01/tags/hostedzone", motoserver.OpListTagsForResources},
		{"GET", "/2013-04-01/healthcheck", motoserver.OpOther},
		{"GET", "/moto-api/", motoserver.OpOther},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			assert.Equal(t, tc.want, motoserver.Operation(tc.method, tc.path))
		})
	}
}

// TestServerBatchLimit checks Route 53's limit of 1,000 records a batch
// (an UPSERT's counted twice), and that a batch within it whose form for
// moto is larger (CREATE sent as UPSERT) is applied whole.
func TestServerBatchLimit(t *testing.T) {
	srv := motoserver.Start(t)
	ctx := context.Background()
	zone := srv.CreateZone("example.com")
	batch := func(action string, n int) []motoserver.Change {
		var out []motoserver.Change
		for i := range n {
			out = append(out, change(action, a(fmt.Sprintf("n%d.example.com", i), 300, "192.0.2.1")))
		}
		return out
	}
	err := srv.Change(ctx, zone, batch(motoserver.ActionUpsert, 501)...)
	var be *motoserver.BatchError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, []string{"Number of records limit of 1000 exceeded."}, be.Messages)
	assert.Empty(t, strs(srv.RecordSets(zone)))

	require.NoError(t, srv.Change(ctx, zone, batch(motoserver.ActionCreate, 1000)...))
	assert.Len(t, strs(srv.RecordSets(zone)), 1000)
	assert.Equal(t, motoserver.Counts{motoserver.OpChangeResourceRecordSets: 2}, srv.Counts())
}

// TestServerAliasTTL checks that an alias record set is listed through
// the proxy without the TTL moto adds to it.
func TestServerAliasTTL(t *testing.T) {
	srv := motoserver.Start(t)
	zone := srv.CreateZone("example.com")
	alias := motoserver.RecordSet{Name: "shop.example.com", Type: "AAAA", AliasTarget: &motoserver.AliasTarget{
		HostedZoneID: "Z35SXDOTRQ7X7K", DNSName: "k8s-shop-1234567890.us-east-1.elb.amazonaws.com"}}
	require.NoError(t, srv.Change(context.Background(), zone, change(motoserver.ActionCreate, alias)))
	list := func(base string) string {
		req, err := http.NewRequest(http.MethodGet, base+"/2013-04-01/hostedzone/"+zone+"/rrset", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/route53/aws4_request, SignedHeaders=host, Signature=0")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		return string(body)
	}
	const aliasXML = `<Name>shop.example.com.</Name><Type>AAAA</Type><AliasTarget><HostedZoneId>Z35SXDOTRQ7X7K</HostedZoneId>`
	assert.Contains(t, list(srv.MotoURL()), `<Name>shop.example.com.</Name><Type>AAAA</Type><TTL>0</TTL><AliasTarget>`, "moto's own rendering")
	assert.Contains(t, list(srv.URL()), aliasXML)
	assert.Equal(t, []string{"shop.example.com. AAAA alias=k8s-shop-1234567890.us-east-1.elb.amazonaws.com. zone=Z35SXDOTRQ7X7K evaluate-target-health=false"},
		strs(srv.RecordSets(zone)))
}
