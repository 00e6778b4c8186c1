// Package pdnstest starts a real PowerDNS Authoritative Server for tests:
// Debian's pdns_server with the gsqlite3 backend and its HTTP API enabled,
// on 127.0.0.1 with free ports and a temporary directory, stopped when the
// test ends. Zones are created and read back through the API, so a test
// can compare what a provider wrote with the server's own view.
//
// When pdns_server, its sqlite3 backend, the schema or the sqlite3 command
// cannot be found, [Start] skips the test, unless the environment variable
// ZONESYNC_REQUIRE_PDNS is "1": then it fails it. CI sets it.
//
//	srv := pdnstest.Start(t, pdnstest.Config{})
//	srv.CreateZone("example.org")
//	... point a provider at srv.APIURL() with srv.APIKey() ...
//	for _, rr := range srv.RRsets("example.org") { ... }
package pdnstest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zonesync/zonesync/internal/testproc"
)

// RequireEnv is the environment variable that turns a missing PowerDNS
// into a test failure when set to "1".
const RequireEnv = "ZONESYNC_REQUIRE_PDNS"

// Where Debian's pdns-server and pdns-backend-sqlite3 packages install
// their files.
const (
	// DefaultServerPath is the pdns_server binary.
	DefaultServerPath = "/usr/sbin/pdns_server"
	// DefaultModuleDir holds the backend modules (libgsqlite3backend.so).
	DefaultModuleDir = "/usr/lib/x86_64-linux-gnu/pdns"
)

// defaultSchemaPaths returns the places Debian installs the gsqlite3
// schema, in the order they are tried.
func defaultSchemaPaths() []string {
	return []string{
		"/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql",
		"/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql",
	}
}

// ServerID is the server id of PowerDNS's API ("localhost", the only one).
const ServerID = "localhost"

// Config describes the server to start. The zero value uses Debian's paths
// and serves no zone; create zones with [Server.CreateZone].
type Config struct {
	// ServerPath is the pdns_server binary; empty means $PATH's
	// pdns_server, else DefaultServerPath.
	ServerPath string
	// ModuleDir is the directory of the backend modules; empty means
	// DefaultModuleDir, else the first /usr/lib/*/pdns holding the
	// gsqlite3 backend.
	ModuleDir string
	// SchemaPath is the gsqlite3 schema (SQL); empty means the first of
	// Debian's locations that exists.
	SchemaPath string
	// SQLite3Path is the sqlite3 command that creates the database; empty
	// means $PATH's sqlite3.
	SQLite3Path string
	// StartTimeout bounds the wait for the API to answer; default 30 s.
	StartTimeout time.Duration
	// MaxBodyMB is the largest API request body PowerDNS accepts, in
	// megabytes (webserver-max-bodysize); zero keeps PowerDNS's default
	// of 2, which refuses (400 Bad Request) a PATCH of some 10,000
	// records with their ownership TXT records.
	MaxBodyMB int
}

// Server is a running pdns_server. Its methods fail the test on error.
type Server struct {
	t       testing.TB
	dir     string
	bin     string
	modules string
	apiKey  string
	apiURL  string
	dnsAddr string
	timeout time.Duration
	maxBody int
	client  *http.Client

	mu     sync.Mutex
	proc   *testproc.Process // nil while stopped
	output *testproc.LogTail // the last process's, kept after it stops
}

// tools are the files a server needs.
type tools struct {
	server, modules, schema, sqlite3 string
}

// findTools locates the binary, the backend module, the schema and
// sqlite3, or says which is missing.
func findTools(cfg Config) (tools, error) {
	var tl tools
	var err error
	if tl.server, err = testproc.FindExecutable(cfg.ServerPath, "pdns_server", DefaultServerPath); err != nil {
		return tl, fmt.Errorf("pdns_server: %w", err)
	}
	dirs := []string{cfg.ModuleDir}
	if cfg.ModuleDir == "" {
		// Debian puts the modules under the multiarch triplet.
		other, _ := filepath.Glob("/usr/lib/*/pdns")
		dirs = append([]string{DefaultModuleDir}, other...)
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "libgsqlite3backend.so")); err == nil {
			tl.modules = d
			break
		}
	}
	if tl.modules == "" {
		return tl, fmt.Errorf("gsqlite3 backend: no libgsqlite3backend.so in %v", dirs)
	}
	candidates := defaultSchemaPaths()
	if cfg.SchemaPath != "" {
		candidates = []string{cfg.SchemaPath}
	}
	for _, p := range candidates {
		if _, err := os.Stat(p); err == nil {
			tl.schema = p
			break
		}
	}
	if tl.schema == "" {
		return tl, fmt.Errorf("gsqlite3 schema: none of %v exists", candidates)
	}
	if tl.sqlite3, err = testproc.FindExecutable(cfg.SQLite3Path, "sqlite3", ""); err != nil {
		return tl, fmt.Errorf("sqlite3: %w", err)
	}
	return tl, nil
}

// absentAction decides what a test does when PowerDNS cannot be used: skip
// (with the message) unless required, else fail.
func absentAction(findErr error, require string) (skip bool, msg string) {
	return testproc.Absent(fmt.Sprintf("pdnstest: PowerDNS not usable: %v; install it with `apt-get install pdns-server pdns-backend-sqlite3 sqlite3`", findErr), RequireEnv, require)
}

// Start starts pdns_server as described by cfg and returns it once its API
// answers. It is stopped in t.Cleanup.
func Start(t testing.TB, cfg Config) *Server {
	t.Helper()
	tl, err := findTools(cfg)
	if err != nil {
		skip, msg := absentAction(err, os.Getenv(RequireEnv))
		if skip {
			t.Skip(msg)
		}
		t.Fatal(msg)
	}
	s := &Server{
		t:       t,
		dir:     t.TempDir(),
		bin:     tl.server,
		modules: tl.modules,
		apiKey:  randomKey(t),
		timeout: cfg.StartTimeout,
		maxBody: cfg.MaxBodyMB,
		client:  &http.Client{Timeout: 5 * time.Minute},
	}
	if s.timeout <= 0 {
		s.timeout = 30 * time.Second
	}
	if err := createDatabase(tl.sqlite3, tl.schema, s.dbPath()); err != nil {
		t.Fatalf("pdnstest: %v", err)
	}
	t.Cleanup(s.stop)

	// Ports free now may be taken before pdns_server binds them: retry.
	var lastErr error
	for range 5 {
		dnsPort, err := testproc.FreePort(true)
		if err != nil {
			t.Fatalf("pdnstest: picking a free port: %v", err)
		}
		webPort, err := testproc.FreePort(false)
		if err != nil {
			t.Fatalf("pdnstest: picking a free port: %v", err)
		}
		if webPort == dnsPort {
			continue
		}
		s.dnsAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(dnsPort))
		s.apiURL = "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(webPort))
		if err := os.WriteFile(filepath.Join(s.dir, "pdns.conf"), []byte(s.conf(dnsPort, webPort)), 0o600); err != nil {
			t.Fatalf("pdnstest: %v", err)
		}
		if lastErr = s.start(); lastErr == nil {
			return s
		}
		s.stop()
	}
	t.Fatalf("pdnstest: %v", lastErr)
	return nil
}

// createDatabase creates the sqlite database from the schema with the
// sqlite3 command.
func createDatabase(sqlite3, schema, db string) error {
	sql, err := os.ReadFile(schema)
	if err != nil {
		return fmt.Errorf("reading the schema: %w", err)
	}
	cmd := exec.Command(sqlite3, db)
	cmd.Stdin = bytes.NewReader(sql)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("creating %s with %s: %w: %s", db, sqlite3, err, out)
	}
	return nil
}

func (s *Server) dbPath() string { return filepath.Join(s.dir, "pdns.sqlite3") }

// conf renders pdns.conf. Caches are off so that DNS answers show every
// change at once, and the server makes no outside queries.
func (s *Server) conf(dnsPort, webPort int) string {
	lines := []string{
		"local-address=127.0.0.1",
		"local-port=" + strconv.Itoa(dnsPort),
		"module-dir=" + s.modules,
		"launch=gsqlite3",
		"gsqlite3-database=" + s.dbPath(),
		"api=yes",
		"api-key=" + s.apiKey,
		"webserver=yes",
		"webserver-address=127.0.0.1",
		"webserver-port=" + strconv.Itoa(webPort),
		"webserver-allow-from=127.0.0.0/8",
		"webserver-loglevel=none",
		"security-poll-suffix=",
		"cache-ttl=0",
		"negquery-cache-ttl=0",
		"query-cache-ttl=0",
		"consistent-backends=yes",
		"zone-cache-refresh-interval=0",
		"loglevel=4",
	}
	if s.maxBody > 0 {
		lines = append(lines, "webserver-max-bodysize="+strconv.Itoa(s.maxBody))
	}
	return strings.Join(lines, "\n") + "\n"
}

func (s *Server) start() error {
	cmd := exec.Command(s.bin, "--daemon=no", "--guardian=no", "--disable-syslog",
		"--socket-dir="+s.dir, "--config-dir="+s.dir)
	cmd.Dir = s.dir
	proc, err := testproc.Start(cmd)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.proc, s.output = proc, proc.Log
	s.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	// Ready once the API's server resource answers 200.
	err = testproc.Poll(ctx, proc.Done, 50*time.Millisecond, func(ctx context.Context) error {
		code, _, err := s.do(ctx, http.MethodGet, "/api/v1/servers/"+ServerID, nil)
		if err == nil && code != http.StatusOK {
			err = fmt.Errorf("status %d", code)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("pdns_server's API on %s did not answer: %w\npdns_server's output:\n%s", s.apiURL, err, proc.Log.String())
	}
	return nil
}

func (s *Server) stop() {
	s.mu.Lock()
	proc := s.proc
	s.proc = nil
	s.mu.Unlock()
	if proc != nil {
		// pdns_server runs in its own process group.
		proc.Stop(10 * time.Second)
	}
}

// Stop stops pdns_server (SIGTERM, then SIGKILL after 10 s) and waits for
// it. The database stays.
func (s *Server) Stop() {
	s.t.Helper()
	s.stop()
}

// APIURL is the base URL of the HTTP API, "http://127.0.0.1:<port>", as
// external-dns's --pdns-server takes it.
func (s *Server) APIURL() string { return s.apiURL }

// APIKey is the key the API requires in the X-API-Key header.
func (s *Server) APIKey() string { return s.apiKey }

// DNSAddr is the DNS service's address, "127.0.0.1:<port>", UDP and TCP.
func (s *Server) DNSAddr() string { return s.dnsAddr }

// Dir is the server's working directory (configuration, database).
func (s *Server) Dir() string { return s.dir }

// Output returns what pdns_server wrote so far (its log).
func (s *Server) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.output == nil {
		return ""
	}
	return s.output.String()
}

// CreateZone creates a Native zone through the API, with the name servers
// given (default "ns1.<zone>"). PowerDNS adds its SOA. Names may be given
// with or without the trailing dot.
func (s *Server) CreateZone(zone string, nameservers ...string) {
	s.t.Helper()
	zone = fqdn(zone)
	ns := []string{"ns1." + zone}
	if len(nameservers) > 0 {
		ns = ns[:0]
		for _, n := range nameservers {
			ns = append(ns, fqdn(n))
		}
	}
	body := map[string]any{"name": zone, "kind": "Native", "nameservers": ns}
	code, resp, err := s.do(context.Background(), http.MethodPost, "/api/v1/servers/"+ServerID+"/zones", body)
	if err != nil {
		s.t.Fatalf("pdnstest: creating zone %s: %v", zone, err)
	}
	if code != http.StatusCreated {
		s.t.Fatalf("pdnstest: creating zone %s: status %d: %s", zone, code, resp)
	}
}

// DeleteZone deletes a zone and all its records through the API.
func (s *Server) DeleteZone(zone string) {
	s.t.Helper()
	zone = fqdn(zone)
	code, resp, err := s.do(context.Background(), http.MethodDelete,
		"/api/v1/servers/"+ServerID+"/zones/"+url.PathEscape(zone), nil)
	if err != nil {
		s.t.Fatalf("pdnstest: deleting zone %s: %v", zone, err)
	}
	if code != http.StatusNoContent {
		s.t.Fatalf("pdnstest: deleting zone %s: status %d: %s", zone, code, resp)
	}
}

// RRset is one record set as the API shows it. Names are as PowerDNS
// spells them (fully qualified, with the trailing dot); Records holds the
// content of the enabled records, sorted.
type RRset struct {
	Name    string
	Type    string
	TTL     uint32
	Records []string
}

// String renders the set on one line, e.g.
// `www.example.org. A 300 [192.0.2.1 192.0.2.2]`.
func (r RRset) String() string {
	return fmt.Sprintf("%s %s %d %v", r.Name, r.Type, r.TTL, r.Records)
}

// RRsets returns the zone's record sets as the server holds them (GET of
// the zone through the API), sorted by name then type.
func (s *Server) RRsets(zone string) []RRset {
	s.t.Helper()
	zone = fqdn(zone)
	code, resp, err := s.do(context.Background(), http.MethodGet,
		"/api/v1/servers/"+ServerID+"/zones/"+url.PathEscape(zone), nil)
	if err != nil {
		s.t.Fatalf("pdnstest: reading zone %s: %v", zone, err)
	}
	if code != http.StatusOK {
		s.t.Fatalf("pdnstest: reading zone %s: status %d: %s", zone, code, resp)
	}
	var z struct {
		RRsets []struct {
			Name    string `json:"name"`
			Type    string `json:"type"`
			TTL     uint32 `json:"ttl"`
			Records []struct {
				Content  string `json:"content"`
				Disabled bool   `json:"disabled"`
			} `json:"records"`
		} `json:"rrsets"`
	}
	if err := json.Unmarshal(resp, &z); err != nil {
		s.t.Fatalf("pdnstest: decoding zone %s: %v", zone, err)
	}
	out := make([]RRset, 0, len(z.RRsets))
	for _, rr := range z.RRsets {
		set := RRset{Name: rr.Name, Type: rr.Type, TTL: rr.TTL}
		for _, r := range rr.Records {
			if !r.Disabled {
				set.Records = append(set.Records, r.Content)
			}
		}
		slices.Sort(set.Records)
		out = append(out, set)
	}
	slices.SortFunc(out, func(a, b RRset) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Type, b.Type)
	})
	return out
}

// ReplaceRRset writes one record set directly through the API (PATCH with
// changetype REPLACE), bypassing any provider: for records a test puts in
// the zone behind the provider's back.
func (s *Server) ReplaceRRset(zone string, set RRset) {
	s.t.Helper()
	zone = fqdn(zone)
	records := make([]map[string]any, 0, len(set.Records))
	for _, c := range set.Records {
		records = append(records, map[string]any{"content": c, "disabled": false})
	}
	body := map[string]any{"rrsets": []map[string]any{{
		"name": fqdn(set.Name), "type": set.Type, "ttl": set.TTL, "changetype": "REPLACE", "records": records,
	}}}
	code, resp, err := s.do(context.Background(), http.MethodPatch,
		"/api/v1/servers/"+ServerID+"/zones/"+url.PathEscape(zone), body)
	if err != nil {
		s.t.Fatalf("pdnstest: writing %s to zone %s: %v", set, zone, err)
	}
	if code != http.StatusNoContent {
		s.t.Fatalf("pdnstest: writing %s to zone %s: status %d: %s", set, zone, code, resp)
	}
}

// do sends one API request with the key and returns the status and body.
func (s *Server) do(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.apiURL+path, r)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-API-Key", s.apiKey)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func fqdn(name string) string {
	return strings.ToLower(strings.TrimSuffix(name, ".")) + "."
}

func randomKey(t testing.TB) string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("pdnstest: generating an API key: %v", err)
	}
	return hex.EncodeToString(b)
}
