// Package cloudflare is a local stand-in for Cloudflare's API v4 (zones
// and DNS records) as external-dns's cloudflare provider uses it through
// github.com/cloudflare/cloudflare-go/v7: an in-memory account of zones
// and DNS records behind an httptest server, under the path /client/v4/
// (CLOUDFLARE_BASE_URL=<URL>/client/v4/).
//
// Cloudflare holds records, not record sets: one record per name, type
// and content, each with its own id, TTL and proxied flag.
//
// # What it models
//
//   - API token authentication ("Authorization: Bearer <token>", else 403
//     with code 10000).
//   - GET /zones (filtered by name) and GET /zones/{id}; GET
//     /zones/{id}/dns_records (filtered by exact name, type and content), paged
//     with page and per_page (zones: 5 to 50, 20 by default; records: 5 to
//     5,000,000, 100 by default) and result_info; a page past the last is
//     empty, which ends the SDK's auto-pager.
//   - POST /zones/{id}/dns_records (create), GET, PUT (overwrite) and
//     DELETE .../{record_id}; an unknown record id is 404 code 81044.
//   - POST /zones/{id}/dns_records/batch: deletes, puts and posts run in
//     that order as one transaction (all or nothing: the first failing
//     operation's error is returned and nothing is kept); more operations
//     than [Config.BatchLimit] (200, the Free plan's) are refused.
//   - Validation as Cloudflare documents or reports it: a record identical
//     to one that exists (name, type, content) is refused with code 81058
//     ("An identical record already exists."); a CNAME beside any record
//     at its name with 81053, any record beside a CNAME with 81054; an A
//     whose content is not an IPv4 address with 9005 (AAAA likewise, with
//     the stand-in's code 9006); a TTL other than 1 (automatic) or 60 to
//     86400 with 9021; proxied on a type other than A, AAAA and CNAME with
//     9004 (in the error chain of 1004 "DNS Validation Error"). Errors are
//     HTTP 400 in Cloudflare's v4 envelope ({"success":false,"errors":[{code,
//     message}]}).
//   - Names: relative names and "@" are completed with the zone's name,
//     names are lower-cased and stored without a trailing dot; a proxied
//     record's TTL is stored as 1 (automatic).
//
// # What it does not model
//
// PATCH (record edits, and patches in a batch: refused with 400), API
// keys (X-Auth-Email/X-Auth-Key), record types with structured data
// (SRV, TLSA, CAA, ...: refused with 400), the "data", "settings" and
// "meta" fields, which addresses may be proxied (Cloudflare refuses some,
// code 9003), tags and comment limits, custom hostnames, regional
// hostnames, zone plans other than Free, rate limits (429) and record
// count quotas.
package cloudflare

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
	OpZonesList   = "zones.list"
	OpZonesGet    = "zones.get"
	OpRecordsList = "dns_records.list"
	OpRecordsGet  = "dns_records.get"
	OpCreate      = "dns_records.create"
	OpUpdate      = "dns_records.update"
	OpDelete      = "dns_records.delete"
	OpBatch       = "dns_records.batch"
	// OpUnknown counts requests the stand-in has no route for (answered
	// 404 with code 7003).
	OpUnknown = "unknown"
)

// Cloudflare's error codes the stand-in answers with.
const (
	CodeAuthentication  = 10000
	CodeNoRoute         = 7003
	CodeValidation      = 1004
	CodeNotProxiable    = 9004
	CodeInvalidIPv4     = 9005
	CodeInvalidIPv6     = 9006
	CodeInvalidTTL      = 9021
	CodeRecordNotFound  = 81044
	CodeCNAMEConflict   = 81053
	CodeCNAMEExists     = 81054
	CodeIdenticalRecord = 81058
)

// Config describes the stand-in. The zero value uses the defaults below.
type Config struct {
	// Token is the API token every request must carry; empty means
	// "cloudflare-standin-token".
	Token string
	// BatchLimit is the most operations one batch may hold; zero means
	// 200.
	BatchLimit int
}

// Record is one DNS record as Cloudflare holds it.
type Record struct {
	ID      string
	Name    string
	Type    string
	Content string
	TTL     int
	Proxied bool
	Comment string
}

// String formats the record as "name ttl type content", with "proxied"
// after it when it is.
func (r Record) String() string {
	s := fmt.Sprintf("%s %d %s %s", r.Name, r.TTL, r.Type, r.Content)
	if r.Proxied {
		s += " proxied"
	}
	return s
}

// Server is a running stand-in. It is safe for concurrent use.
type Server struct {
	cfg   Config
	srv   *httptest.Server
	count standin.Counter

	mu     sync.Mutex
	zones  []*zone // in creation order
	nextID int
}

type zone struct {
	id, name string
	created  time.Time
	records  map[string]*apiRecord // by id
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
	if cfg.Token == "" {
		cfg.Token = "cloudflare-standin-token"
	}
	if cfg.BatchLimit <= 0 {
		cfg.BatchLimit = 200
	}
	return &Server{cfg: cfg}
}

// URL returns the base URL of a started stand-in (no trailing slash).
func (s *Server) URL() string { return s.srv.URL }

// BaseURL returns the API's base URL, for CLOUDFLARE_BASE_URL.
func (s *Server) BaseURL() string { return s.srv.URL + "/client/v4/" }

// Token returns the API token the stand-in requires.
func (s *Server) Token() string { return s.cfg.Token }

// Count returns how many requests of the operation op were served.
func (s *Server) Count(op string) int { return s.count.Count(op) }

// Counts returns the requests served by operation.
func (s *Server) Counts() map[string]int { return s.count.Counts() }

// ResetCounts forgets the request counts.
func (s *Server) ResetCounts() { s.count.Reset() }

// CreateZone adds the zone name and returns its id.
func (s *Server) CreateZone(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	z := &zone{id: s.newID(), name: strings.ToLower(strings.TrimSuffix(name, ".")), created: time.Now().UTC(), records: make(map[string]*apiRecord)}
	s.zones = append(s.zones, z)
	return z.id
}

// AddRecord stores r in the zone called zone as it is, with a new id that
// it returns, without validation: for seeding a test. It panics if the
// zone does not exist.
func (s *Server) AddRecord(zoneName string, r Record) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	z := s.zoneByName(zoneName)
	if z == nil {
		panic("cloudflare: no zone " + zoneName)
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	rec := &apiRecord{
		ID: s.newID(), ZoneID: z.id, ZoneName: z.name, Name: z.fqdn(r.Name), Type: r.Type, Content: r.Content,
		Proxiable: slices.Contains(proxiable, r.Type), Proxied: r.Proxied, TTL: r.TTL,
		Tags: []string{}, Settings: map[string]any{}, Meta: map[string]any{}, CreatedOn: now, ModifiedOn: now,
	}
	if r.Comment != "" {
		rec.Comment = new(r.Comment)
	}
	z.records[rec.ID] = rec
	return rec.ID
}

// Records returns the records of the zone called name in (name, type,
// content) order; nil when the zone does not exist.
func (s *Server) Records(zoneName string) []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	z := s.zoneByName(zoneName)
	if z == nil {
		return nil
	}
	var out []Record
	for _, r := range z.sorted() {
		out = append(out, Record{ID: r.ID, Name: r.Name, Type: r.Type, Content: r.Content, TTL: r.TTL, Proxied: r.Proxied, Comment: r.comment()})
	}
	return out
}

func (s *Server) newID() string {
	s.nextID++
	return fmt.Sprintf("%032x", s.nextID)
}

func (s *Server) zoneByName(name string) *zone {
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	for _, z := range s.zones {
		if z.name == name {
			return z
		}
	}
	return nil
}

func (z *zone) sorted() []*apiRecord {
	out := make([]*apiRecord, 0, len(z.records))
	for _, r := range z.records {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *apiRecord) int {
		return strings.Compare(a.Name+"\x00"+a.Type+"\x00"+a.Content, b.Name+"\x00"+b.Type+"\x00"+b.Content)
	})
	return out
}

// --- wire shapes ---

type apiRecord struct {
	ID         string          `json:"id"`
	ZoneID     string          `json:"zone_id,omitempty"`
	ZoneName   string          `json:"zone_name,omitempty"`
	Name       string          `json:"name"`
	Type       string          `json:"type"`
	Content    string          `json:"content"`
	Proxiable  bool            `json:"proxiable"`
	Proxied    bool            `json:"proxied"`
	TTL        int             `json:"ttl"`
	Priority   *float64        `json:"priority,omitempty"`
	Comment    *string         `json:"comment"`
	Tags       []string        `json:"tags"`
	Settings   map[string]any  `json:"settings"`
	Meta       map[string]any  `json:"meta"`
	CreatedOn  string          `json:"created_on"`
	ModifiedOn string          `json:"modified_on"`
	Data       json.RawMessage `json:"data,omitempty"`
}

func (r *apiRecord) comment() string {
	if r.Comment == nil {
		return ""
	}
	return *r.Comment
}

// input is the body of a create, an overwrite, or a batch post or put.
type input struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Type     string          `json:"type"`
	Content  string          `json:"content"`
	TTL      *int            `json:"ttl"`
	Proxied  *bool           `json:"proxied"`
	Priority *float64        `json:"priority"`
	Comment  *string         `json:"comment"`
	Tags     []string        `json:"tags"`
	Data     json.RawMessage `json:"data"`
}

type apiError struct {
	Code       int        `json:"code"`
	Message    string     `json:"message"`
	ErrorChain []apiError `json:"error_chain,omitempty"`
}

// failure is a refusal: the HTTP status and Cloudflare's error.
type failure struct {
	status int
	err    apiError
}

func fail(code int, format string, args ...any) *failure {
	return &failure{status: http.StatusBadRequest, err: apiError{Code: code, Message: fmt.Sprintf(format, args...)}}
}

func (f *failure) write(w http.ResponseWriter) {
	standin.WriteJSON(w, f.status, map[string]any{"success": false, "errors": []apiError{f.err}, "messages": []any{}, "result": nil})
}

func writeResult(w http.ResponseWriter, result any) {
	standin.WriteJSON(w, http.StatusOK, map[string]any{"success": true, "errors": []any{}, "messages": []any{}, "result": result})
}

// --- HTTP ---

// Handler returns the stand-in's HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	const base = "/client/v4/zones"
	mux.HandleFunc("GET "+base, s.api(OpZonesList, s.listZones))
	mux.HandleFunc("GET "+base+"/{zone}", s.api(OpZonesGet, s.withZone(s.getZone)))
	mux.HandleFunc("GET "+base+"/{zone}/dns_records", s.api(OpRecordsList, s.withZone(s.listRecords)))
	mux.HandleFunc("POST "+base+"/{zone}/dns_records", s.api(OpCreate, s.withZone(s.create)))
	mux.HandleFunc("GET "+base+"/{zone}/dns_records/{id}", s.api(OpRecordsGet, s.withZone(s.get)))
	mux.HandleFunc("PUT "+base+"/{zone}/dns_records/{id}", s.api(OpUpdate, s.withZone(s.overwrite)))
	mux.HandleFunc("DELETE "+base+"/{zone}/dns_records/{id}", s.api(OpDelete, s.withZone(s.remove)))
	mux.HandleFunc("POST "+base+"/{zone}/dns_records/batch", s.api(OpBatch, s.withZone(s.batch)))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.count.Add(OpUnknown)
		f := fail(CodeNoRoute, "Could not route to %s, perhaps your object identifier is invalid?", r.URL.Path)
		f.status = http.StatusNotFound
		f.write(w)
	})
	return mux
}

// api counts the operation op, checks the token, then calls h with the
// account's state locked.
func (s *Server) api(op string, h func(http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.count.Add(op)
		if r.Header.Get("Authorization") != "Bearer "+s.cfg.Token {
			f := fail(CodeAuthentication, "Authentication error")
			f.status = http.StatusForbidden
			f.write(w)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		h(w, r)
	}
}

func (s *Server) withZone(h func(http.ResponseWriter, *http.Request, *zone)) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("zone")
		for _, z := range s.zones {
			if z.id == id {
				h(w, r, z)
				return
			}
		}
		f := fail(CodeNoRoute, "Could not route to %s, perhaps your object identifier is invalid?", r.URL.Path)
		f.status = http.StatusNotFound
		f.write(w)
	}
}

func (z *zone) api() map[string]any {
	ts := z.created.Format(time.RFC3339Nano)
	return map[string]any{
		"id": z.id, "name": z.name, "status": "active", "paused": false, "type": "full",
		"development_mode": 0, "name_servers": []string{"ada.ns.cloudflare.com", "bob.ns.cloudflare.com"},
		"original_name_servers": nil, "original_registrar": nil, "original_dnshost": nil,
		"created_on": ts, "modified_on": ts, "activated_on": ts,
		"meta":    map[string]any{},
		"owner":   map[string]any{"id": nil, "name": nil, "type": "user"},
		"account": map[string]any{"id": "standin-account", "name": "stand-in"},
		"plan": map[string]any{"id": "0feeeeeeeeeeeeeeeeeeeeeeeeeeeeee", "name": "Free Website", "price": 0, "currency": "USD",
			"frequency": "", "is_subscribed": false, "can_subscribe": false, "legacy_id": "free", "legacy_discount": false, "externally_managed": false},
		"permissions": []string{"#dns_records:edit", "#dns_records:read", "#zone:read"},
	}
}

func (s *Server) getZone(w http.ResponseWriter, _ *http.Request, z *zone) {
	writeResult(w, z.api())
}

// paging reads page and per_page; it answers 400 and returns false when
// they are invalid.
func paging(w http.ResponseWriter, r *http.Request, def, maxPer int) (page, per int, ok bool) {
	q := r.URL.Query()
	page, per = 1, def
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			fail(CodeValidation, "page must be a positive integer, not %q", v).write(w)
			return 0, 0, false
		}
		page = n
	}
	if v := q.Get("per_page"); v != "" {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || n < 5 || n > float64(maxPer) || n != float64(int(n)) {
			fail(CodeValidation, "per_page must be an integer between 5 and %d, not %q", maxPer, v).write(w)
			return 0, 0, false
		}
		per = int(n)
	}
	return page, per, true
}

// writePage answers with items' page of size per, numbered page.
func writePage[T any](w http.ResponseWriter, items []T, page, per int) {
	from := min((page-1)*per, len(items))
	to := min(from+per, len(items))
	standin.WriteJSON(w, http.StatusOK, map[string]any{
		"success": true, "errors": []any{}, "messages": []any{},
		"result": items[from:to],
		"result_info": map[string]any{
			"page": page, "per_page": per, "count": to - from, "total_count": len(items),
			"total_pages": (len(items) + per - 1) / per,
		},
	})
}

func (s *Server) listZones(w http.ResponseWriter, r *http.Request) {
	page, per, ok := paging(w, r, 20, 50)
	if !ok {
		return
	}
	name := strings.ToLower(r.URL.Query().Get("name"))
	out := []map[string]any{}
	for _, z := range s.zones {
		if name == "" || z.name == name {
			out = append(out, z.api())
		}
	}
	writePage(w, out, page, per)
}

func (s *Server) listRecords(w http.ResponseWriter, r *http.Request, z *zone) {
	page, per, ok := paging(w, r, 100, 5000000)
	if !ok {
		return
	}
	q := r.URL.Query()
	name := q.Get("name")
	if name == "" {
		name = q.Get("name.exact")
	}
	out := []*apiRecord{}
	for _, rec := range z.sorted() {
		if (name == "" || rec.Name == z.fqdn(name)) &&
			(q.Get("type") == "" || rec.Type == q.Get("type")) &&
			(q.Get("content") == "" || rec.Content == q.Get("content")) {
			out = append(out, rec)
		}
	}
	writePage(w, out, page, per)
}

// fqdn completes name with the zone's name as Cloudflare does: "@" is the
// apex, a name outside the zone gets the zone appended; lower case, no
// trailing dot.
func (z *zone) fqdn(name string) string {
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	switch {
	case name == "@" || name == "":
		return z.name
	case name == z.name || strings.HasSuffix(name, "."+z.name):
		return name
	}
	return name + "." + z.name
}

func (s *Server) create(w http.ResponseWriter, r *http.Request, z *zone) {
	var in input
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		fail(CodeValidation, "the request body does not decode: %v", err).write(w)
		return
	}
	rec, f := s.build(z, in, "")
	if f == nil {
		f = z.conflicts(rec, "")
	}
	if f != nil {
		f.write(w)
		return
	}
	z.records[rec.ID] = rec
	writeResult(w, rec)
}

func (s *Server) overwrite(w http.ResponseWriter, r *http.Request, z *zone) {
	var in input
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		fail(CodeValidation, "the request body does not decode: %v", err).write(w)
		return
	}
	id := r.PathValue("id")
	rec, f := s.replace(z, id, in)
	if f != nil {
		f.write(w)
		return
	}
	z.records[id] = rec
	writeResult(w, rec)
}

// replace builds the record that overwrites record id with in, or
// returns the refusal.
func (s *Server) replace(z *zone, id string, in input) (*apiRecord, *failure) {
	old := z.records[id]
	if old == nil {
		f := fail(CodeRecordNotFound, "Record does not exist.")
		f.status = http.StatusNotFound
		return nil, f
	}
	rec, f := s.build(z, in, id)
	if f == nil {
		f = z.conflicts(rec, id)
	}
	if f != nil {
		return nil, f
	}
	rec.CreatedOn = old.CreatedOn
	return rec, nil
}

func (s *Server) get(w http.ResponseWriter, r *http.Request, z *zone) {
	rec := z.records[r.PathValue("id")]
	if rec == nil {
		f := fail(CodeRecordNotFound, "Record does not exist.")
		f.status = http.StatusNotFound
		f.write(w)
		return
	}
	writeResult(w, rec)
}

func (s *Server) remove(w http.ResponseWriter, r *http.Request, z *zone) {
	id := r.PathValue("id")
	if z.records[id] == nil {
		f := fail(CodeRecordNotFound, "Record does not exist.")
		f.status = http.StatusNotFound
		f.write(w)
		return
	}
	delete(z.records, id)
	writeResult(w, map[string]string{"id": id})
}

type batchBody struct {
	Deletes []struct {
		ID string `json:"id"`
	} `json:"deletes"`
	Patches []json.RawMessage `json:"patches"`
	Puts    []input           `json:"puts"`
	Posts   []input           `json:"posts"`
}

func (s *Server) batch(w http.ResponseWriter, r *http.Request, z *zone) {
	var b batchBody
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		fail(CodeValidation, "the request body does not decode: %v", err).write(w)
		return
	}
	if len(b.Patches) > 0 {
		fail(CodeValidation, "stand-in: patches are not modelled").write(w)
		return
	}
	if n := len(b.Deletes) + len(b.Puts) + len(b.Posts); n > s.cfg.BatchLimit {
		fail(CodeValidation, "the batch holds %d operations; at most %d are allowed on this plan", n, s.cfg.BatchLimit).write(w)
		return
	}
	// Work on a copy of the zone's records; keep it only if every
	// operation succeeds.
	work := &zone{id: z.id, name: z.name, created: z.created, records: make(map[string]*apiRecord, len(z.records))}
	for id, rec := range z.records {
		work.records[id] = rec
	}
	result := map[string][]*apiRecord{"deletes": {}, "patches": {}, "puts": {}, "posts": {}}
	for _, d := range b.Deletes {
		rec := work.records[d.ID]
		if rec == nil {
			f := fail(CodeRecordNotFound, "Record does not exist.")
			f.status = http.StatusNotFound
			f.write(w)
			return
		}
		delete(work.records, d.ID)
		result["deletes"] = append(result["deletes"], rec)
	}
	for _, p := range b.Puts {
		rec, f := s.replace(work, p.ID, p)
		if f != nil {
			f.write(w)
			return
		}
		work.records[p.ID] = rec
		result["puts"] = append(result["puts"], rec)
	}
	for _, p := range b.Posts {
		rec, f := s.build(work, p, "")
		if f == nil {
			f = work.conflicts(rec, "")
		}
		if f != nil {
			f.write(w)
			return
		}
		work.records[rec.ID] = rec
		result["posts"] = append(result["posts"], rec)
	}
	z.records = work.records
	writeResult(w, result)
}

// proxiable are the types Cloudflare can proxy.
var proxiable = []string{"A", "AAAA", "CNAME"}

// contentTypes are the types the stand-in stores by their content.
var contentTypes = []string{"A", "AAAA", "CNAME", "MX", "NS", "PTR", "TXT", "SPF"}

// build validates in and returns the record it describes, with the id id
// (a new one when empty), or the refusal.
func (s *Server) build(z *zone, in input, id string) (*apiRecord, *failure) {
	validation := func(code int, format string, args ...any) *failure {
		inner := apiError{Code: code, Message: fmt.Sprintf(format, args...)}
		f := fail(code, "%s", inner.Message)
		if code == CodeNotProxiable {
			f.err = apiError{Code: CodeValidation, Message: "DNS Validation Error", ErrorChain: []apiError{inner}}
		}
		return f
	}
	typ := strings.ToUpper(in.Type)
	switch {
	case typ == "":
		return nil, validation(CodeValidation, "type is required")
	case !slices.Contains(contentTypes, typ):
		return nil, validation(CodeValidation, "stand-in: records of type %s (structured data) are not modelled", typ)
	case len(in.Data) > 0 && string(in.Data) != "null":
		return nil, validation(CodeValidation, "stand-in: the data field is not modelled")
	case in.Name == "":
		return nil, validation(CodeValidation, "name is required")
	case in.Content == "":
		return nil, validation(CodeValidation, "content is required")
	}
	switch typ {
	case "A":
		if ip := net.ParseIP(in.Content); ip == nil || ip.To4() == nil || strings.Contains(in.Content, ":") {
			return nil, validation(CodeInvalidIPv4, "Content for A record must be a valid IPv4 address.")
		}
	case "AAAA":
		if ip := net.ParseIP(in.Content); ip == nil || !strings.Contains(in.Content, ":") {
			return nil, validation(CodeInvalidIPv6, "Content for AAAA record must be a valid IPv6 address.")
		}
	}
	ttl := 1
	if in.TTL != nil {
		ttl = *in.TTL
	}
	if ttl != 1 && (ttl < 60 || ttl > 86400) {
		return nil, validation(CodeInvalidTTL, "Invalid TTL. Must be between 60 and 86400 seconds, or 1 for Automatic.")
	}
	proxied := in.Proxied != nil && *in.Proxied
	if proxied && !slices.Contains(proxiable, typ) {
		return nil, validation(CodeNotProxiable, "This record type cannot be proxied.")
	}
	if proxied {
		ttl = 1
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	if id == "" {
		id = s.newID()
	}
	rec := &apiRecord{
		ID: id, ZoneID: z.id, ZoneName: z.name, Name: z.fqdn(in.Name), Type: typ,
		Content: strings.TrimSuffix(in.Content, "."), Proxiable: slices.Contains(proxiable, typ), Proxied: proxied, TTL: ttl,
		Tags: slices.Clone(in.Tags), Settings: map[string]any{}, Meta: map[string]any{}, CreatedOn: now, ModifiedOn: now,
	}
	if typ == "A" || typ == "AAAA" || typ == "TXT" || typ == "SPF" {
		rec.Content = in.Content
	}
	if rec.Tags == nil {
		rec.Tags = []string{}
	}
	if in.Comment != nil && *in.Comment != "" {
		rec.Comment = new(*in.Comment)
	}
	if typ == "MX" {
		p := 0.0
		if in.Priority != nil {
			p = *in.Priority
		}
		rec.Priority = &p
	}
	return rec, nil
}

// conflicts returns the refusal of rec beside the zone's records (the
// record with id self excepted), nil when there is none.
func (z *zone) conflicts(rec *apiRecord, self string) *failure {
	for id, o := range z.records {
		if id == self || o.Name != rec.Name {
			continue
		}
		switch {
		case o.Type == rec.Type && o.Content == rec.Content:
			return fail(CodeIdenticalRecord, "An identical record already exists.")
		case rec.Type == "CNAME" && o.Type != "CNAME":
			return fail(CodeCNAMEConflict, "An A, AAAA, or CNAME record with that host already exists.")
		case o.Type == "CNAME" && rec.Type != "CNAME":
			return fail(CodeCNAMEExists, "A CNAME record with that host already exists.")
		case o.Type == "CNAME" && rec.Type == "CNAME":
			return fail(CodeCNAMEConflict, "An A, AAAA, or CNAME record with that host already exists.")
		}
	}
	return nil
}
