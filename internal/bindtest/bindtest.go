package bindtest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zonesync/zonesync/internal/testproc"
)

// RequireEnv is the environment variable that turns a missing named into a
// test failure when set to "1".
const RequireEnv = "ZONESYNC_REQUIRE_BIND"

// DefaultNamedPath is where Debian's bind9 package installs named.
const DefaultNamedPath = "/usr/sbin/named"

// Config describes the server to start. The zero value serves the zone
// "example.org".
type Config struct {
	// Zones are the primary zones to serve, each with an SOA, one NS
	// ("ns.<zone>") and its A record 127.0.0.1. Default: example.org.
	Zones []string
	// NamedPath is the named binary; empty means $PATH's named, else
	// DefaultNamedPath.
	NamedPath string
	// StartTimeout bounds the wait for named to answer SOA for every
	// zone; default 20 s.
	StartTimeout time.Duration
}

// Key is a TSIG key the server accepts for updates and transfers.
type Key struct {
	// Name is the key name, fully qualified ("zonesync-sha256.").
	Name string
	// Algorithm is the BIND name of the algorithm: "hmac-sha256" or
	// "hmac-sha512".
	Algorithm string
	// Secret is the standard base64 secret.
	Secret string
}

// Server is a running named. Its methods fail the test on error.
type Server struct {
	t       testing.TB
	dir     string
	conf    string
	named   string
	addr    string
	zones   []string
	keys    []Key
	timeout time.Duration

	mu     sync.Mutex
	proc   *testproc.Process // nil while stopped
	stderr *testproc.LogTail // the last process's, kept after it stops
}

// absentAction decides what a test does when named cannot be found: skip
// (with the message) unless required, else fail.
func absentAction(findErr error, require string) (skip bool, msg string) {
	return testproc.Absent(fmt.Sprintf("bindtest: named (BIND 9) not found: %v; install it with `apt-get install bind9`", findErr), RequireEnv, require)
}

// Start starts named as described by cfg and returns it once every zone
// answers SOA. It is stopped in t.Cleanup.
func Start(t testing.TB, cfg Config) *Server {
	t.Helper()
	named, err := testproc.FindExecutable(cfg.NamedPath, "named", DefaultNamedPath)
	if err != nil {
		skip, msg := absentAction(err, os.Getenv(RequireEnv))
		if skip {
			t.Skip(msg)
		}
		t.Fatal(msg)
	}
	zones := cfg.Zones
	if len(zones) == 0 {
		zones = []string{"example.org"}
	}
	s := &Server{
		t:       t,
		dir:     t.TempDir(),
		named:   named,
		timeout: cfg.StartTimeout,
		keys: []Key{
			{Name: "zonesync-sha256.", Algorithm: "hmac-sha256", Secret: newSecret(t, 32)},
			{Name: "zonesync-sha512.", Algorithm: "hmac-sha512", Secret: newSecret(t, 64)},
		},
	}
	if s.timeout <= 0 {
		s.timeout = 20 * time.Second
	}
	for _, z := range zones {
		s.zones = append(s.zones, strings.ToLower(strings.TrimSuffix(z, ".")))
	}
	s.conf = filepath.Join(s.dir, "named.conf")
	for _, z := range s.zones {
		writeFile(t, filepath.Join(s.dir, z+".db"), zoneFile(z))
	}
	t.Cleanup(s.stop)

	// A port free now may be taken before named binds it: retry.
	var lastErr error
	for range 5 {
		port, err := testproc.FreePort(true)
		if err != nil {
			t.Fatalf("bindtest: picking a free port: %v", err)
		}
		s.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		writeFile(t, s.conf, s.namedConf(port))
		if lastErr = s.start(); lastErr == nil {
			return s
		}
		s.stop()
	}
	t.Fatalf("bindtest: %v", lastErr)
	return nil
}

// Addr is the server's address, "127.0.0.1:<port>", for UDP and TCP.
func (s *Server) Addr() string { return s.addr }

// Zones returns the zones served, lower case without a trailing dot.
func (s *Server) Zones() []string { return append([]string(nil), s.zones...) }

// Key returns the hmac-sha256 key.
func (s *Server) Key() Key { return s.keys[0] }

// Keys returns every key the server accepts: hmac-sha256 and hmac-sha512.
func (s *Server) Keys() []Key { return append([]Key(nil), s.keys...) }

// Dir is the server's working directory (zone files, journals).
func (s *Server) Dir() string { return s.dir }

// Stderr returns what named wrote to stderr so far (its log).
func (s *Server) Stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stderr == nil {
		return ""
	}
	return s.stderr.String()
}

// Stop stops named (SIGTERM, then SIGKILL after 10 s) and waits for it.
// The zone files and journals stay, so Restart serves the same data.
func (s *Server) Stop() {
	s.t.Helper()
	s.stop()
}

// Restart stops named if it runs and starts it again on the same port and
// directory, so that updates kept in the journal persist. It waits until
// every zone answers SOA.
func (s *Server) Restart() {
	s.t.Helper()
	s.stop()
	var err error
	for range 3 { // the port may linger briefly
		if err = s.start(); err == nil {
			return
		}
		s.stop()
		time.Sleep(200 * time.Millisecond)
	}
	s.t.Fatalf("bindtest: restart: %v", err)
}

func (s *Server) start() error {
	cmd := exec.Command(s.named, "-g", "-4", "-n", "1", "-c", s.conf)
	cmd.Dir = s.dir
	proc, err := testproc.Start(cmd)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.proc, s.stderr = proc, proc.Log
	s.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if err := s.waitReady(ctx, proc.Done); err != nil {
		return fmt.Errorf("named on %s did not answer SOA for %v: %w\nnamed's output:\n%s", s.addr, s.zones, err, proc.Log.String())
	}
	return nil
}

// waitReady polls every zone's SOA until each answers or ctx ends.
func (s *Server) waitReady(ctx context.Context, exited <-chan struct{}) error {
	c := &dns.Client{Net: "udp", Timeout: 500 * time.Millisecond}
	pending := append([]string(nil), s.zones...)
	return testproc.Poll(ctx, exited, 50*time.Millisecond, func(ctx context.Context) error {
		for len(pending) > 0 {
			m := new(dns.Msg)
			m.SetQuestion(dns.Fqdn(pending[0]), dns.TypeSOA)
			r, _, err := c.ExchangeContext(ctx, m, s.addr)
			switch {
			case err != nil:
				return fmt.Errorf("SOA %s: %w", pending[0], err)
			case r.Rcode != dns.RcodeSuccess || len(r.Answer) == 0:
				return fmt.Errorf("SOA %s: %s, %d answers", pending[0], dns.RcodeToString[r.Rcode], len(r.Answer))
			}
			pending = pending[1:]
		}
		return nil
	})
}

func (s *Server) stop() {
	s.mu.Lock()
	proc := s.proc
	s.proc = nil
	s.mu.Unlock()
	if proc != nil {
		// named runs in its own process group.
		proc.Stop(10 * time.Second)
	}
}

// Query sends a plain (unsigned) query for name and type over UDP (TCP when
// the answer is truncated) and returns the answer; it fails the test on a
// network error.
func (s *Server) Query(name string, qtype uint16) *dns.Msg {
	s.t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	c := &dns.Client{Net: "udp", Timeout: 5 * time.Second}
	r, _, err := c.Exchange(m, s.addr)
	if err == nil && r.Truncated {
		c.Net = "tcp"
		r, _, err = c.Exchange(m, s.addr)
	}
	if err != nil {
		s.t.Fatalf("bindtest: query %s %s: %v", name, dns.TypeToString[qtype], err)
	}
	return r
}

// Update sends a dynamic update for zone, signed with Key(), over TCP. The
// records are in zone-file syntax ("a.example.org. 300 IN A 192.0.2.1");
// add inserts them, remove deletes them RR by RR. It fails the test unless
// the server answers NOERROR.
func (s *Server) Update(zone string, add, remove []string) {
	s.t.Helper()
	m := new(dns.Msg)
	m.SetUpdate(dns.Fqdn(zone))
	var rm, ins []dns.RR
	for _, r := range remove {
		rm = append(rm, s.mustRR(r))
	}
	for _, r := range add {
		ins = append(ins, s.mustRR(r))
	}
	m.Remove(rm)
	m.Insert(ins)
	k := s.Key()
	m.SetTsig(k.Name, dns.Fqdn(k.Algorithm), 300, time.Now().Unix())
	c := &dns.Client{Net: "tcp", Timeout: 10 * time.Second, TsigSecret: map[string]string{k.Name: k.Secret}}
	r, _, err := c.Exchange(m, s.addr)
	if err != nil {
		s.t.Fatalf("bindtest: update of %s: %v", zone, err)
	}
	if r.Rcode != dns.RcodeSuccess {
		s.t.Fatalf("bindtest: update of %s: %s", zone, dns.RcodeToString[r.Rcode])
	}
}

func (s *Server) mustRR(text string) dns.RR {
	s.t.Helper()
	rr, err := dns.NewRR(text)
	if err != nil || rr == nil {
		s.t.Fatalf("bindtest: record %q: %v", text, err)
	}
	return rr
}

// namedConf renders the configuration for the given port.
func (s *Server) namedConf(port int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `options {
	directory %q;
	pid-file none;
	session-keyfile %q;
	managed-keys-directory %q;
	listen-on port %d { 127.0.0.1; };
	listen-on-v6 { none; };
	recursion no;
	dnssec-validation no;
	notify no;
	allow-query { any; };
};
controls { };
`, s.dir, filepath.Join(s.dir, "session.key"), s.dir, port)
	var names []string
	for _, k := range s.keys {
		fmt.Fprintf(&b, "key %q {\n\talgorithm %s;\n\tsecret %q;\n};\n", k.Name, k.Algorithm, k.Secret)
		names = append(names, fmt.Sprintf("key %q;", k.Name))
	}
	acl := strings.Join(names, " ")
	for _, z := range s.zones {
		fmt.Fprintf(&b, "zone %q {\n\ttype primary;\n\tfile %q;\n\tallow-update { %s };\n\tallow-transfer { %s };\n};\n",
			z, z+".db", acl, acl)
	}
	return b.String()
}

// zoneFile returns a minimal zone: SOA, one NS and the NS's address.
func zoneFile(zone string) string {
	return fmt.Sprintf(`$ORIGIN %s.
$TTL 300
@	IN SOA ns.%s. hostmaster.%s. 1 3600 600 86400 60
@	IN NS ns.%s.
ns	IN A 127.0.0.1
`, zone, zone, zone, zone)
}

func newSecret(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("bindtest: generating a TSIG secret: %v", err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func writeFile(t testing.TB, path, content string) {
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatalf("bindtest: %v", err)
	}
}
