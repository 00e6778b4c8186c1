// Package clouddns is a local stand-in for the Google Cloud DNS API (v1)
// as external-dns's google provider uses it through
// google.golang.org/api/dns/v1: an in-memory project of managed zones and
// resource record sets behind an httptest server, with an OAuth 2.0 token
// endpoint for a service account.
//
// # What it models
//
//   - POST /token: the token endpoint a service account's JSON names
//     (token_uri); any assertion gets the server's access token, which
//     every API call must then carry ("Authorization: Bearer ...", else
//     401).
//   - managedZones.list, paged with pageToken/nextPageToken (and
//     maxResults); a zone is addressed by its name or its numeric id.
//   - rrsets.list, paged likewise, filtered by the name and type query
//     parameters, in (name, type) order.
//   - changes.create: additions and deletions applied as one transaction
//     (all or nothing), deletions first. A deletion must name an existing
//     record set (404 notFound) and match it exactly, TTL and rrdatas, in
//     any order (412 conditionNotMet). An addition of a record set that
//     exists, after the deletions, is refused (409 alreadyExists). Each
//     record set is validated: a fully qualified name (trailing dot)
//     inside the zone, a known type, a TTL that is not negative, at least
//     one rrdata, IPv4 for A, IPv6 for AAAA, one rrdata for CNAME and none
//     at the apex, host names ending in a dot in CNAME, NS, MX and SRV
//     data (400 invalid). A name left with a CNAME beside another type is
//     refused (400). More additions or deletions than
//     [Config.MaxAdditions] or [Config.MaxDeletions] (the
//     rrsetAdditionsPerChange and rrsetDeletionsPerChange quotas, 1000
//     here as external-dns's default --google-batch-change-size assumes)
//     are refused (403 quotaExceeded). An empty change is refused (400).
//   - changes.get, for the changes created.
//   - A new zone holds its apex SOA and NS record sets, as Cloud DNS
//     creates them.
//   - Errors in Google's JSON error envelope (error.code, error.message,
//     error.errors[].reason), which googleapi.Error decodes.
//
// # What it does not model
//
// Routing policies (an addition with routingPolicy is refused with 400
// instead of stored: external-dns v0.23 never sends one), DNSSEC and
// signatureRrdatas, private and peering zones (every zone is public),
// managed zone creation through the API, the pending state of a change
// (every change is "done" when created), rrdata canonicalisation (rrdatas
// are kept as sent; names are lower-cased), the protection of the apex
// SOA and NS, quotas other than the two above, IAM, and rate limits.
package clouddns

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zonesync/zonesync/provider/externaldns/internal/standin"
)

// Operation names under which requests are counted ([Server.Count]).
const (
	OpToken         = "token"
	OpZonesList     = "managedZones.list"
	OpRRsetsList    = "rrsets.list"
	OpChangesCreate = "changes.create"
	OpChangesGet    = "changes.get"
	// OpUnknown counts requests the stand-in has no route for (answered
	// 404).
	OpUnknown = "unknown"
)

// Config describes the stand-in. The zero value serves the project
// "zonesync-test" with the defaults below.
type Config struct {
	// Project is the project id; empty means "zonesync-test".
	Project string
	// PageSize is the most zones or record sets a list returns per page
	// when the request asks for no fewer (maxResults); zero means 100.
	PageSize int
	// MaxAdditions and MaxDeletions are the most record sets one change
	// may add or delete; zero means 1000.
	MaxAdditions, MaxDeletions int
}

// RRset is one resource record set as Cloud DNS holds it: Name fully
// qualified with its trailing dot.
type RRset struct {
	Name    string
	Type    string
	TTL     int64
	Rrdatas []string
}

// String formats the record set as "name type ttl [rrdatas]".
func (r RRset) String() string {
	return fmt.Sprintf("%s %s %d %v", r.Name, r.Type, r.TTL, r.Rrdatas)
}

// Server is a running stand-in. It is safe for concurrent use.
type Server struct {
	cfg   Config
	srv   *httptest.Server
	token string
	count standin.Counter

	mu     sync.Mutex
	zones  map[string]*zone // by zone name
	nextID uint64
}

type rrKey struct{ name, typ string }

type zone struct {
	name, dnsName string
	id            uint64
	created       time.Time
	rrsets        map[rrKey]RRset
	changes       []*change
}

// Start starts a stand-in on 127.0.0.1, stopped when the test ends.
func Start(t testing.TB, cfg Config) *Server {
	t.Helper()
	s := New(cfg)
	s.srv = httptest.NewServer(s.Handler())
	t.Cleanup(s.srv.Close)
	return s
}

// New returns a stand-in that is not listening: serve [Server.Handler]
// yourself, or use [Start].
func New(cfg Config) *Server {
	if cfg.Project == "" {
		cfg.Project = "zonesync-test"
	}
	if cfg.PageSize <= 0 {
		cfg.PageSize = 100
	}
	if cfg.MaxAdditions <= 0 {
		cfg.MaxAdditions = 1000
	}
	if cfg.MaxDeletions <= 0 {
		cfg.MaxDeletions = 1000
	}
	return &Server{cfg: cfg, token: "clouddns-standin-token", zones: make(map[string]*zone), nextID: 1000}
}

// URL returns the base URL of a started stand-in (no trailing slash).
func (s *Server) URL() string { return s.srv.URL }

// Project returns the project id the stand-in serves.
func (s *Server) Project() string { return s.cfg.Project }

// AccessToken returns the token the token endpoint issues and the API
// requires.
func (s *Server) AccessToken() string { return s.token }

// Count returns how many requests of the operation op were served.
func (s *Server) Count(op string) int { return s.count.Count(op) }

// Counts returns the requests served by operation.
func (s *Server) Counts() map[string]int { return s.count.Counts() }

// ResetCounts forgets the request counts.
func (s *Server) ResetCounts() { s.count.Reset() }

// CreateZone adds a public managed zone called name for the domain
// dnsName, with its apex SOA and NS record sets. It panics if the zone
// exists.
func (s *Server) CreateZone(name, dnsName string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.zones[name]; ok {
		panic("clouddns: zone " + name + " exists")
	}
	dnsName = fqdn(dnsName)
	s.nextID++
	z := &zone{name: name, dnsName: dnsName, id: s.nextID, created: time.Now().UTC(), rrsets: make(map[rrKey]RRset)}
	z.put(RRset{Name: dnsName, Type: "SOA", TTL: 21600, Rrdatas: []string{
		"ns-cloud-a1.googledomains.com. cloud-dns-hostmaster.google.com. 1 21600 3600 259200 300",
	}})
	z.put(RRset{Name: dnsName, Type: "NS", TTL: 21600, Rrdatas: []string{
		"ns-cloud-a1.googledomains.com.", "ns-cloud-a2.googledomains.com.",
		"ns-cloud-a3.googledomains.com.", "ns-cloud-a4.googledomains.com.",
	}})
	s.zones[name] = z
}

// SetRRset stores rr in the zone called zone as it is, replacing a record
// set of the same name and type, without a change and without validation:
// for seeding a test. It panics if the zone does not exist.
func (s *Server) SetRRset(zoneName string, rr RRset) {
	s.mu.Lock()
	defer s.mu.Unlock()
	z := s.zones[zoneName]
	if z == nil {
		panic("clouddns: no zone " + zoneName)
	}
	z.put(rr)
}

// RRsets returns the record sets of the zone called zone in (name, type)
// order, each a copy; nil when the zone does not exist.
func (s *Server) RRsets(zoneName string) []RRset {
	s.mu.Lock()
	defer s.mu.Unlock()
	z := s.zones[zoneName]
	if z == nil {
		return nil
	}
	return z.sorted("", "")
}

func (z *zone) put(rr RRset) {
	rr.Name = strings.ToLower(rr.Name)
	rr.Rrdatas = slices.Clone(rr.Rrdatas)
	z.rrsets[rrKey{rr.Name, rr.Type}] = rr
}

// sorted returns the zone's record sets in (name, type) order, only those
// called name and of type typ when these are not empty.
func (z *zone) sorted(name, typ string) []RRset {
	out := make([]RRset, 0, len(z.rrsets))
	for k, rr := range z.rrsets {
		if (name != "" && k.name != strings.ToLower(fqdn(name))) || (typ != "" && k.typ != typ) {
			continue
		}
		rr.Rrdatas = slices.Clone(rr.Rrdatas)
		out = append(out, rr)
	}
	slices.SortFunc(out, func(a, b RRset) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Type, b.Type)
	})
	return out
}

// Handler returns the stand-in's HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	const zones = "/dns/v1/projects/{project}/managedZones"
	mux.HandleFunc("POST /token", s.serveToken)
	mux.HandleFunc("GET "+zones, s.api(OpZonesList, s.listZones))
	mux.HandleFunc("GET "+zones+"/{zone}/rrsets", s.api(OpRRsetsList, s.listRRsets))
	mux.HandleFunc("POST "+zones+"/{zone}/changes", s.api(OpChangesCreate, s.createChange))
	mux.HandleFunc("GET "+zones+"/{zone}/changes/{id}", s.api(OpChangesGet, s.getChange))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.count.Add(OpUnknown)
		writeError(w, http.StatusNotFound, "notFound", fmt.Sprintf("stand-in: no route for %s %s", r.Method, r.URL.Path))
	})
	return mux
}

func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	s.count.Add(OpToken)
	if err := r.ParseForm(); err != nil || r.PostForm.Get("assertion") == "" {
		standin.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request", "error_description": "no assertion"})
		return
	}
	standin.WriteJSON(w, http.StatusOK, map[string]any{"access_token": s.token, "token_type": "Bearer", "expires_in": 3600})
}

// api counts the operation op, checks the token and the project, then
// calls h with the project's state locked.
func (s *Server) api(op string, h func(http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.count.Add(op)
		if r.Header.Get("Authorization") != "Bearer "+s.token {
			writeError(w, http.StatusUnauthorized, "required", "Request is missing required authentication credential.")
			return
		}
		if p := r.PathValue("project"); p != s.cfg.Project {
			writeError(w, http.StatusForbidden, "forbidden", fmt.Sprintf("The caller does not have permission on project %q.", p))
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		h(w, r)
	}
}

// zoneOf returns the zone the request's {zone} names (by name or id), or
// answers 404 and returns nil.
func (s *Server) zoneOf(w http.ResponseWriter, r *http.Request) *zone {
	ref := r.PathValue("zone")
	if z := s.zones[ref]; z != nil {
		return z
	}
	for _, z := range s.zones {
		if strconv.FormatUint(z.id, 10) == ref {
			return z
		}
	}
	writeError(w, http.StatusNotFound, "notFound", fmt.Sprintf("The 'parameters.managedZone' resource named '%s' does not exist.", ref))
	return nil
}

type apiZone struct {
	Kind         string   `json:"kind"`
	Name         string   `json:"name"`
	DNSName      string   `json:"dnsName"`
	ID           string   `json:"id"`
	Visibility   string   `json:"visibility"`
	CreationTime string   `json:"creationTime"`
	NameServers  []string `json:"nameServers"`
}

func (s *Server) listZones(w http.ResponseWriter, r *http.Request) {
	names := make([]string, 0, len(s.zones))
	for n := range s.zones {
		names = append(names, n)
	}
	slices.Sort(names)
	if q := r.URL.Query().Get("dnsName"); q != "" {
		names = slices.DeleteFunc(names, func(n string) bool { return s.zones[n].dnsName != strings.ToLower(fqdn(q)) })
	}
	from, to, next, ok := s.page(w, r, len(names))
	if !ok {
		return
	}
	out := make([]apiZone, 0, to-from)
	for _, n := range names[from:to] {
		z := s.zones[n]
		out = append(out, apiZone{Kind: "dns#managedZone", Name: z.name, DNSName: z.dnsName, ID: strconv.FormatUint(z.id, 10),
			Visibility: "public", CreationTime: z.created.Format(time.RFC3339Nano), NameServers: z.rrsets[rrKey{z.dnsName, "NS"}].Rrdatas})
	}
	standin.WriteJSON(w, http.StatusOK, map[string]any{"kind": "dns#managedZonesListResponse", "managedZones": out, "nextPageToken": next})
}

type apiRRset struct {
	Kind          string          `json:"kind,omitempty"`
	Name          string          `json:"name"`
	Type          string          `json:"type"`
	TTL           int64           `json:"ttl,omitempty"`
	Rrdatas       []string        `json:"rrdatas,omitempty"`
	RoutingPolicy json.RawMessage `json:"routingPolicy,omitempty"`
}

func toAPI(rr RRset) apiRRset {
	return apiRRset{Kind: "dns#resourceRecordSet", Name: rr.Name, Type: rr.Type, TTL: rr.TTL, Rrdatas: rr.Rrdatas}
}

func (s *Server) listRRsets(w http.ResponseWriter, r *http.Request) {
	z := s.zoneOf(w, r)
	if z == nil {
		return
	}
	q := r.URL.Query()
	if q.Get("type") != "" && q.Get("name") == "" {
		writeError(w, http.StatusBadRequest, "invalid", "Invalid value for 'parameters.type': the name must be given with the type.")
		return
	}
	sets := z.sorted(q.Get("name"), q.Get("type"))
	from, to, next, ok := s.page(w, r, len(sets))
	if !ok {
		return
	}
	out := make([]apiRRset, 0, to-from)
	for _, rr := range sets[from:to] {
		out = append(out, toAPI(rr))
	}
	standin.WriteJSON(w, http.StatusOK, map[string]any{"kind": "dns#resourceRecordSetsListResponse", "rrsets": out, "nextPageToken": next})
}

// page returns the bounds of the page the request's pageToken and
// maxResults select among n items and the token of the next page ("" at
// the end), or answers 400 and returns false.
func (s *Server) page(w http.ResponseWriter, r *http.Request, n int) (from, to int, next string, ok bool) {
	q := r.URL.Query()
	size := s.cfg.PageSize
	if m := q.Get("maxResults"); m != "" {
		v, err := strconv.Atoi(m)
		if err != nil || v <= 0 {
			writeError(w, http.StatusBadRequest, "invalid", fmt.Sprintf("Invalid value for 'parameters.maxResults': '%s'", m))
			return 0, 0, "", false
		}
		size = min(size, v)
	}
	if t := q.Get("pageToken"); t != "" {
		v, err := strconv.Atoi(strings.TrimPrefix(t, "p"))
		if !strings.HasPrefix(t, "p") || err != nil || v <= 0 || v > n {
			writeError(w, http.StatusBadRequest, "invalid", fmt.Sprintf("Invalid value for 'parameters.pageToken': '%s'", t))
			return 0, 0, "", false
		}
		from = v
	}
	to = min(from+size, n)
	if to < n {
		next = "p" + strconv.Itoa(to)
	}
	return from, to, next, true
}

type change struct {
	Kind      string     `json:"kind"`
	ID        string     `json:"id"`
	StartTime string     `json:"startTime"`
	Status    string     `json:"status"`
	Additions []apiRRset `json:"additions,omitempty"`
	Deletions []apiRRset `json:"deletions,omitempty"`
}

func (s *Server) createChange(w http.ResponseWriter, r *http.Request) {
	z := s.zoneOf(w, r)
	if z == nil {
		return
	}
	var c change
	if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
		writeError(w, http.StatusBadRequest, "parseError", "stand-in: the change does not decode: "+err.Error())
		return
	}
	switch {
	case len(c.Additions) == 0 && len(c.Deletions) == 0:
		writeError(w, http.StatusBadRequest, "required", "The 'entity.change' parameter is required but was missing.")
		return
	case len(c.Additions) > s.cfg.MaxAdditions:
		writeError(w, http.StatusForbidden, "quotaExceeded", fmt.Sprintf("Quota exceeded for quota 'rrsetAdditionsPerChange' (%d additions, limit %d).", len(c.Additions), s.cfg.MaxAdditions))
		return
	case len(c.Deletions) > s.cfg.MaxDeletions:
		writeError(w, http.StatusForbidden, "quotaExceeded", fmt.Sprintf("Quota exceeded for quota 'rrsetDeletionsPerChange' (%d deletions, limit %d).", len(c.Deletions), s.cfg.MaxDeletions))
		return
	}
	next := make(map[rrKey]RRset, len(z.rrsets))
	for k, rr := range z.rrsets {
		next[k] = rr
	}
	touched := make(map[string]bool)
	for i, d := range c.Deletions {
		field := fmt.Sprintf("entity.change.deletions[%d]", i)
		rr, status, reason, msg := z.validate(field, d)
		if status != 0 {
			writeError(w, status, reason, msg)
			return
		}
		k := rrKey{rr.Name, rr.Type}
		cur, ok := next[k]
		if !ok {
			writeError(w, http.StatusNotFound, "notFound", fmt.Sprintf("The '%s' resource named '%s (%s)' does not exist.", field, rr.Name, rr.Type))
			return
		}
		if cur.TTL != rr.TTL || !sameSet(cur.Rrdatas, rr.Rrdatas) {
			writeError(w, http.StatusPreconditionFailed, "conditionNotMet", fmt.Sprintf("Precondition not met for '%s'", field))
			return
		}
		delete(next, k)
		touched[rr.Name] = true
	}
	for i, a := range c.Additions {
		field := fmt.Sprintf("entity.change.additions[%d]", i)
		rr, status, reason, msg := z.validate(field, a)
		if status != 0 {
			writeError(w, status, reason, msg)
			return
		}
		k := rrKey{rr.Name, rr.Type}
		if _, ok := next[k]; ok {
			writeError(w, http.StatusConflict, "alreadyExists", fmt.Sprintf("The resource '%s' named '%s (%s)' already exists", field, rr.Name, rr.Type))
			return
		}
		next[k] = rr
		touched[rr.Name] = true
	}
	for name := range touched {
		if _, ok := next[rrKey{name, "CNAME"}]; !ok {
			continue
		}
		for k := range next {
			if k.name == name && k.typ != "CNAME" {
				writeError(w, http.StatusBadRequest, "cnameResourceRecordSetConflict",
					fmt.Sprintf("The resource record set '%s (CNAME)' conflicts with the record set of type %s at the same name.", name, k.typ))
				return
			}
		}
	}
	z.rrsets = next
	c.Kind = "dns#change"
	c.ID = strconv.Itoa(len(z.changes) + 1)
	c.StartTime = time.Now().UTC().Format(time.RFC3339Nano)
	c.Status = "done"
	z.changes = append(z.changes, &c)
	standin.WriteJSON(w, http.StatusOK, c)
}

func (s *Server) getChange(w http.ResponseWriter, r *http.Request) {
	z := s.zoneOf(w, r)
	if z == nil {
		return
	}
	id := r.PathValue("id")
	for _, c := range z.changes {
		if c.ID == id {
			standin.WriteJSON(w, http.StatusOK, c)
			return
		}
	}
	writeError(w, http.StatusNotFound, "notFound", fmt.Sprintf("The 'parameters.changeId' resource named '%s' does not exist.", id))
}

// knownTypes are the record types Cloud DNS accepts in a record set.
var knownTypes = []string{
	"A", "AAAA", "CAA", "CNAME", "DNSKEY", "DS", "HTTPS", "IPSECKEY", "MX", "NAPTR",
	"NS", "PTR", "SOA", "SPF", "SRV", "SSHFP", "SVCB", "TLSA", "TXT",
}

// validate checks one record set of a change, named field in errors, and
// returns it in stored form (name lower-cased); status is 0 when it is
// valid, else the HTTP status, reason and message of the refusal.
func (z *zone) validate(field string, a apiRRset) (rr RRset, status int, reason, msg string) {
	invalid := func(what, value string) (RRset, int, string, string) {
		return RRset{}, http.StatusBadRequest, "invalid", fmt.Sprintf("Invalid value for '%s.%s': '%s'", field, what, value)
	}
	name := strings.ToLower(a.Name)
	switch {
	case !strings.HasSuffix(name, "."):
		return invalid("name", a.Name)
	case name != z.dnsName && !strings.HasSuffix(name, "."+z.dnsName):
		return RRset{}, http.StatusBadRequest, "invalid", fmt.Sprintf("Invalid value for '%s.name': '%s' is not within the zone '%s'", field, a.Name, z.dnsName)
	case !slices.Contains(knownTypes, a.Type):
		return invalid("type", a.Type)
	case a.TTL < 0:
		return invalid("ttl", strconv.FormatInt(a.TTL, 10))
	case len(a.RoutingPolicy) > 0:
		return RRset{}, http.StatusBadRequest, "invalid", fmt.Sprintf("stand-in: '%s.routingPolicy' is not modelled", field)
	case len(a.Rrdatas) == 0:
		return RRset{}, http.StatusBadRequest, "required", fmt.Sprintf("The '%s.rrdata' parameter is required but was missing.", field)
	case a.Type == "CNAME" && len(a.Rrdatas) != 1:
		return invalid("rrdata", strings.Join(a.Rrdatas, ","))
	case a.Type == "CNAME" && name == z.dnsName:
		return invalid("name", a.Name)
	}
	for i, d := range a.Rrdatas {
		what := fmt.Sprintf("rrdata[%d]", i)
		switch a.Type {
		case "A":
			if ip := net.ParseIP(d); ip == nil || ip.To4() == nil || strings.Contains(d, ":") {
				return invalid(what, d)
			}
		case "AAAA":
			if ip := net.ParseIP(d); ip == nil || !strings.Contains(d, ":") {
				return invalid(what, d)
			}
		case "CNAME", "NS":
			if !strings.HasSuffix(d, ".") {
				return invalid(what, d)
			}
		case "MX", "SRV":
			f := strings.Fields(d)
			if len(f) == 0 || !strings.HasSuffix(f[len(f)-1], ".") {
				return invalid(what, d)
			}
		}
	}
	return RRset{Name: name, Type: a.Type, TTL: a.TTL, Rrdatas: slices.Clone(a.Rrdatas)}, 0, "", ""
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func fqdn(name string) string {
	if strings.HasSuffix(name, ".") {
		return name
	}
	return name + "."
}

// writeError answers in Google's JSON error envelope.
func writeError(w http.ResponseWriter, status int, reason, msg string) {
	standin.WriteJSON(w, status, map[string]any{"error": map[string]any{
		"code":    status,
		"message": msg,
		"errors":  []map[string]string{{"domain": "global", "reason": reason, "message": msg}},
	}})
}
