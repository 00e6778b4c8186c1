package cloudflare

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/dns"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/zones"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// client returns Cloudflare's SDK pointed at the stand-in with token,
// without retries.
func client(s *Server, token string) *cf.Client {
	return cf.NewClient(option.WithBaseURL(s.BaseURL()), option.WithAPIToken(token), option.WithMaxRetries(0))
}

// apiCodes returns the HTTP status of err, a cloudflare.Error, and its
// error codes, the error chain's included.
func apiCodes(t *testing.T, err error) (int, []int64) {
	t.Helper()
	var ce *cf.Error
	require.True(t, errors.As(err, &ce), "want a cloudflare.Error, got %v", err)
	var codes []int64
	for _, e := range ce.Errors {
		codes = append(codes, e.Code)
		var chain struct {
			ErrorChain []struct {
				Code int64 `json:"code"`
			} `json:"error_chain"`
		}
		require.NoError(t, json.Unmarshal([]byte(e.JSON.RawJSON()), &chain))
		for _, c := range chain.ErrorChain {
			codes = append(codes, c.Code)
		}
	}
	return ce.StatusCode, codes
}

func post(name, typ, content string, ttl int, proxied bool) dns.RecordBatchParamsPost {
	return dns.RecordBatchParamsPost{
		Name: cf.F(name), Type: cf.F(dns.RecordBatchParamsPostsType(typ)), Content: cf.F(content),
		TTL: cf.F(dns.TTL(ttl)), Proxied: cf.F(proxied),
	}
}

func newRecord(zoneID, name, typ, content string, ttl int, proxied bool) dns.RecordNewParams {
	return dns.RecordNewParams{ZoneID: cf.F(zoneID), Body: dns.RecordNewParamsBody{
		Name: cf.F(name), Type: cf.F(dns.RecordNewParamsBodyType(typ)), Content: cf.F(content),
		TTL: cf.F(dns.TTL(ttl)), Proxied: cf.F(proxied),
	}}
}

func TestPagination(t *testing.T) {
	s := Start(t, Config{})
	var ids []string
	for _, n := range []string{"a.example", "b.example", "c.example", "d.example", "e.example", "f.example"} {
		ids = append(ids, s.CreateZone(n))
	}
	c := client(s, s.Token())
	ctx := t.Context()

	var names []string
	iter := c.Zones.ListAutoPaging(ctx, zones.ZoneListParams{PerPage: cf.F(5.0)})
	for iter.Next() {
		names = append(names, iter.Current().Name)
	}
	require.NoError(t, iter.Err())
	assert.Equal(t, []string{"a.example", "b.example", "c.example", "d.example", "e.example", "f.example"}, names)
	assert.Equal(t, 3, s.Count(OpZonesList), "two pages, then the empty page that ends the pager")

	one, err := c.Zones.List(ctx, zones.ZoneListParams{Name: cf.F("c.example")})
	require.NoError(t, err)
	require.Len(t, one.Result, 1)
	assert.Equal(t, ids[2], one.Result[0].ID)

	for _, n := range []string{"r1", "r2", "r3", "r4", "r5", "r6", "r7"} {
		_, err := c.DNS.Records.New(ctx, newRecord(ids[0], n, "A", "192.0.2.1", 300, false))
		require.NoError(t, err)
	}
	var recs []string
	riter := c.DNS.Records.ListAutoPaging(ctx, dns.RecordListParams{ZoneID: cf.F(ids[0]), PerPage: cf.F(5.0)})
	for riter.Next() {
		recs = append(recs, riter.Current().Name)
	}
	require.NoError(t, riter.Err())
	assert.Equal(t, []string{"r1.a.example", "r2.a.example", "r3.a.example", "r4.a.example", "r5.a.example", "r6.a.example", "r7.a.example"}, recs)
	assert.Equal(t, 3, s.Count(OpRecordsList))

	_, err = c.DNS.Records.List(ctx, dns.RecordListParams{ZoneID: cf.F(ids[0]), PerPage: cf.F(2.0)})
	status, codes := apiCodes(t, err)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, []int64{CodeValidation}, codes, "per_page below 5")
}

func TestCreate(t *testing.T) {
	// Each case creates one record in a zone holding www A 192.0.2.1 and
	// cname CNAME www.example.com.
	tests := []struct {
		name                string
		rname, typ, content string
		ttl                 int
		proxied             bool
		code                int64
		want                string
	}{
		{name: "relative name, proxied A", rname: "new", typ: "A", content: "192.0.2.5", ttl: 300, proxied: true,
			want: "new.example.com 1 A 192.0.2.5 proxied"},
		{name: "apex TXT", rname: "@", typ: "TXT", content: `"hello"`, ttl: 300,
			want: `example.com 300 TXT "hello"`},
		{name: "CNAME target without its trailing dot", rname: "Alias.Example.com.", typ: "CNAME", content: "target.example.net.", ttl: 1,
			want: "alias.example.com 1 CNAME target.example.net"},
		{name: "a second A with other content", rname: "www.example.com", typ: "A", content: "192.0.2.2", ttl: 300,
			want: "www.example.com 300 A 192.0.2.2"},
		{name: "an identical record", rname: "www.example.com", typ: "A", content: "192.0.2.1", ttl: 60, proxied: true, code: CodeIdenticalRecord},
		{name: "a CNAME beside an A", rname: "www.example.com", typ: "CNAME", content: "x.example.net", ttl: 1, code: CodeCNAMEConflict},
		{name: "an A beside a CNAME", rname: "cname.example.com", typ: "A", content: "192.0.2.1", ttl: 1, code: CodeCNAMEExists},
		{name: "an A with an IPv6 address", rname: "bad", typ: "A", content: "2001:db8::1", ttl: 1, code: CodeInvalidIPv4},
		{name: "a TTL out of range", rname: "bad", typ: "A", content: "192.0.2.1", ttl: 30, code: CodeInvalidTTL},
		{name: "a proxied TXT", rname: "bad", typ: "TXT", content: "x", ttl: 1, proxied: true, code: CodeNotProxiable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Start(t, Config{})
			id := s.CreateZone("example.com")
			c := client(s, s.Token())
			_, err := c.DNS.Records.New(t.Context(), newRecord(id, "www.example.com", "A", "192.0.2.1", 300, false))
			require.NoError(t, err)
			_, err = c.DNS.Records.New(t.Context(), newRecord(id, "cname.example.com", "CNAME", "www.example.com", 300, false))
			require.NoError(t, err)
			before := s.Records("example.com")

			got, err := c.DNS.Records.New(t.Context(), newRecord(id, tt.rname, tt.typ, tt.content, tt.ttl, tt.proxied))
			if tt.code != 0 {
				status, codes := apiCodes(t, err)
				assert.Equal(t, http.StatusBadRequest, status)
				assert.Contains(t, codes, tt.code)
				assert.Equal(t, before, s.Records("example.com"))
				return
			}
			require.NoError(t, err)
			assert.Len(t, got.ID, 32)
			var found []string
			for _, r := range s.Records("example.com") {
				if r.ID == got.ID {
					found = append(found, r.String())
				}
			}
			assert.Equal(t, []string{tt.want}, found)
		})
	}
}

func TestUpdateAndDelete(t *testing.T) {
	s := Start(t, Config{})
	id := s.CreateZone("example.com")
	c := client(s, s.Token())
	ctx := t.Context()
	www, err := c.DNS.Records.New(ctx, newRecord(id, "www", "A", "192.0.2.1", 300, false))
	require.NoError(t, err)
	other, err := c.DNS.Records.New(ctx, newRecord(id, "www", "A", "192.0.2.2", 300, false))
	require.NoError(t, err)

	_, err = c.DNS.Records.Update(ctx, www.ID, dns.RecordUpdateParams{ZoneID: cf.F(id), Body: dns.RecordUpdateParamsBody{
		Name: cf.F("www.example.com"), Type: cf.F(dns.RecordUpdateParamsBodyTypeA), Content: cf.F("192.0.2.3"), TTL: cf.F(dns.TTL(120)), Proxied: cf.F(true),
	}})
	require.NoError(t, err)
	_, err = c.DNS.Records.Update(ctx, www.ID, dns.RecordUpdateParams{ZoneID: cf.F(id), Body: dns.RecordUpdateParamsBody{
		Name: cf.F("www.example.com"), Type: cf.F(dns.RecordUpdateParamsBodyTypeA), Content: cf.F("192.0.2.2"), TTL: cf.F(dns.TTL(120)),
	}})
	_, codes := apiCodes(t, err)
	assert.Equal(t, []int64{CodeIdenticalRecord}, codes, "an overwrite into another record's content")

	_, err = c.DNS.Records.Delete(ctx, other.ID, dns.RecordDeleteParams{ZoneID: cf.F(id)})
	require.NoError(t, err)
	_, err = c.DNS.Records.Delete(ctx, other.ID, dns.RecordDeleteParams{ZoneID: cf.F(id)})
	status, codes := apiCodes(t, err)
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, []int64{CodeRecordNotFound}, codes)

	var got []string
	for _, r := range s.Records("example.com") {
		got = append(got, r.String())
	}
	assert.Equal(t, []string{"www.example.com 1 A 192.0.2.3 proxied"}, got)
	assert.Equal(t, map[string]int{OpCreate: 2, OpUpdate: 2, OpDelete: 2}, s.Counts())
}

func TestBatch(t *testing.T) {
	tests := []struct {
		name string
		// batch is built from the ids of the zone's www A 192.0.2.1 and
		// txt TXT records.
		batch  func(www, txt string) dns.RecordBatchParams
		status int
		code   int64
		want   []string
	}{
		{
			name: "deletes, puts and posts in one transaction",
			batch: func(www, txt string) dns.RecordBatchParams {
				return dns.RecordBatchParams{
					Deletes: cf.F([]dns.RecordBatchParamsDelete{{ID: cf.F(txt)}}),
					Puts: cf.F([]dns.BatchPutUnionParam{dns.BatchPutARecordParam{ID: cf.F(www), Name: cf.F("www.example.com"),
						Type: cf.F(dns.ARecordTypeA), Content: cf.F("192.0.2.7"), TTL: cf.F(dns.TTL(60)), Proxied: cf.F(false)}}),
					// A record the delete made room for: posts run last.
					Posts: cf.F([]dns.RecordBatchParamsPostUnion{post("txt.example.com", "CNAME", "www.example.com", 1, true)}),
				}
			},
			want: []string{"txt.example.com 1 CNAME www.example.com proxied", "www.example.com 60 A 192.0.2.7"},
		},
		{
			name: "one failing post undoes the deletes",
			batch: func(www, txt string) dns.RecordBatchParams {
				return dns.RecordBatchParams{
					Deletes: cf.F([]dns.RecordBatchParamsDelete{{ID: cf.F(txt)}}),
					Posts:   cf.F([]dns.RecordBatchParamsPostUnion{post("new.example.com", "A", "192.0.2.8", 300, false), post("www.example.com", "A", "192.0.2.1", 300, false)}),
				}
			},
			status: http.StatusBadRequest, code: CodeIdenticalRecord,
		},
		{
			name: "a delete of an unknown id",
			batch: func(www, txt string) dns.RecordBatchParams {
				return dns.RecordBatchParams{Deletes: cf.F([]dns.RecordBatchParamsDelete{{ID: cf.F(www)}, {ID: cf.F("ffffffffffffffffffffffffffffffff")}})}
			},
			status: http.StatusNotFound, code: CodeRecordNotFound,
		},
		{
			name: "more operations than the limit",
			batch: func(www, txt string) dns.RecordBatchParams {
				return dns.RecordBatchParams{
					Deletes: cf.F([]dns.RecordBatchParamsDelete{{ID: cf.F(www)}, {ID: cf.F(txt)}}),
					Posts: cf.F([]dns.RecordBatchParamsPostUnion{
						post("new.example.com", "A", "192.0.2.8", 300, false), post("new.example.com", "A", "192.0.2.9", 300, false),
					}),
				}
			},
			status: http.StatusBadRequest, code: CodeValidation,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Start(t, Config{BatchLimit: 3})
			id := s.CreateZone("example.com")
			c := client(s, s.Token())
			ctx := t.Context()
			www, err := c.DNS.Records.New(ctx, newRecord(id, "www", "A", "192.0.2.1", 300, false))
			require.NoError(t, err)
			txt, err := c.DNS.Records.New(ctx, newRecord(id, "txt", "TXT", `"x"`, 300, false))
			require.NoError(t, err)
			before := s.Records("example.com")

			params := tt.batch(www.ID, txt.ID)
			params.ZoneID = cf.F(id)
			resp, err := c.DNS.Records.Batch(ctx, params)
			if tt.code != 0 {
				status, codes := apiCodes(t, err)
				assert.Equal(t, tt.status, status)
				assert.Contains(t, codes, tt.code)
				assert.Equal(t, before, s.Records("example.com"), "a failed batch keeps nothing")
				return
			}
			require.NoError(t, err)
			assert.Len(t, resp.Deletes, len(params.Deletes.Value))
			assert.Len(t, resp.Posts, len(params.Posts.Value))
			var got []string
			for _, r := range s.Records("example.com") {
				got = append(got, r.String())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestAuthAndRoutes(t *testing.T) {
	s := Start(t, Config{})
	id := s.CreateZone("example.com")
	_, err := client(s, "wrong").Zones.Get(t.Context(), zones.ZoneGetParams{ZoneID: cf.F(id)})
	status, codes := apiCodes(t, err)
	assert.Equal(t, http.StatusForbidden, status)
	assert.Equal(t, []int64{CodeAuthentication}, codes)

	rid := s.AddRecord("example.com", Record{Name: "seed", Type: "TXT", Content: `"x"`, TTL: 120, Comment: "seeded"})
	got, err := client(s, s.Token()).DNS.Records.Get(t.Context(), rid, dns.RecordGetParams{ZoneID: cf.F(id)})
	require.NoError(t, err)
	assert.Equal(t, "seed.example.com", got.Name)
	assert.Equal(t, "seeded", got.Comment)
	assert.Equal(t, []Record{{ID: rid, Name: "seed.example.com", Type: "TXT", Content: `"x"`, TTL: 120, Comment: "seeded"}}, s.Records("example.com"))

	z, err := client(s, s.Token()).Zones.Get(t.Context(), zones.ZoneGetParams{ZoneID: cf.F(id)})
	require.NoError(t, err)
	assert.Equal(t, "example.com", z.Name)
	assert.False(t, z.Plan.IsSubscribed)

	_, err = client(s, s.Token()).Zones.Get(t.Context(), zones.ZoneGetParams{ZoneID: cf.F("ffffffffffffffffffffffffffffffff")})
	status, codes = apiCodes(t, err)
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, []int64{CodeNoRoute}, codes)

	resp, err := http.Get(s.URL() + "/client/v4/accounts")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, 1, s.Count(OpUnknown))
}
