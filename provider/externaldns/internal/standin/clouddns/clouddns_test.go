package clouddns

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
	dns "google.golang.org/api/dns/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// client returns the Cloud DNS SDK's service pointed at the stand-in,
// authorised with token.
func client(t *testing.T, s *Server, token string) *dns.Service {
	t.Helper()
	hc := oauth2.NewClient(t.Context(), oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}))
	svc, err := dns.NewService(t.Context(), option.WithHTTPClient(hc), option.WithEndpoint(s.URL()+"/"))
	require.NoError(t, err)
	return svc
}

func rrset(name, typ string, ttl int64, rrdatas ...string) *dns.ResourceRecordSet {
	return &dns.ResourceRecordSet{Name: name, Type: typ, Ttl: ttl, Rrdatas: rrdatas}
}

// apiError returns the googleapi.Error in err's chain, failing the test
// when there is none.
func apiError(t *testing.T, err error) *googleapi.Error {
	t.Helper()
	var ge *googleapi.Error
	require.True(t, errors.As(err, &ge), "want a googleapi.Error, got %v", err)
	return ge
}

func TestPagination(t *testing.T) {
	s := Start(t, Config{PageSize: 2})
	s.CreateZone("b-zone", "b.example.")
	s.CreateZone("a-zone", "a.example")
	s.CreateZone("c-zone", "c.example.")
	svc := client(t, s, s.AccessToken())
	ctx := t.Context()

	var zones []string
	require.NoError(t, svc.ManagedZones.List(s.Project()).Pages(ctx, func(r *dns.ManagedZonesListResponse) error {
		for _, z := range r.ManagedZones {
			zones = append(zones, z.Name+"="+z.DnsName+"/"+z.Visibility)
			assert.NotZero(t, z.Id)
		}
		return nil
	}))
	assert.Equal(t, []string{"a-zone=a.example./public", "b-zone=b.example./public", "c-zone=c.example./public"}, zones)
	assert.Equal(t, 2, s.Count(OpZonesList), "three zones at two a page")

	for _, n := range []string{"www", "api", "mail"} {
		s.SetRRset("a-zone", RRset{Name: n + ".a.example.", Type: "A", TTL: 60, Rrdatas: []string{"192.0.2.1"}})
	}
	var sets []string
	require.NoError(t, svc.ResourceRecordSets.List(s.Project(), "a-zone").Pages(ctx, func(r *dns.ResourceRecordSetsListResponse) error {
		for _, rr := range r.Rrsets {
			sets = append(sets, rr.Name+" "+rr.Type)
		}
		return nil
	}))
	assert.Equal(t, []string{"a.example. NS", "a.example. SOA", "api.a.example. A", "mail.a.example. A", "www.a.example. A"}, sets)
	assert.Equal(t, 3, s.Count(OpRRsetsList), "five record sets at two a page")

	one, err := svc.ResourceRecordSets.List(s.Project(), "a-zone").Name("WWW.a.example.").Type("A").Do()
	require.NoError(t, err)
	require.Len(t, one.Rrsets, 1)
	assert.Equal(t, []string{"192.0.2.1"}, one.Rrsets[0].Rrdatas)

	_, err = svc.ResourceRecordSets.List(s.Project(), "a-zone").PageToken("bogus").Do()
	assert.Equal(t, http.StatusBadRequest, apiError(t, err).Code)
}

func TestChanges(t *testing.T) {
	seed := []RRset{
		{Name: "www.example.com.", Type: "A", TTL: 300, Rrdatas: []string{"192.0.2.1", "192.0.2.2"}},
		{Name: "txt.example.com.", Type: "TXT", TTL: 300, Rrdatas: []string{`"hello"`}},
	}
	tests := []struct {
		name   string
		change *dns.Change
		// status and reason are the refusal; 0 means accepted.
		status int
		reason string
		// want are the zone's record sets afterwards besides the apex
		// SOA and NS, when the change is accepted.
		want []string
	}{
		{
			name: "add and delete in one change, deletions match in any order",
			change: &dns.Change{
				Additions: []*dns.ResourceRecordSet{rrset("api.example.com.", "CNAME", 60, "www.example.com."), rrset("www.example.com.", "A", 60, "192.0.2.3")},
				Deletions: []*dns.ResourceRecordSet{rrset("www.example.com.", "A", 300, "192.0.2.2", "192.0.2.1")},
			},
			want: []string{
				"api.example.com. CNAME 60 [www.example.com.]",
				"txt.example.com. TXT 300 [\"hello\"]",
				"www.example.com. A 60 [192.0.2.3]",
			},
		},
		{
			name:   "adding an existing record set",
			change: &dns.Change{Additions: []*dns.ResourceRecordSet{rrset("www.example.com.", "A", 300, "192.0.2.9")}},
			status: http.StatusConflict, reason: "alreadyExists",
		},
		{
			name:   "deleting with another TTL",
			change: &dns.Change{Deletions: []*dns.ResourceRecordSet{rrset("www.example.com.", "A", 60, "192.0.2.1", "192.0.2.2")}},
			status: http.StatusPreconditionFailed, reason: "conditionNotMet",
		},
		{
			name:   "deleting with other rrdatas",
			change: &dns.Change{Deletions: []*dns.ResourceRecordSet{rrset("www.example.com.", "A", 300, "192.0.2.1")}},
			status: http.StatusPreconditionFailed, reason: "conditionNotMet",
		},
		{
			name:   "deleting what does not exist",
			change: &dns.Change{Deletions: []*dns.ResourceRecordSet{rrset("none.example.com.", "A", 300, "192.0.2.1")}},
			status: http.StatusNotFound, reason: "notFound",
		},
		{
			name: "a bad addition refuses the whole change",
			change: &dns.Change{
				Additions: []*dns.ResourceRecordSet{rrset("ok.example.com.", "A", 300, "192.0.2.5"), rrset("bad.example.com.", "A", 300, "2001:db8::1")},
				Deletions: []*dns.ResourceRecordSet{rrset("txt.example.com.", "TXT", 300, `"hello"`)},
			},
			status: http.StatusBadRequest, reason: "invalid",
		},
		{
			name:   "a name without its trailing dot",
			change: &dns.Change{Additions: []*dns.ResourceRecordSet{rrset("new.example.com", "A", 300, "192.0.2.5")}},
			status: http.StatusBadRequest, reason: "invalid",
		},
		{
			name:   "a name outside the zone",
			change: &dns.Change{Additions: []*dns.ResourceRecordSet{rrset("new.example.org.", "A", 300, "192.0.2.5")}},
			status: http.StatusBadRequest, reason: "invalid",
		},
		{
			name:   "a CNAME target without its trailing dot",
			change: &dns.Change{Additions: []*dns.ResourceRecordSet{rrset("new.example.com.", "CNAME", 300, "www.example.com")}},
			status: http.StatusBadRequest, reason: "invalid",
		},
		{
			name:   "a CNAME beside an A",
			change: &dns.Change{Additions: []*dns.ResourceRecordSet{rrset("www.example.com.", "CNAME", 300, "other.example.net.")}},
			status: http.StatusBadRequest, reason: "cnameResourceRecordSetConflict",
		},
		{
			name: "an A replaced by a CNAME in one change",
			change: &dns.Change{
				Additions: []*dns.ResourceRecordSet{rrset("www.example.com.", "CNAME", 300, "other.example.net.")},
				Deletions: []*dns.ResourceRecordSet{rrset("www.example.com.", "A", 300, "192.0.2.1", "192.0.2.2")},
			},
			want: []string{
				"txt.example.com. TXT 300 [\"hello\"]",
				"www.example.com. CNAME 300 [other.example.net.]",
			},
		},
		{
			name: "a routing policy",
			change: &dns.Change{Additions: []*dns.ResourceRecordSet{{Name: "geo.example.com.", Type: "A", Ttl: 300,
				RoutingPolicy: &dns.RRSetRoutingPolicy{Wrr: &dns.RRSetRoutingPolicyWrrPolicy{}}}}},
			status: http.StatusBadRequest, reason: "invalid",
		},
		{
			name:   "an empty change",
			change: &dns.Change{},
			status: http.StatusBadRequest, reason: "required",
		},
		{
			name: "more additions than the quota",
			change: &dns.Change{Additions: []*dns.ResourceRecordSet{
				rrset("a.example.com.", "A", 300, "192.0.2.1"), rrset("b.example.com.", "A", 300, "192.0.2.1"), rrset("c.example.com.", "A", 300, "192.0.2.1"),
			}},
			status: http.StatusForbidden, reason: "quotaExceeded",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Start(t, Config{MaxAdditions: 2, MaxDeletions: 2})
			s.CreateZone("example", "example.com.")
			for _, rr := range seed {
				s.SetRRset("example", rr)
			}
			before := s.RRsets("example")
			svc := client(t, s, s.AccessToken())

			got, err := svc.Changes.Create(s.Project(), "example", tt.change).Do()
			if tt.status != 0 {
				ge := apiError(t, err)
				assert.Equal(t, tt.status, ge.Code, ge.Message)
				require.NotEmpty(t, ge.Errors)
				assert.Equal(t, tt.reason, ge.Errors[0].Reason, ge.Message)
				assert.Equal(t, before, s.RRsets("example"), "a refused change changes nothing")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "done", got.Status)
			var sets []string
			for _, rr := range s.RRsets("example") {
				if rr.Name != "example.com." {
					sets = append(sets, rr.String())
				}
			}
			assert.Equal(t, tt.want, sets)

			again, err := svc.Changes.Get(s.Project(), "example", got.Id).Do()
			require.NoError(t, err)
			assert.Equal(t, got.Id, again.Id)
			assert.Len(t, again.Additions, len(tt.change.Additions))
			assert.Equal(t, 1, s.Count(OpChangesCreate))
			assert.Equal(t, 1, s.Count(OpChangesGet))
		})
	}
}

func TestZoneByID(t *testing.T) {
	s := Start(t, Config{})
	s.CreateZone("example", "example.com.")
	svc := client(t, s, s.AccessToken())
	zones, err := svc.ManagedZones.List(s.Project()).Do()
	require.NoError(t, err)
	require.Len(t, zones.ManagedZones, 1)
	id := zones.ManagedZones[0].Id
	sets, err := svc.ResourceRecordSets.List(s.Project(), strconv.FormatUint(id, 10)).Do()
	require.NoError(t, err)
	assert.Len(t, sets.Rrsets, 2, "SOA and NS")

	_, err = svc.ResourceRecordSets.List(s.Project(), "other").Do()
	assert.Equal(t, http.StatusNotFound, apiError(t, err).Code)
}

func TestAuthAndRoutes(t *testing.T) {
	s := Start(t, Config{})
	s.CreateZone("example", "example.com.")

	_, err := client(t, s, "wrong").ManagedZones.List(s.Project()).Do()
	assert.Equal(t, http.StatusUnauthorized, apiError(t, err).Code)
	_, err = client(t, s, s.AccessToken()).ManagedZones.List("other-project").Do()
	assert.Equal(t, http.StatusForbidden, apiError(t, err).Code)

	resp, err := http.PostForm(s.URL()+"/token", url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {"x.y.z"}})
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, 1, s.Count(OpToken))

	resp, err = http.Get(s.URL() + "/dns/v1/projects/zonesync-test/policies")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, 1, s.Count(OpUnknown))

	s.ResetCounts()
	assert.Empty(t, s.Counts())
}

func TestSharedState(t *testing.T) {
	// Two clients see one project.
	s := Start(t, Config{})
	s.CreateZone("example", "example.com.")
	_, err := client(t, s, s.AccessToken()).Changes.Create(s.Project(), "example", &dns.Change{
		Additions: []*dns.ResourceRecordSet{rrset("www.example.com.", "A", 300, "192.0.2.1")},
	}).Do()
	require.NoError(t, err)
	got, err := client(t, s, s.AccessToken()).ResourceRecordSets.List(s.Project(), "example").Name("www.example.com.").Do()
	require.NoError(t, err)
	require.Len(t, got.Rrsets, 1)
	assert.Equal(t, int64(300), got.Rrsets[0].Ttl)
}
