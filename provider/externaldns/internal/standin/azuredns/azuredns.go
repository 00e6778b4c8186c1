// Package azuredns is a local stand-in for the Azure DNS management API
// (Azure Resource Manager, Microsoft.Network/dnsZones, api-version
// 2018-05-01) as external-dns's azure provider uses it through
// github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/dns/armdns: an
// in-memory resource group of DNS zones and record sets behind an
// httptest TLS server, with an App Service style managed identity token
// endpoint.
//
// The server speaks HTTPS only, as Resource Manager does; azcore refuses to
// send a bearer token over plain HTTP. [Server.Client] trusts its
// certificate; a process that cannot pass a client (external-dns builds its
// own) must trust the certificate of [WriteCertificate] through
// SSL_CERT_FILE from its start.
//
// # What it models
//
//   - GET /msi/token: the managed identity endpoint of App Service
//     (IDENTITY_ENDPOINT, with IDENTITY_HEADER sent back as
//     X-IDENTITY-HEADER, else 401); it issues the server's access token,
//     which every Resource Manager call must then carry (else 401
//     InvalidAuthenticationToken).
//   - The api-version query parameter, required on every call and
//     accepted only as 2018-05-01, the SDK's (400 otherwise).
//   - Zones.ListByResourceGroup and RecordSets.ListAllByDNSZone (and
//     ListByDNSZone, the same list), paged with $top and an absolute
//     nextLink carrying a $skipToken; record sets in (name, type) order.
//   - RecordSets.CreateOrUpdate (PUT): Azure's documented behaviour is to
//     replace the record set, or create it (201, else 200), with a new
//     etag; with If-None-Match: * it refuses an existing record set, with
//     If-Match it refuses another etag (412 PreconditionFailed). The body
//     must hold records of the path's type only; A and AAAA addresses
//     must parse, CNAME is refused at the apex and beside a record set of
//     another type at the same name, and the other way round (409
//     Conflict); at most [Config.MaxRecordsPerSet] records (20, Azure's
//     limit for public zones). Metadata is stored and returned.
//   - RecordSets.Delete: 200 when the record set was deleted, 204 when
//     there was none; If-Match is honoured; the apex SOA and NS record
//     sets cannot be deleted (400).
//   - A new zone holds its apex SOA and NS record sets, as Azure creates
//     them.
//   - Errors in Resource Manager's envelope (error.code, error.message),
//     which azcore.ResponseError decodes.
//
// # What it does not model
//
// Zone creation and deletion through the API, private zones, alias record
// sets (targetResource is refused), CAA, SRV and PTR validation beyond
// their shape, the TXT string length limits, the record set and zone
// count limits, PATCH (RecordSets.Update), resource provider registration,
// throttling (429), long-running operations, and every other credential
// (service principals, workload identity): only the managed identity
// endpoint.
package azuredns

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zonesync/zonesync/provider/externaldns/internal/standin"
)

// APIVersion is the only api-version the stand-in accepts: armdns v1's.
const APIVersion = "2018-05-01"

// Operation names under which requests are counted ([Server.Count]).
const (
	OpToken           = "identity.token"
	OpZonesList       = "Zones.ListByResourceGroup"
	OpRecordSetsList  = "RecordSets.ListAllByDNSZone"
	OpCreateOrUpdate  = "RecordSets.CreateOrUpdate"
	OpRecordSetsGet   = "RecordSets.Get"
	OpRecordSetDelete = "RecordSets.Delete"
	// OpUnknown counts requests the stand-in has no route for (answered
	// 404).
	OpUnknown = "unknown"
)

// Config describes the stand-in. The zero value serves subscription
// [DefaultSubscription], resource group "dns", with the defaults below.
type Config struct {
	// SubscriptionID is the subscription; empty means DefaultSubscription.
	SubscriptionID string
	// ResourceGroup is the one resource group; empty means "dns".
	ResourceGroup string
	// PageSize is the most zones or record sets a list returns per page
	// when the request asks for no fewer ($top); zero means 100.
	PageSize int
	// MaxRecordsPerSet is the most records a record set holds; zero means
	// 20.
	MaxRecordsPerSet int
	// IdentityHeader is the secret the managed identity endpoint expects
	// in X-IDENTITY-HEADER; empty means "standin-identity-header".
	IdentityHeader string
	// CertFile and KeyFile, when set, are the PEM certificate and key the
	// server presents (see [WriteCertificate]); empty means httptest's.
	CertFile, KeyFile string
}

// DefaultSubscription is the subscription id of the zero Config.
const DefaultSubscription = "00000000-0000-0000-0000-000000000002"

// RecordSet is one record set as Azure DNS holds it, in a readable form.
type RecordSet struct {
	// Name is relative to the zone, "@" for the apex.
	Name string
	Type string
	TTL  int64
	// Records are the records as text: an address for A and AAAA, the
	// target for CNAME, "preference exchange" for MX, the name server for
	// NS, the strings of one record joined for TXT, "host email serial"
	// for SOA.
	Records []string
	// Metadata are the record set's metadata (nil when none).
	Metadata map[string]string
}

// String formats the record set as "name type ttl [records]", followed
// by the metadata when there are any.
func (r RecordSet) String() string {
	s := fmt.Sprintf("%s %s %d %q", r.Name, r.Type, r.TTL, r.Records)
	if len(r.Metadata) > 0 {
		keys := make([]string, 0, len(r.Metadata))
		for k := range r.Metadata {
			keys = append(keys, k+"="+r.Metadata[k])
		}
		slices.Sort(keys)
		s += " " + strings.Join(keys, ",")
	}
	return s
}

// Server is a running stand-in. It is safe for concurrent use.
type Server struct {
	cfg   Config
	srv   *httptest.Server
	token string
	count standin.Counter

	mu    sync.Mutex
	zones map[string]*zone // by lower-case zone name
	etag  int
}

type rsKey struct{ name, typ string }

type zone struct {
	name string
	sets map[rsKey]*recordSet
}

// recordSet is a stored record set: its properties as Resource Manager
// serves them.
type recordSet struct {
	name, typ, etag string
	props           properties
}

// Start starts a stand-in on https://127.0.0.1, stopped when the test
// ends.
func Start(t testing.TB, cfg Config) *Server {
	t.Helper()
	s := New(cfg)
	s.srv = httptest.NewUnstartedServer(s.Handler())
	if s.cfg.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(s.cfg.CertFile, s.cfg.KeyFile)
		if err != nil {
			t.Fatalf("azuredns: loading the certificate: %v", err)
		}
		s.srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	s.srv.StartTLS()
	t.Cleanup(s.srv.Close)
	return s
}

// New returns a stand-in that is not listening: serve [Server.Handler]
// yourself (over TLS), or use [Start].
func New(cfg Config) *Server {
	if cfg.SubscriptionID == "" {
		cfg.SubscriptionID = DefaultSubscription
	}
	if cfg.ResourceGroup == "" {
		cfg.ResourceGroup = "dns"
	}
	if cfg.PageSize <= 0 {
		cfg.PageSize = 100
	}
	if cfg.MaxRecordsPerSet <= 0 {
		cfg.MaxRecordsPerSet = 20
	}
	if cfg.IdentityHeader == "" {
		cfg.IdentityHeader = "standin-identity-header"
	}
	return &Server{cfg: cfg, token: "azuredns-standin-token", zones: make(map[string]*zone)}
}

// URL returns the base URL of a started stand-in (no trailing slash): the
// Resource Manager endpoint.
func (s *Server) URL() string { return s.srv.URL }

// IdentityEndpoint returns the managed identity endpoint's URL, for
// IDENTITY_ENDPOINT.
func (s *Server) IdentityEndpoint() string { return s.srv.URL + "/msi/token" }

// IdentityHeader returns the secret the managed identity endpoint expects,
// for IDENTITY_HEADER.
func (s *Server) IdentityHeader() string { return s.cfg.IdentityHeader }

// Client returns an HTTP client that trusts the server's certificate.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// SubscriptionID returns the subscription the stand-in serves.
func (s *Server) SubscriptionID() string { return s.cfg.SubscriptionID }

// ResourceGroup returns the resource group the stand-in serves.
func (s *Server) ResourceGroup() string { return s.cfg.ResourceGroup }

// AccessToken returns the token the identity endpoint issues and the API
// requires.
func (s *Server) AccessToken() string { return s.token }

// Count returns how many requests of the operation op were served.
func (s *Server) Count(op string) int { return s.count.Count(op) }

// Counts returns the requests served by operation.
func (s *Server) Counts() map[string]int { return s.count.Counts() }

// ResetCounts forgets the request counts.
func (s *Server) ResetCounts() { s.count.Reset() }

// CreateZone adds the zone name with its apex SOA and NS record sets. It
// panics if the zone exists.
func (s *Server) CreateZone(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	if _, ok := s.zones[name]; ok {
		panic("azuredns: zone " + name + " exists")
	}
	z := &zone{name: name, sets: make(map[rsKey]*recordSet)}
	soa := properties{TTL: new(int64(3600)), SOARecord: &soaRecord{
		Host: "ns1-01.azure-dns.com.", Email: "azuredns-hostmaster.microsoft.com", SerialNumber: 1,
		RefreshTime: 3600, RetryTime: 300, ExpireTime: 2419200, MinimumTTL: 300,
	}}
	ns := properties{TTL: new(int64(172800))}
	for _, n := range []string{"ns1-01.azure-dns.com.", "ns2-01.azure-dns.net.", "ns3-01.azure-dns.org.", "ns4-01.azure-dns.info."} {
		ns.NSRecords = append(ns.NSRecords, nsRecord{Nsdname: new(n)})
	}
	z.sets[rsKey{"@", "SOA"}] = &recordSet{name: "@", typ: "SOA", etag: s.nextEtag(), props: soa}
	z.sets[rsKey{"@", "NS"}] = &recordSet{name: "@", typ: "NS", etag: s.nextEtag(), props: ns}
	s.zones[name] = z
}

// SetRecordSet stores rs in zone as it is, replacing a record set of the
// same name and type, without validation: for seeding a test. Records are
// read in the form of [RecordSet.Records] for A, AAAA, CNAME, NS and TXT
// (one string per TXT record). It panics if the zone does not exist or
// for another type.
func (s *Server) SetRecordSet(zoneName string, rs RecordSet) {
	s.mu.Lock()
	defer s.mu.Unlock()
	z := s.zones[strings.ToLower(zoneName)]
	if z == nil {
		panic("azuredns: no zone " + zoneName)
	}
	p := properties{TTL: new(rs.TTL)}
	for _, r := range rs.Records {
		switch rs.Type {
		case "A":
			p.ARecords = append(p.ARecords, aRecord{IPv4Address: new(r)})
		case "AAAA":
			p.AAAARecords = append(p.AAAARecords, aaaaRecord{IPv6Address: new(r)})
		case "CNAME":
			p.CNAMERecord = &cnameRecord{Cname: new(r)}
		case "NS":
			p.NSRecords = append(p.NSRecords, nsRecord{Nsdname: new(r)})
		case "TXT":
			p.TXTRecords = append(p.TXTRecords, txtRecord{Value: []string{r}})
		default:
			panic("azuredns: SetRecordSet does not take type " + rs.Type)
		}
	}
	for k, v := range rs.Metadata {
		if p.Metadata == nil {
			p.Metadata = make(map[string]*string)
		}
		p.Metadata[k] = new(v)
	}
	name := strings.ToLower(rs.Name)
	z.sets[rsKey{name, rs.Type}] = &recordSet{name: name, typ: rs.Type, etag: s.nextEtag(), props: p}
}

// RecordSets returns the record sets of zone in (name, type) order; nil
// when the zone does not exist.
func (s *Server) RecordSets(zoneName string) []RecordSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	z := s.zones[strings.ToLower(zoneName)]
	if z == nil {
		return nil
	}
	var out []RecordSet
	for _, rs := range z.sorted() {
		out = append(out, rs.view())
	}
	return out
}

func (s *Server) nextEtag() string {
	s.etag++
	return fmt.Sprintf("00000000-0000-0000-0000-%012d", s.etag)
}

func (z *zone) sorted() []*recordSet {
	out := make([]*recordSet, 0, len(z.sets))
	for _, rs := range z.sets {
		out = append(out, rs)
	}
	slices.SortFunc(out, func(a, b *recordSet) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return strings.Compare(a.typ, b.typ)
	})
	return out
}

// --- wire shapes (Resource Manager's JSON, as armdns encodes it) ---

type properties struct {
	Metadata          map[string]*string `json:"metadata,omitempty"`
	TTL               *int64             `json:"TTL,omitempty"`
	Fqdn              string             `json:"fqdn,omitempty"`
	ProvisioningState string             `json:"provisioningState,omitempty"`
	TargetResource    json.RawMessage    `json:"targetResource,omitempty"`
	ARecords          []aRecord          `json:"ARecords,omitempty"`
	AAAARecords       []aaaaRecord       `json:"AAAARecords,omitempty"`
	CNAMERecord       *cnameRecord       `json:"CNAMERecord,omitempty"`
	MXRecords         []mxRecord         `json:"MXRecords,omitempty"`
	NSRecords         []nsRecord         `json:"NSRecords,omitempty"`
	PTRRecords        []json.RawMessage  `json:"PTRRecords,omitempty"`
	SRVRecords        []json.RawMessage  `json:"SRVRecords,omitempty"`
	TXTRecords        []txtRecord        `json:"TXTRecords,omitempty"`
	CAARecords        []json.RawMessage  `json:"caaRecords,omitempty"`
	SOARecord         *soaRecord         `json:"SOARecord,omitempty"`
}

type aRecord struct {
	IPv4Address *string `json:"ipv4Address,omitempty"`
}
type aaaaRecord struct {
	IPv6Address *string `json:"ipv6Address,omitempty"`
}
type cnameRecord struct {
	Cname *string `json:"cname,omitempty"`
}
type mxRecord struct {
	Preference *int32  `json:"preference,omitempty"`
	Exchange   *string `json:"exchange,omitempty"`
}
type nsRecord struct {
	Nsdname *string `json:"nsdname,omitempty"`
}
type txtRecord struct {
	Value []string `json:"value,omitempty"`
}
type soaRecord struct {
	Host         string `json:"host,omitempty"`
	Email        string `json:"email,omitempty"`
	SerialNumber int64  `json:"serialNumber,omitempty"`
	RefreshTime  int64  `json:"refreshTime,omitempty"`
	RetryTime    int64  `json:"retryTime,omitempty"`
	ExpireTime   int64  `json:"expireTime,omitempty"`
	MinimumTTL   int64  `json:"minimumTTL,omitempty"`
}

type apiRecordSet struct {
	ID         string     `json:"id,omitempty"`
	Name       string     `json:"name,omitempty"`
	Type       string     `json:"type,omitempty"`
	Etag       string     `json:"etag,omitempty"`
	Properties properties `json:"properties"`
}

// count returns how many records of each type the properties hold, by
// type.
func (p *properties) count() map[string]int {
	n := map[string]int{
		"A": len(p.ARecords), "AAAA": len(p.AAAARecords), "MX": len(p.MXRecords), "NS": len(p.NSRecords),
		"PTR": len(p.PTRRecords), "SRV": len(p.SRVRecords), "TXT": len(p.TXTRecords), "CAA": len(p.CAARecords),
	}
	if p.CNAMERecord != nil {
		n["CNAME"] = 1
	}
	if p.SOARecord != nil {
		n["SOA"] = 1
	}
	return n
}

func (rs *recordSet) view() RecordSet {
	v := RecordSet{Name: rs.name, Type: rs.typ}
	p := rs.props
	if p.TTL != nil {
		v.TTL = *p.TTL
	}
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	for _, r := range p.ARecords {
		v.Records = append(v.Records, str(r.IPv4Address))
	}
	for _, r := range p.AAAARecords {
		v.Records = append(v.Records, str(r.IPv6Address))
	}
	if p.CNAMERecord != nil {
		v.Records = append(v.Records, str(p.CNAMERecord.Cname))
	}
	for _, r := range p.MXRecords {
		var pref int32
		if r.Preference != nil {
			pref = *r.Preference
		}
		v.Records = append(v.Records, fmt.Sprintf("%d %s", pref, str(r.Exchange)))
	}
	for _, r := range p.NSRecords {
		v.Records = append(v.Records, str(r.Nsdname))
	}
	for _, r := range p.TXTRecords {
		v.Records = append(v.Records, strings.Join(r.Value, ""))
	}
	if p.SOARecord != nil {
		v.Records = append(v.Records, fmt.Sprintf("%s %s %d", p.SOARecord.Host, p.SOARecord.Email, p.SOARecord.SerialNumber))
	}
	for k, val := range p.Metadata {
		if v.Metadata == nil {
			v.Metadata = make(map[string]string)
		}
		v.Metadata[k] = str(val)
	}
	return v
}

// --- HTTP ---

// Handler returns the stand-in's HTTP handler.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(s.serve)
}

// request is a Resource Manager request's path, parsed.
type request struct {
	zone, typ, name string
	// kind is "zones", "list" (record sets of a zone) or "recordset".
	kind string
}

// parse parses a path under the stand-in's resource group, comparing the
// fixed segments case-insensitively as Resource Manager does; ok is false
// for any other path.
func (s *Server) parse(path string) (req request, ok bool) {
	seg := strings.Split(strings.Trim(path, "/"), "/")
	fixed := []string{"subscriptions", s.cfg.SubscriptionID, "resourcegroups", s.cfg.ResourceGroup, "providers", "microsoft.network", "dnszones"}
	if len(seg) < len(fixed) {
		return req, false
	}
	for i, f := range fixed {
		if !strings.EqualFold(seg[i], f) {
			return req, false
		}
	}
	rest := seg[len(fixed):]
	switch {
	case len(rest) == 0:
		return request{kind: "zones"}, true
	case len(rest) == 2 && (strings.EqualFold(rest[1], "all") || strings.EqualFold(rest[1], "recordsets")):
		return request{kind: "list", zone: strings.ToLower(rest[0])}, true
	case len(rest) == 3:
		return request{kind: "recordset", zone: strings.ToLower(rest[0]), typ: strings.ToUpper(rest[1]), name: strings.ToLower(rest[2])}, true
	}
	return req, false
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/msi/token" {
		s.serveToken(w, r)
		return
	}
	req, ok := s.parse(r.URL.Path)
	op := OpUnknown
	switch {
	case ok && req.kind == "zones" && r.Method == http.MethodGet:
		op = OpZonesList
	case ok && req.kind == "list" && r.Method == http.MethodGet:
		op = OpRecordSetsList
	case ok && req.kind == "recordset" && r.Method == http.MethodPut:
		op = OpCreateOrUpdate
	case ok && req.kind == "recordset" && r.Method == http.MethodGet:
		op = OpRecordSetsGet
	case ok && req.kind == "recordset" && r.Method == http.MethodDelete:
		op = OpRecordSetDelete
	}
	s.count.Add(op)
	if op == OpUnknown {
		writeError(w, http.StatusNotFound, "NotFound", fmt.Sprintf("stand-in: no route for %s %s", r.Method, r.URL.Path))
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.token {
		writeError(w, http.StatusUnauthorized, "InvalidAuthenticationToken", "The access token is invalid.")
		return
	}
	if v := r.URL.Query().Get("api-version"); v != APIVersion {
		code := "InvalidApiVersionParameter"
		if v == "" {
			code = "MissingApiVersionParameter"
		}
		writeError(w, http.StatusBadRequest, code, fmt.Sprintf("The api-version '%s' is invalid; the stand-in serves %s.", v, APIVersion))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.kind == "zones" {
		s.listZones(w, r)
		return
	}
	z := s.zones[req.zone]
	if z == nil {
		writeError(w, http.StatusNotFound, "ResourceNotFound", fmt.Sprintf("The Resource 'Microsoft.Network/dnszones/%s' under resource group '%s' was not found.", req.zone, s.cfg.ResourceGroup))
		return
	}
	switch op {
	case OpRecordSetsList:
		s.listRecordSets(w, r, z)
	case OpCreateOrUpdate:
		s.put(w, r, z, req)
	case OpRecordSetsGet:
		rs := z.sets[rsKey{req.name, req.typ}]
		if rs == nil {
			writeError(w, http.StatusNotFound, "NotFound", fmt.Sprintf("The resource record '%s' does not exist in resource group '%s' of subscription '%s'.", req.name, s.cfg.ResourceGroup, s.cfg.SubscriptionID))
			return
		}
		standin.WriteJSON(w, http.StatusOK, s.toAPI(z, rs))
	case OpRecordSetDelete:
		s.delete(w, r, z, req)
	}
}

func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	s.count.Add(OpToken)
	if r.Header.Get("X-IDENTITY-HEADER") != s.cfg.IdentityHeader {
		standin.WriteJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_request", "error_description": "X-IDENTITY-HEADER is missing or wrong"})
		return
	}
	resource := r.URL.Query().Get("resource")
	if resource == "" {
		standin.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request", "error_description": "resource is required"})
		return
	}
	standin.WriteJSON(w, http.StatusOK, map[string]string{
		"access_token": s.token,
		"expires_on":   strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10),
		"resource":     resource,
		"token_type":   "Bearer",
	})
}

func (s *Server) resourceID() string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Network/dnszones", s.cfg.SubscriptionID, s.cfg.ResourceGroup)
}

func (s *Server) toAPI(z *zone, rs *recordSet) apiRecordSet {
	p := rs.props
	p.Fqdn = z.name + "."
	if rs.name != "@" {
		p.Fqdn = rs.name + "." + p.Fqdn
	}
	p.ProvisioningState = "Succeeded"
	return apiRecordSet{
		ID:   fmt.Sprintf("%s/%s/%s/%s", s.resourceID(), z.name, rs.typ, rs.name),
		Name: rs.name, Type: "Microsoft.Network/dnszones/" + rs.typ, Etag: rs.etag, Properties: p,
	}
}

func (s *Server) listZones(w http.ResponseWriter, r *http.Request) {
	names := make([]string, 0, len(s.zones))
	for n := range s.zones {
		names = append(names, n)
	}
	slices.Sort(names)
	from, to, next, ok := s.page(w, r, len(names))
	if !ok {
		return
	}
	out := make([]map[string]any, 0, to-from)
	for _, n := range names[from:to] {
		z := s.zones[n]
		var ns []string
		for _, r := range z.sets[rsKey{"@", "NS"}].props.NSRecords {
			ns = append(ns, *r.Nsdname)
		}
		out = append(out, map[string]any{
			"id": s.resourceID() + "/" + z.name, "name": z.name, "type": "Microsoft.Network/dnszones", "location": "global",
			"properties": map[string]any{"maxNumberOfRecordSets": 10000, "numberOfRecordSets": len(z.sets), "nameServers": ns, "zoneType": "Public"},
		})
	}
	resp := map[string]any{"value": out}
	if next != "" {
		resp["nextLink"] = next
	}
	standin.WriteJSON(w, http.StatusOK, resp)
}

func (s *Server) listRecordSets(w http.ResponseWriter, r *http.Request, z *zone) {
	sets := z.sorted()
	from, to, next, ok := s.page(w, r, len(sets))
	if !ok {
		return
	}
	out := make([]apiRecordSet, 0, to-from)
	for _, rs := range sets[from:to] {
		out = append(out, s.toAPI(z, rs))
	}
	resp := map[string]any{"value": out}
	if next != "" {
		resp["nextLink"] = next
	}
	standin.WriteJSON(w, http.StatusOK, resp)
}

// page returns the bounds of the page the request's $skipToken and $top
// select among n items and the absolute nextLink ("" at the end), or
// answers 400 and returns false.
func (s *Server) page(w http.ResponseWriter, r *http.Request, n int) (from, to int, next string, ok bool) {
	q := r.URL.Query()
	size := s.cfg.PageSize
	if t := q.Get("$top"); t != "" {
		v, err := strconv.Atoi(t)
		if err != nil || v <= 0 {
			writeError(w, http.StatusBadRequest, "InvalidParameter", fmt.Sprintf("The value '%s' of $top is invalid.", t))
			return 0, 0, "", false
		}
		size = min(size, v)
	}
	if t := q.Get("$skipToken"); t != "" {
		v, err := strconv.Atoi(t)
		if err != nil || v <= 0 || v > n {
			writeError(w, http.StatusBadRequest, "InvalidParameter", fmt.Sprintf("The value '%s' of $skipToken is invalid.", t))
			return 0, 0, "", false
		}
		from = v
	}
	to = min(from+size, n)
	if to < n {
		q.Set("$skipToken", strconv.Itoa(to))
		next = s.srv.URL + r.URL.Path + "?" + q.Encode()
	}
	return from, to, next, true
}

func (s *Server) put(w http.ResponseWriter, r *http.Request, z *zone, req request) {
	var body apiRecordSet
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "InvalidRequestFormat", "Cannot parse the request: "+err.Error())
		return
	}
	p := body.Properties
	if msg := s.validate(req, &p); msg != "" {
		writeError(w, http.StatusBadRequest, "BadRequest", msg)
		return
	}
	k := rsKey{req.name, req.typ}
	cur := z.sets[k]
	if !s.preconditions(w, r, cur) {
		return
	}
	for other := range z.sets {
		if other.name == req.name && other.typ != req.typ && (other.typ == "CNAME" || req.typ == "CNAME") {
			writeError(w, http.StatusConflict, "Conflict", fmt.Sprintf("The record set %s of type %s conflicts with the existing record set of type %s at the same name.", req.name, req.typ, other.typ))
			return
		}
	}
	p.Fqdn, p.ProvisioningState = "", ""
	rs := &recordSet{name: req.name, typ: req.typ, etag: s.nextEtag(), props: p}
	z.sets[k] = rs
	status := http.StatusOK
	if cur == nil {
		status = http.StatusCreated
	}
	standin.WriteJSON(w, status, s.toAPI(z, rs))
}

// validate checks a PUT's properties against the path's type; it returns
// the refusal's message, "" when they are valid.
func (s *Server) validate(req request, p *properties) string {
	switch req.typ {
	case "A", "AAAA", "CAA", "CNAME", "MX", "NS", "PTR", "SOA", "SRV", "TXT":
	default:
		return fmt.Sprintf("The record type '%s' is not supported.", req.typ)
	}
	if req.typ == "SOA" && req.name != "@" {
		return "The SOA record set must be at the zone apex."
	}
	if req.typ == "CNAME" && req.name == "@" {
		return "A CNAME record set cannot be created at the zone apex."
	}
	if len(p.TargetResource) > 0 && string(p.TargetResource) != "null" {
		return "stand-in: alias record sets (targetResource) are not modelled."
	}
	if p.TTL != nil && (*p.TTL < 0 || *p.TTL > 2147483647) {
		return fmt.Sprintf("The TTL %d is out of range.", *p.TTL)
	}
	for typ, n := range p.count() {
		if n > 0 && typ != req.typ {
			return fmt.Sprintf("The record set of type %s holds records of type %s.", req.typ, typ)
		}
		if n > s.cfg.MaxRecordsPerSet {
			return fmt.Sprintf("The record set holds %d records; at most %d are allowed.", n, s.cfg.MaxRecordsPerSet)
		}
	}
	for _, a := range p.ARecords {
		if a.IPv4Address == nil {
			return "An A record has no ipv4Address."
		}
		if ip := net.ParseIP(*a.IPv4Address); ip == nil || ip.To4() == nil || strings.Contains(*a.IPv4Address, ":") {
			return fmt.Sprintf("The IPv4 address '%s' is invalid.", *a.IPv4Address)
		}
	}
	for _, a := range p.AAAARecords {
		if a.IPv6Address == nil {
			return "An AAAA record has no ipv6Address."
		}
		if ip := net.ParseIP(*a.IPv6Address); ip == nil || !strings.Contains(*a.IPv6Address, ":") {
			return fmt.Sprintf("The IPv6 address '%s' is invalid.", *a.IPv6Address)
		}
	}
	if p.CNAMERecord != nil && (p.CNAMERecord.Cname == nil || *p.CNAMERecord.Cname == "") {
		return "The CNAME record has no cname."
	}
	for _, m := range p.MXRecords {
		if m.Exchange == nil || m.Preference == nil {
			return "An MX record needs a preference and an exchange."
		}
	}
	for _, n := range p.NSRecords {
		if n.Nsdname == nil || *n.Nsdname == "" {
			return "An NS record has no nsdname."
		}
	}
	for _, t := range p.TXTRecords {
		if len(t.Value) == 0 {
			return "A TXT record has no value."
		}
	}
	return ""
}

// preconditions applies If-Match and If-None-Match to the current record
// set cur (nil when none); it answers 412 and returns false when they
// fail.
func (s *Server) preconditions(w http.ResponseWriter, r *http.Request, cur *recordSet) bool {
	if inm := r.Header.Get("If-None-Match"); inm == "*" && cur != nil {
		writeError(w, http.StatusPreconditionFailed, "PreconditionFailed", fmt.Sprintf("The record set %s of type %s exists (If-None-Match: *).", cur.name, cur.typ))
		return false
	}
	if im := r.Header.Get("If-Match"); im != "" && (cur == nil || (im != "*" && im != cur.etag)) {
		writeError(w, http.StatusPreconditionFailed, "PreconditionFailed", "The etag given in If-Match does not match the record set's.")
		return false
	}
	return true
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request, z *zone, req request) {
	if req.name == "@" && (req.typ == "SOA" || req.typ == "NS") {
		writeError(w, http.StatusBadRequest, "BadRequest", fmt.Sprintf("The %s record set at the zone apex cannot be deleted.", req.typ))
		return
	}
	k := rsKey{req.name, req.typ}
	cur := z.sets[k]
	if !s.preconditions(w, r, cur) {
		return
	}
	if cur == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	delete(z.sets, k)
	w.WriteHeader(http.StatusOK)
}

// writeError answers in Resource Manager's error envelope.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("x-ms-error-code", code)
	standin.WriteJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

// WriteCertificate writes a new self-signed certificate for 127.0.0.1,
// ::1 and localhost, and its key, as PEM files in dir; the certificate is
// its own CA, so a process that trusts it (SSL_CERT_FILE=certFile) can
// reach a stand-in started with Config{CertFile: certFile, KeyFile:
// keyFile}.
func WriteCertificate(dir string) (certFile, keyFile string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", fmt.Errorf("generating the key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return "", "", fmt.Errorf("generating the serial number: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "azuredns stand-in"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return "", "", fmt.Errorf("creating the certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", "", fmt.Errorf("encoding the key: %w", err)
	}
	certFile, keyFile = filepath.Join(dir, "standin-cert.pem"), filepath.Join(dir, "standin-key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return "", "", fmt.Errorf("writing the certificate: %w", err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return "", "", fmt.Errorf("writing the key: %w", err)
	}
	return certFile, keyFile, nil
}
