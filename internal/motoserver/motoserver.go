// Package motoserver starts moto's Route 53 emulator (the Python package
// moto, its moto_server command) for a test, behind a reverse proxy that
// makes it behave like real Route 53 where moto does not and counts the
// API requests per operation.
//
// moto_server serves hosted zones, record sets (alias targets, weighted,
// geolocation and other routing policies) and listing well enough for the
// AWS SDK, but differs from Route 53 in ways a provider's guarantees
// depend on, which the proxy at [Server.URL] corrects for
// ChangeResourceRecordSets:
//
//   - a CREATE of a record set that exists (same name, type and set
//     identifier) is accepted and duplicates it; Route 53 refuses the batch
//     with HTTP 400 and an InvalidChangeBatch document ("Tried to create
//     resource record set [name='www.example.com.', type='A'] but it already
//     exists"), which the AWS SDK for Go v2 turns into
//     *types.InvalidChangeBatch;
//   - a DELETE is checked against moto's change journal, not the zone: a
//     record set that was written once but is gone, or another with the same
//     name and type, passes, and the refusal is an InvalidInput error;
//     Route 53 refuses a DELETE that does not match the current record set
//     exactly (InvalidChangeBatch, "... but it was not found" or "... but
//     the values provided do not match the current values");
//   - a DELETE with a set identifier removes every record set of the zone
//     with that identifier (whatever its name and type), and one without
//     removes every record set of the name and type;
//   - an alias record set is listed with <TTL>0</TTL>; Route 53 lists
//     none (the proxy removes it from ListResourceRecordSets answers);
//   - a batch is applied change after change, so a change refused midway
//     leaves the earlier ones applied; Route 53 applies all or nothing.
//
// The proxy checks each batch against the zone as moto holds it (read
// directly, not counted), refuses it as a whole with Route 53's document
// when any change would be refused, and otherwise sends moto a batch that
// produces Route 53's result (see planBatch). It also refuses CNAMEs beside
// other types and record sets with and without a set identifier at one
// name and type, as Route 53 does. Batches through the proxy are checked
// and applied one at a time; writes straight to [Server.MotoURL] bypass
// all of this.
//
// Not corrected: moto does not implement StartRecordIdentifier, so a page
// of ListResourceRecordSets that ends inside a group of record sets sharing
// name and type (weighted, geolocation) makes the next page repeat the
// group's first members. With moto's default page of 300 record sets this
// needs a zone of more than 300.
//
// When moto_server is not installed, [Start] skips the test unless the
// environment variable ZONESYNC_REQUIRE_MOTO is "1": then it fails it. CI
// sets it; install moto with `pip install 'moto[server]==5.2.1'`.
//
//	srv := motoserver.Start(t)
//	zoneID := srv.CreateZone("example.com")
//	t.Setenv("AWS_ENDPOINT_URL_ROUTE_53", srv.URL())
//	... run a Route 53 client against it ...
//	srv.RecordSets(zoneID)                 // the zone as moto holds it
//	srv.Counts()[motoserver.OpListResourceRecordSets]
//	srv.ResetCounts()
package motoserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zonesync/zonesync/internal/testproc"
)

// RequireEnv is the environment variable that turns a missing moto_server
// into a test failure when set to "1".
const RequireEnv = "ZONESYNC_REQUIRE_MOTO"

// apiVersion is the path prefix of Route 53's REST API.
const apiVersion = "/2013-04-01"

// authorization is the header moto needs to route a request to its
// Route 53 backend (it reads the service from the credential scope; the
// signature is not checked).
const authorization = "AWS4-HMAC-SHA256 Credential=AKIDMOTOSERVER/20240101/us-east-1/route53/aws4_request, SignedHeaders=host, Signature=0"

// Config describes the server to start. The zero value finds moto_server
// in $PATH and waits up to 60 s for it.
type Config struct {
	// Path is the moto_server executable; empty means $PATH's.
	Path string
	// StartTimeout bounds the wait for moto_server to answer; default 60 s.
	StartTimeout time.Duration
}

// Server is a running moto_server with the proxy in front of it. Its
// methods fail the test on error; they are safe for concurrent use.
type Server struct {
	t       testing.TB
	motoURL string
	proxy   *httptest.Server
	client  *http.Client

	mu     sync.Mutex
	proc   *testproc.Process // nil while stopped
	output *testproc.LogTail // the last process's, kept after it stops
	counts Counts
	refuse []Refusal
	zones  map[string]string // zone id -> zone name, for the proxy's checks

	// changeMu makes each checked batch's read, check and write one step.
	changeMu sync.Mutex
}

// Refusal is one change batch the proxy refused.
type Refusal struct {
	// ZoneID is the hosted zone's id, without "/hostedzone/".
	ZoneID string
	// Messages are the messages of the InvalidChangeBatch document.
	Messages []string
}

// Start starts moto_server with the zero [Config].
func Start(t testing.TB) *Server {
	t.Helper()
	return StartConfig(t, Config{})
}

// StartConfig starts moto_server on a free loopback port and the proxy in
// front of it, and returns once moto answers a Route 53 request. Both are
// stopped in t.Cleanup.
func StartConfig(t testing.TB, cfg Config) *Server {
	t.Helper()
	bin, err := testproc.FindExecutable(cfg.Path, "moto_server", "")
	if err != nil {
		skip, msg := testproc.Absent(fmt.Sprintf("motoserver: moto_server not usable: %v; install it with `pip install 'moto[server]==5.2.1'`", err), RequireEnv, os.Getenv(RequireEnv))
		if skip {
			t.Skip(msg)
		}
		t.Fatal(msg)
	}
	timeout := cfg.StartTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	s := &Server{
		t:      t,
		client: &http.Client{Timeout: 10 * time.Minute},
		counts: Counts{},
		zones:  map[string]string{},
	}
	t.Cleanup(s.stop)
	var lastErr error
	// A port free now may be taken before moto_server binds it: retry.
	for range 5 {
		port, err := testproc.FreePort(false)
		if err != nil {
			t.Fatalf("motoserver: picking a free port: %v", err)
		}
		s.motoURL = "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if lastErr = s.start(bin, port, timeout); lastErr == nil {
			break
		}
		s.stop()
	}
	if lastErr != nil {
		t.Fatalf("motoserver: %v", lastErr)
	}
	s.proxy = httptest.NewServer(http.HandlerFunc(s.serveProxy))
	t.Cleanup(s.proxy.Close)
	return s
}

func (s *Server) start(bin string, port int, timeout time.Duration) error {
	proc, err := testproc.Start(exec.Command(bin, "-H", "127.0.0.1", "-p", strconv.Itoa(port)))
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.proc, s.output = proc, proc.Log
	s.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// Ready once ListHostedZones answers 200.
	err = testproc.Poll(ctx, proc.Done, 100*time.Millisecond, func(ctx context.Context) error {
		code, _, err := s.motoDo(ctx, http.MethodGet, apiVersion+"/hostedzone", nil)
		if err == nil && code != http.StatusOK {
			err = fmt.Errorf("status %d", code)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("moto_server on %s did not answer: %w\nmoto_server's output:\n%s", s.motoURL, err, proc.Log.String())
	}
	return nil
}

func (s *Server) stop() {
	s.mu.Lock()
	proc := s.proc
	s.proc = nil
	s.mu.Unlock()
	if proc != nil {
		// moto_server (a pyenv shim, then python) runs in its own process group.
		proc.Stop(10 * time.Second)
	}
}

// URL is the proxy's base URL, "http://127.0.0.1:<port>": the Route 53
// endpoint to give the AWS SDK (AWS_ENDPOINT_URL_ROUTE_53). Requests
// through it are counted and change batches checked.
func (s *Server) URL() string { return s.proxy.URL }

// MotoURL is moto_server's own base URL: no checks, no counts.
func (s *Server) MotoURL() string { return s.motoURL }

// Output returns what moto_server wrote so far (its log).
func (s *Server) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.output == nil {
		return ""
	}
	return s.output.String()
}

// Reset empties moto (every zone of every backend, through moto's
// /moto-api/reset), the counts and the refusals, so one server can serve
// several tests in turn.
func (s *Server) Reset() {
	s.t.Helper()
	code, body, err := s.motoDo(context.Background(), http.MethodPost, "/moto-api/reset", nil)
	if err != nil || code != http.StatusOK {
		s.t.Fatalf("motoserver: resetting moto: status %d, %v: %s", code, err, body)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts = Counts{}
	s.refuse = nil
	s.zones = map[string]string{}
}

// Counts returns a copy of the requests counted through the proxy since
// it started or since the last [Server.ResetCounts] or [Server.Reset].
func (s *Server) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(Counts, len(s.counts))
	for k, v := range s.counts {
		out[k] = v
	}
	return out
}

// ResetCounts sets every count to zero and forgets the refusals.
func (s *Server) ResetCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts = Counts{}
	s.refuse = nil
}

// Refusals returns the change batches the proxy refused, in order, since
// it started or since the last reset.
func (s *Server) Refusals() []Refusal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.refuse)
}

// CreateZone creates a public hosted zone straight in moto and returns
// its id (without "/hostedzone/"). moto adds the apex NS and SOA record
// sets.
func (s *Server) CreateZone(name string) string {
	s.t.Helper()
	id, err := s.createZone(context.Background(), name)
	if err != nil {
		s.t.Fatalf("motoserver: %v", err)
	}
	return id
}

func (s *Server) createZone(ctx context.Context, name string) (string, error) {
	type request struct {
		XMLName         xml.Name `xml:"CreateHostedZoneRequest"`
		Namespace       string   `xml:"xmlns,attr"`
		Name            string   `xml:"Name"`
		CallerReference string   `xml:"CallerReference"`
	}
	body, err := xml.Marshal(request{Namespace: XMLNamespace, Name: name, CallerReference: randomID()})
	if err != nil {
		return "", fmt.Errorf("creating zone %s: %w", name, err)
	}
	code, resp, err := s.motoDo(ctx, http.MethodPost, apiVersion+"/hostedzone", body)
	if err != nil {
		return "", fmt.Errorf("creating zone %s: %w", name, err)
	}
	if code != http.StatusCreated {
		return "", fmt.Errorf("creating zone %s: status %d: %s", name, code, resp)
	}
	var out struct {
		HostedZone struct {
			ID   string `xml:"Id"`
			Name string `xml:"Name"`
		} `xml:"HostedZone"`
	}
	if err := xml.Unmarshal(resp, &out); err != nil {
		return "", fmt.Errorf("creating zone %s: reading the answer: %w", name, err)
	}
	id := strings.TrimPrefix(out.HostedZone.ID, "/hostedzone/")
	s.mu.Lock()
	s.zones[id] = out.HostedZone.Name
	s.mu.Unlock()
	return id, nil
}

// RecordSets returns every record set of the zone as moto holds it, in
// moto's order (by name with its labels reversed, then type), read
// straight from moto (not counted).
func (s *Server) RecordSets(zoneID string) []RecordSet {
	s.t.Helper()
	out, err := s.recordSets(context.Background(), zoneID)
	if err != nil {
		s.t.Fatalf("motoserver: %v", err)
	}
	return out
}

// listPage is the number of record sets the proxy and RecordSets ask moto
// for at once: a zone of any size the tests use comes back in one page.
const listPage = 1 << 20

func (s *Server) recordSets(ctx context.Context, zoneID string) ([]RecordSet, error) {
	var out []RecordSet
	seen := map[rrKey]bool{}
	q := url.Values{"maxitems": {strconv.Itoa(listPage)}}
	for {
		code, body, err := s.motoDo(ctx, http.MethodGet, apiVersion+"/hostedzone/"+zoneID+"/rrset?"+q.Encode(), nil)
		if err != nil {
			return nil, fmt.Errorf("listing zone %s: %w", zoneID, err)
		}
		if code != http.StatusOK {
			return nil, fmt.Errorf("listing zone %s: status %d: %s", zoneID, code, body)
		}
		var page struct {
			Sets        []RecordSet `xml:"ResourceRecordSets>ResourceRecordSet"`
			IsTruncated bool        `xml:"IsTruncated"`
			NextName    string      `xml:"NextRecordName"`
			NextType    string      `xml:"NextRecordType"`
		}
		if err := xml.Unmarshal(body, &page); err != nil {
			return nil, fmt.Errorf("listing zone %s: reading the answer: %w", zoneID, err)
		}
		for _, r := range page.Sets {
			if r.AliasTarget != nil && r.TTL != nil && *r.TTL == 0 {
				r.TTL = nil // moto's rendering of no TTL
			}
			// moto restarts a page at a name and type, not an identifier.
			if k := keyOf(r); !seen[k] {
				seen[k] = true
				out = append(out, r)
			}
		}
		if !page.IsTruncated {
			return out, nil
		}
		q.Set("name", page.NextName)
		q.Set("type", page.NextType)
	}
}

// Load writes record sets straight into moto with UPSERT, in the form the
// proxy writes (so later batches through the proxy can DELETE them), in
// as few requests as moto's limit on a batch allows: the fast way to fill
// a zone for a benchmark. Not checked, not counted.
func (s *Server) Load(zoneID string, sets []RecordSet) {
	s.t.Helper()
	changes := make([]Change, len(sets))
	for i, r := range sets {
		changes[i] = Change{Action: ActionUpsert, ResourceRecordSet: canonical(r)}
	}
	for _, batch := range chunkChanges(changes) {
		if err := s.motoChange(context.Background(), zoneID, batch); err != nil {
			s.t.Fatalf("motoserver: loading zone %s: %v", zoneID, err)
		}
	}
}

// Change sends one change batch through the proxy, as a client would:
// checked and counted. A refused batch returns a *BatchError.
func (s *Server) Change(ctx context.Context, zoneID string, changes ...Change) error {
	body, err := marshalChanges(changes)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+apiVersion+"/hostedzone/"+zoneID+"/rrset/", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("changing zone %s: %w", zoneID, err)
	}
	req.Header.Set("Authorization", authorization)
	req.Header.Set("Content-Type", "text/xml")
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("changing zone %s: %w", zoneID, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("changing zone %s: reading the answer: %w", zoneID, err)
	}
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	var refused struct {
		XMLName  xml.Name
		Messages []string `xml:"Messages>Message"`
	}
	if xml.Unmarshal(answer, &refused) == nil && refused.XMLName.Local == "InvalidChangeBatch" {
		return &BatchError{ZoneID: zoneID, Messages: refused.Messages}
	}
	return fmt.Errorf("changing zone %s: status %d: %s", zoneID, resp.StatusCode, answer)
}

// BatchError is a change batch refused with InvalidChangeBatch.
type BatchError struct {
	// ZoneID is the hosted zone's id.
	ZoneID string
	// Messages say why, one per refused change.
	Messages []string
}

// Error implements error.
func (e *BatchError) Error() string {
	return fmt.Sprintf("zone %s: InvalidChangeBatch: %s", e.ZoneID, strings.Join(e.Messages, "; "))
}

// motoChange sends a change batch straight to moto.
func (s *Server) motoChange(ctx context.Context, zoneID string, changes []Change) error {
	body, err := marshalChanges(changes)
	if err != nil {
		return err
	}
	code, resp, err := s.motoDo(ctx, http.MethodPost, apiVersion+"/hostedzone/"+zoneID+"/rrset/", body)
	if err != nil {
		return fmt.Errorf("changing zone %s: %w", zoneID, err)
	}
	if code != http.StatusOK {
		return fmt.Errorf("changing zone %s: status %d: %s", zoneID, code, resp)
	}
	return nil
}

// zoneName returns the name of a hosted zone, from moto the first time.
func (s *Server) zoneName(ctx context.Context, zoneID string) (string, error) {
	s.mu.Lock()
	name, ok := s.zones[zoneID]
	s.mu.Unlock()
	if ok {
		return name, nil
	}
	code, body, err := s.motoDo(ctx, http.MethodGet, apiVersion+"/hostedzone/"+zoneID, nil)
	if err != nil {
		return "", fmt.Errorf("reading zone %s: %w", zoneID, err)
	}
	if code != http.StatusOK {
		return "", &statusError{code: code, body: body}
	}
	var out struct {
		HostedZone struct {
			Name string `xml:"Name"`
		} `xml:"HostedZone"`
	}
	if err := xml.Unmarshal(body, &out); err != nil {
		return "", fmt.Errorf("reading zone %s: %w", zoneID, err)
	}
	s.mu.Lock()
	s.zones[zoneID] = out.HostedZone.Name
	s.mu.Unlock()
	return out.HostedZone.Name, nil
}

// statusError is moto's answer other than 200, passed on to the client.
type statusError struct {
	code int
	body []byte
}

func (e *statusError) Error() string { return fmt.Sprintf("status %d: %s", e.code, e.body) }

// motoDo sends one request straight to moto with a Route 53 credential
// scope and returns the status and body.
func (s *Server) motoDo(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.motoURL+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", authorization)
	req.Header.Set("Content-Type", "text/xml")
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, err
	}
	return resp.StatusCode, out, nil
}

func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
