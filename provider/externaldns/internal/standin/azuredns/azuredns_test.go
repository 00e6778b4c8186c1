package azuredns

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/dns/armdns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// staticToken is a credential that always returns one token.
type staticToken string

func (s staticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: string(s), ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// clients returns armdns's zones and record sets clients pointed at the
// stand-in, authorised with token, without retries.
func clients(t *testing.T, s *Server, token string) (*armdns.ZonesClient, *armdns.RecordSetsClient) {
	t.Helper()
	opts := &arm.ClientOptions{ClientOptions: policy.ClientOptions{
		Cloud: cloud.Configuration{Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: s.URL(), Audience: "https://management.zonesync.test"},
		}},
		Transport: s.Client(),
		Retry:     policy.RetryOptions{MaxRetries: -1},
	}}
	zc, err := armdns.NewZonesClient(s.SubscriptionID(), staticToken(token), opts)
	require.NoError(t, err)
	rc, err := armdns.NewRecordSetsClient(s.SubscriptionID(), staticToken(token), opts)
	require.NoError(t, err)
	return zc, rc
}

func responseError(t *testing.T, err error) *azcore.ResponseError {
	t.Helper()
	var re *azcore.ResponseError
	require.True(t, errors.As(err, &re), "want an azcore.ResponseError, got %v", err)
	return re
}

func aSet(ttl int64, ips ...string) armdns.RecordSet {
	p := &armdns.RecordSetProperties{TTL: new(ttl)}
	for _, ip := range ips {
		p.ARecords = append(p.ARecords, &armdns.ARecord{IPv4Address: new(ip)})
	}
	return armdns.RecordSet{Properties: p}
}

func cnameSet(ttl int64, target string) armdns.RecordSet {
	return armdns.RecordSet{Properties: &armdns.RecordSetProperties{TTL: new(ttl), CnameRecord: &armdns.CnameRecord{Cname: new(target)}}}
}

func TestPaging(t *testing.T) {
	s := Start(t, Config{PageSize: 2})
	for _, z := range []string{"b.example", "a.example", "c.example."} {
		s.CreateZone(z)
	}
	zc, rc := clients(t, s, s.AccessToken())
	ctx := t.Context()

	var zones []string
	pager := zc.NewListByResourceGroupPager(s.ResourceGroup(), nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		require.NoError(t, err)
		for _, z := range page.Value {
			zones = append(zones, *z.Name)
			assert.Contains(t, *z.ID, "/resourceGroups/dns/providers/Microsoft.Network/dnszones/")
		}
	}
	assert.Equal(t, []string{"a.example", "b.example", "c.example"}, zones)
	assert.Equal(t, 2, s.Count(OpZonesList))

	for _, n := range []string{"www", "api", "mail"} {
		_, err := rc.CreateOrUpdate(ctx, s.ResourceGroup(), "a.example", n, armdns.RecordTypeA, aSet(60, "192.0.2.1"), nil)
		require.NoError(t, err)
	}
	var sets []string
	rpager := rc.NewListAllByDNSZonePager(s.ResourceGroup(), "a.example", nil)
	for rpager.More() {
		page, err := rpager.NextPage(ctx)
		require.NoError(t, err)
		for _, rs := range page.Value {
			sets = append(sets, *rs.Name+" "+*rs.Type+" "+*rs.Properties.Fqdn)
		}
	}
	assert.Equal(t, []string{
		"@ Microsoft.Network/dnszones/NS a.example.",
		"@ Microsoft.Network/dnszones/SOA a.example.",
		"api Microsoft.Network/dnszones/A api.a.example.",
		"mail Microsoft.Network/dnszones/A mail.a.example.",
		"www Microsoft.Network/dnszones/A www.a.example.",
	}, sets)
	assert.Equal(t, 3, s.Count(OpRecordSetsList))

	top := rc.NewListAllByDNSZonePager(s.ResourceGroup(), "a.example", &armdns.RecordSetsClientListAllByDNSZoneOptions{Top: new(int32(1))})
	page, err := top.NextPage(ctx)
	require.NoError(t, err)
	assert.Len(t, page.Value, 1, "$top below the page size")
	assert.NotNil(t, page.NextLink)
}

func TestCreateOrUpdate(t *testing.T) {
	tests := []struct {
		name string
		// set is put at rel (type typ) into a zone holding www A and
		// alias CNAME.
		rel    string
		typ    armdns.RecordType
		set    armdns.RecordSet
		opts   *armdns.RecordSetsClientCreateOrUpdateOptions
		status int
		code   string
		// want is the record set afterwards, when accepted.
		want string
	}{
		{name: "a new record set", rel: "new", typ: armdns.RecordTypeA, set: aSet(60, "192.0.2.5", "192.0.2.6"),
			status: http.StatusCreated, want: `new A 60 ["192.0.2.5" "192.0.2.6"]`},
		{name: "an existing record set is replaced", rel: "www", typ: armdns.RecordTypeA, set: aSet(120, "192.0.2.9"),
			status: http.StatusOK, want: `www A 120 ["192.0.2.9"]`},
		{name: "If-None-Match: * on an existing record set", rel: "www", typ: armdns.RecordTypeA, set: aSet(120, "192.0.2.9"),
			opts:   &armdns.RecordSetsClientCreateOrUpdateOptions{IfNoneMatch: new("*")},
			status: http.StatusPreconditionFailed, code: "PreconditionFailed"},
		{name: "If-Match with another etag", rel: "www", typ: armdns.RecordTypeA, set: aSet(120, "192.0.2.9"),
			opts:   &armdns.RecordSetsClientCreateOrUpdateOptions{IfMatch: new("other")},
			status: http.StatusPreconditionFailed, code: "PreconditionFailed"},
		{name: "records of another type", rel: "new", typ: armdns.RecordTypeAAAA, set: aSet(60, "192.0.2.5"),
			status: http.StatusBadRequest, code: "BadRequest"},
		{name: "an invalid address", rel: "new", typ: armdns.RecordTypeA, set: aSet(60, "2001:db8::1"),
			status: http.StatusBadRequest, code: "BadRequest"},
		{name: "a CNAME at the apex", rel: "@", typ: armdns.RecordTypeCNAME, set: cnameSet(60, "other.example.net"),
			status: http.StatusBadRequest, code: "BadRequest"},
		{name: "a CNAME beside an A", rel: "www", typ: armdns.RecordTypeCNAME, set: cnameSet(60, "other.example.net"),
			status: http.StatusConflict, code: "Conflict"},
		{name: "an A beside a CNAME", rel: "alias", typ: armdns.RecordTypeA, set: aSet(60, "192.0.2.5"),
			status: http.StatusConflict, code: "Conflict"},
		{name: "more records than the limit", rel: "new", typ: armdns.RecordTypeA, set: aSet(60, "192.0.2.1", "192.0.2.2", "192.0.2.3"),
			status: http.StatusBadRequest, code: "BadRequest"},
		{name: "metadata and TXT", rel: "txt", typ: armdns.RecordTypeTXT, set: armdns.RecordSet{Properties: &armdns.RecordSetProperties{
			TTL: new(int64(300)), Metadata: map[string]*string{"team": new("dns")},
			TxtRecords: []*armdns.TxtRecord{{Value: []*string{new("v=spf1 "), new("-all")}}},
		}}, status: http.StatusCreated, want: `txt TXT 300 ["v=spf1 -all"] team=dns`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Start(t, Config{MaxRecordsPerSet: 2})
			s.CreateZone("example.com")
			_, rc := clients(t, s, s.AccessToken())
			ctx := t.Context()
			_, err := rc.CreateOrUpdate(ctx, "dns", "example.com", "www", armdns.RecordTypeA, aSet(300, "192.0.2.1"), nil)
			require.NoError(t, err)
			_, err = rc.CreateOrUpdate(ctx, "dns", "example.com", "alias", armdns.RecordTypeCNAME, cnameSet(300, "www.example.com"), nil)
			require.NoError(t, err)
			before := s.RecordSets("example.com")

			var raw *http.Response
			got, err := rc.CreateOrUpdate(policy.WithCaptureResponse(ctx, &raw), "dns", "example.com", tt.rel, tt.typ, tt.set, tt.opts)
			if tt.code != "" {
				re := responseError(t, err)
				assert.Equal(t, tt.status, re.StatusCode)
				assert.Equal(t, tt.code, re.ErrorCode)
				assert.Equal(t, before, s.RecordSets("example.com"), "a refused PUT changes nothing")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.status, raw.StatusCode)
			require.NotNil(t, got.Etag)
			var found []string
			for _, rs := range s.RecordSets("example.com") {
				if rs.Name == tt.rel && rs.Type == string(tt.typ) {
					found = append(found, rs.String())
				}
			}
			assert.Equal(t, []string{tt.want}, found)

			// The etag just returned satisfies If-Match.
			_, err = rc.CreateOrUpdate(ctx, "dns", "example.com", tt.rel, tt.typ, tt.set,
				&armdns.RecordSetsClientCreateOrUpdateOptions{IfMatch: got.Etag})
			require.NoError(t, err)
		})
	}
}

func TestDelete(t *testing.T) {
	s := Start(t, Config{})
	s.CreateZone("example.com")
	_, rc := clients(t, s, s.AccessToken())
	ctx := t.Context()
	_, err := rc.CreateOrUpdate(ctx, "dns", "example.com", "www", armdns.RecordTypeA, aSet(300, "192.0.2.1"), nil)
	require.NoError(t, err)

	for _, want := range []int{http.StatusOK, http.StatusNoContent} {
		var raw *http.Response
		_, err = rc.Delete(policy.WithCaptureResponse(ctx, &raw), "dns", "example.com", "www", armdns.RecordTypeA, nil)
		require.NoError(t, err)
		assert.Equal(t, want, raw.StatusCode, "deleted, then absent")
	}
	assert.Len(t, s.RecordSets("example.com"), 2, "SOA and NS left")

	_, err = rc.Delete(ctx, "dns", "example.com", "@", armdns.RecordTypeSOA, nil)
	assert.Equal(t, http.StatusBadRequest, responseError(t, err).StatusCode)
	_, err = rc.Delete(ctx, "dns", "other.com", "www", armdns.RecordTypeA, nil)
	assert.Equal(t, "ResourceNotFound", responseError(t, err).ErrorCode)
	assert.Equal(t, 4, s.Count(OpRecordSetDelete))
}

func TestAuthAndVersion(t *testing.T) {
	s := Start(t, Config{})
	s.CreateZone("example.com")
	_, rc := clients(t, s, "wrong")
	_, err := rc.Get(t.Context(), "dns", "example.com", "@", armdns.RecordTypeNS, nil)
	assert.Equal(t, http.StatusUnauthorized, responseError(t, err).StatusCode)

	get := func(url string, header map[string]string) (int, map[string]string) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
		require.NoError(t, err)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := s.Client().Do(req)
		require.NoError(t, err)
		defer func() { require.NoError(t, resp.Body.Close()) }()
		var body map[string]string
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}
	bearer := map[string]string{"Authorization": "Bearer " + s.AccessToken()}
	zones := s.URL() + "/subscriptions/" + s.SubscriptionID() + "/resourceGroups/dns/providers/Microsoft.Network/dnszones"
	status, _ := get(zones, bearer)
	assert.Equal(t, http.StatusBadRequest, status, "no api-version")
	status, _ = get(zones+"?api-version=2023-07-01-preview", bearer)
	assert.Equal(t, http.StatusBadRequest, status, "another api-version")
	status, _ = get(zones+"?api-version="+APIVersion, bearer)
	assert.Equal(t, http.StatusOK, status)

	status, _ = get(s.IdentityEndpoint()+"?api-version=2019-08-01&resource=https://management.zonesync.test", nil)
	assert.Equal(t, http.StatusUnauthorized, status, "no identity header")
	status, body := get(s.IdentityEndpoint()+"?api-version=2019-08-01&resource=https://management.zonesync.test",
		map[string]string{"X-IDENTITY-HEADER": s.IdentityHeader()})
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, s.AccessToken(), body["access_token"])
	assert.NotEmpty(t, body["expires_on"])
	assert.Equal(t, 2, s.Count(OpToken))

	status, _ = get(s.URL()+"/subscriptions/other/resourceGroups/dns/providers/Microsoft.Network/dnszones?api-version="+APIVersion, bearer)
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, 1, s.Count(OpUnknown))
}

func TestSetRecordSet(t *testing.T) {
	s := Start(t, Config{})
	s.CreateZone("example.com")
	seed := []RecordSet{
		{Name: "www", Type: "A", TTL: 60, Records: []string{"192.0.2.1", "192.0.2.2"}},
		{Name: "v6", Type: "AAAA", TTL: 60, Records: []string{"2001:db8::1"}},
		{Name: "alias", Type: "CNAME", TTL: 60, Records: []string{"www.example.com"}},
		{Name: "sub", Type: "NS", TTL: 60, Records: []string{"ns.example.net"}},
		{Name: "txt", Type: "TXT", TTL: 60, Records: []string{"one", "two"}, Metadata: map[string]string{"k": "v"}},
	}
	for _, rs := range seed {
		s.SetRecordSet("example.com", rs)
	}
	_, rc := clients(t, s, s.AccessToken())
	got, err := rc.Get(t.Context(), "dns", "example.com", "www", armdns.RecordTypeA, nil)
	require.NoError(t, err)
	require.Len(t, got.Properties.ARecords, 2)
	assert.Equal(t, "192.0.2.2", *got.Properties.ARecords[1].IPv4Address)

	var lines []string
	for _, rs := range s.RecordSets("example.com") {
		lines = append(lines, rs.String())
	}
	assert.Equal(t, []string{
		`@ NS 172800 ["ns1-01.azure-dns.com." "ns2-01.azure-dns.net." "ns3-01.azure-dns.org." "ns4-01.azure-dns.info."]`,
		`@ SOA 3600 ["ns1-01.azure-dns.com. azuredns-hostmaster.microsoft.com 1"]`,
		`alias CNAME 60 ["www.example.com"]`,
		`sub NS 60 ["ns.example.net"]`,
		`txt TXT 60 ["one" "two"] k=v`,
		`v6 AAAA 60 ["2001:db8::1"]`,
		`www A 60 ["192.0.2.1" "192.0.2.2"]`,
	}, lines)
	assert.Panics(t, func() { s.SetRecordSet("example.com", RecordSet{Name: "mx", Type: "MX", Records: []string{"10 mx"}}) })
}

func TestWriteCertificate(t *testing.T) {
	cert, key, err := WriteCertificate(t.TempDir())
	require.NoError(t, err)
	s := Start(t, Config{CertFile: cert, KeyFile: key})
	pemBytes, err := os.ReadFile(cert)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pemBytes))
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	t.Cleanup(c.CloseIdleConnections)

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.IdentityEndpoint()+"?resource=x", nil)
	require.NoError(t, err)
	req.Header.Set("X-IDENTITY-HEADER", s.IdentityHeader())
	resp, err := c.Do(req)
	require.NoError(t, err, "a client trusting only the written certificate reaches the server")
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}
