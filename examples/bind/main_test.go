package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/internal/bindtest"
	"github.com/zonesync/zonesync/internal/testproc"
	"github.com/zonesync/zonesync/provider/rfc2136"
)

// waitLimit bounds every wait for the program or the server.
const waitLimit = 30 * time.Second

// ownership is the ownership TXT value the example writes for name.
func ownership(name string) string {
	return `"heritage=external-dns,external-dns/owner=bind-example,external-dns/resource=file/` + name + `"`
}

// The zone after records.txt and after records-changed.txt, as AXFR
// returns it, without the SOA, NS and ns records the zone starts with.
var (
	zoneAfterRecords = []string{
		"a-old.example.test. 300 TXT " + ownership("old.example.test"),
		"a-www.example.test. 300 TXT " + ownership("www.example.test"),
		"aaaa-ipv6.example.test. 300 TXT " + ownership("ipv6.example.test"),
		"api.example.test. 300 CNAME www.example.test.",
		"cname-api.example.test. 300 TXT " + ownership("api.example.test"),
		"ipv6.example.test. 300 AAAA 2001:db8::10",
		"old.example.test. 60 A 192.0.2.99",
		"www.example.test. 300 A 192.0.2.10",
		"www.example.test. 300 A 192.0.2.11",
	}
	zoneAfterChanged = []string{
		"a-new.example.test. 300 TXT " + ownership("new.example.test"),
		"a-www.example.test. 300 TXT " + ownership("www.example.test"),
		"aaaa-ipv6.example.test. 300 TXT " + ownership("ipv6.example.test"),
		"api.example.test. 300 CNAME www.example.test.",
		"cname-api.example.test. 300 TXT " + ownership("api.example.test"),
		"ipv6.example.test. 600 AAAA 2001:db8::10",
		"new.example.test. 300 A 192.0.2.20",
		"www.example.test. 300 A 192.0.2.10",
		"www.example.test. 300 A 192.0.2.12",
	}
)

// TestRunAgainstBIND runs the program against a real named for two cycles,
// records.txt then records-changed.txt, and reads the zone back by AXFR
// after each: once as two -once runs (what run.sh does), once as one
// long-running program that notices the changed file by itself and serves
// its metrics.
func TestRunAgainstBIND(t *testing.T) {
	t.Run("two runs with -once", func(t *testing.T) {
		srv, args, records := startBIND(t)
		ctx := t.Context()

		var out strings.Builder
		require.NoError(t, run(ctx, append(args, "-once"), &out))
		assert.Equal(t, zoneAfterRecords, axfr(t, srv))
		assertInOrder(t, out.String(),
			"== preview", "create  www.example.test   A", "safety: ok (0 owned records)",
			"== applied: 4 created, 0 updated, 0 deleted")

		copyFile(t, "records-changed.txt", records)
		out.Reset()
		require.NoError(t, run(ctx, append(args, "-once"), &out))
		assert.Equal(t, zoneAfterChanged, axfr(t, srv))
		assertInOrder(t, out.String(),
			"== preview", "update  www.example.test", "192.0.2.10,192.0.2.11 -> 192.0.2.10,192.0.2.12", "delete  old.example.test",
			"safety: ok (4 owned records)", "== applied: 1 created, 2 updated, 1 deleted")
	})

	t.Run("watching the file, serving metrics", func(t *testing.T) {
		srv, args, records := startBIND(t)
		ctx, cancel := context.WithCancel(t.Context())
		out := &syncBuffer{}
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, append(args, "-interval", "1h", "-poll", "20ms", "-metrics-address", "127.0.0.1:0"), out)
		}()
		t.Cleanup(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(waitLimit):
				t.Error("run did not return after its context ended")
			}
		})

		out.waitFor(t, done, "== cycle 1: applied: 4 created, 0 updated, 0 deleted")
		assert.Equal(t, zoneAfterRecords, axfr(t, srv))

		url := regexp.MustCompile(`metrics: (http://\S+/metrics)`).FindStringSubmatch(out.String())
		require.NotNil(t, url, "the program prints where it serves metrics:\n%s", out.String())
		metrics := get(t, url[1])
		assert.Contains(t, metrics, "external_dns_registry_endpoints_total 1", "the zone held only ns.example.test before the cycle")
		assert.Contains(t, metrics, "external_dns_controller_last_sync_timestamp_seconds ")
		assert.Contains(t, metrics, `zonesync_changes_applied_total{action="create"} 4`)

		// The interval is an hour: only the file watcher can start cycle 2.
		copyFile(t, "records-changed.txt", records)
		out.waitFor(t, done, "== cycle 2: applied: 1 created, 2 updated, 1 deleted")
		assert.Equal(t, zoneAfterChanged, axfr(t, srv))
		assertInOrder(t, out.String(), "== cycle 2: preview", "delete  old.example.test", "== cycle 2: applied")

		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
			done <- nil // for the cleanup
		case <-time.After(waitLimit):
			t.Fatal("run did not return after its context ended")
		}
	})
}

// TestRunRefusedKey: a TSIG key the server does not know stops a -once run
// with the provider's error, which says what to check; nothing is written.
func TestRunRefusedKey(t *testing.T) {
	srv, args, _ := startBIND(t)
	keyFile := filepath.Join(t.TempDir(), "other.key")
	writeFile(t, keyFile, `key "not-on-the-server" { algorithm hmac-sha256; secret "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"; };`)
	var out strings.Builder
	err := run(t.Context(), append(args, "-once", "-tsig-key", keyFile), &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "BADKEY")
	assert.Contains(t, err.Error(), "check the key name, secret and algorithm in Config.TSIG")
	assert.Empty(t, axfr(t, srv))
}

// TestShippedKeyFile: the key file named.conf includes is one the program
// can read (rfc2136.LoadTSIGKeyFile) and the provider accepts.
func TestShippedKeyFile(t *testing.T) {
	key, err := rfc2136.LoadTSIGKeyFile("zonesync.key")
	require.NoError(t, err)
	assert.Equal(t, "zonesync-example", key.KeyName)
	assert.Equal(t, "hmac-sha256", key.Algorithm)
	_, err = rfc2136.New(rfc2136.Config{Server: "127.0.0.1:10053", Zones: []string{"example.test"}, TSIG: key})
	require.NoError(t, err, "the secret is valid base64")
}

func TestRunFlagErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "no records file", args: []string{"-once"}, want: "-records is required"},
		{name: "unknown flag", args: []string{"-records", "r.txt", "-nope"}, want: "flag provided but not defined: -nope"},
		{name: "stray argument", args: []string{"-records", "r.txt", "extra"}, want: `unexpected arguments ["extra"]`},
		{name: "missing key file", args: []string{"-records", "r.txt", "-tsig-key", "/nonexistent/zonesync.key"}, want: "TSIG key file: open /nonexistent/zonesync.key"},
		{name: "not a key file", args: []string{"-records", "r.txt", "-tsig-key", "records.txt"}, want: "rfc2136: TSIG key file records.txt: line "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(t.Context(), tt.args, io.Discard)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// TestRunShell runs run.sh, the script a reader runs, when named and dig
// are installed: it must show the zone after both cycles. Its syntax is
// checked in any case.
func TestRunShell(t *testing.T) {
	out, err := exec.Command("bash", "-n", "run.sh").CombinedOutput()
	require.NoError(t, err, "bash -n run.sh: %s", out)

	named, err := testproc.FindExecutable("", "named", bindtest.DefaultNamedPath)
	if err == nil {
		_, err = testproc.FindExecutable("", "dig", "")
	}
	if err != nil {
		skip, msg := testproc.Absent(fmt.Sprintf("run.sh needs named and dig: %v; install them with `apt-get install bind9 bind9-dnsutils`", err),
			bindtest.RequireEnv, os.Getenv(bindtest.RequireEnv))
		if skip {
			t.Skip(msg)
		}
		t.Fatal(msg)
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}

	// A bound, not a timing: run.sh builds the program, about a minute
	// without a build cache on a loaded two-core machine.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "run.sh")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(freePort(t)), "GO="+goCmd, "NAMED="+named)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) } // named too
	got, err := cmd.CombinedOutput()
	require.NoError(t, err, "run.sh:\n%s", got)
	assertInOrder(t, string(got),
		"== first run", "== applied: 4 created, 0 updated, 0 deleted",
		"== second run", "== applied: 1 created, 2 updated, 1 deleted",
		"== the zone")
	zone := string(got[strings.Index(string(got), "== the zone"):])
	for _, want := range zoneAfterChanged {
		fields := strings.Fields(want) // name ttl type rdata: dig adds the class
		re := regexp.QuoteMeta(fields[0]) + `\s+` + fields[1] + `\s+IN\s+` + fields[2] + `\s+` + regexp.QuoteMeta(strings.Join(fields[3:], " "))
		assert.Regexp(t, re, zone)
	}
	assert.NotContains(t, zone, "old.example.test")
}

// startBIND starts named with the zone example.test, writes its TSIG key as
// a BIND key file and a copy of records.txt, and returns the server, the
// program's arguments for them, and the path of the records file.
func startBIND(t *testing.T) (*bindtest.Server, []string, string) {
	t.Helper()
	srv := bindtest.Start(t, bindtest.Config{Zones: []string{"example.test"}})
	dir := t.TempDir()
	k := srv.Key()
	keyFile := filepath.Join(dir, "zonesync.key")
	writeFile(t, keyFile, fmt.Sprintf("key %q {\n\talgorithm %s;\n\tsecret %q;\n};\n", k.Name, k.Algorithm, k.Secret))
	records := filepath.Join(dir, "records.txt")
	copyFile(t, "records.txt", records)
	return srv, []string{"-server", srv.Addr(), "-zone", "example.test", "-tsig-key", keyFile, "-records", records}, records
}

// axfr transfers example.test, signed with the server's key, and returns
// its records as "name ttl type rdata", sorted, without the SOA, the NS and
// the name server's address the zone starts with.
func axfr(t *testing.T, srv *bindtest.Server) []string {
	t.Helper()
	k := srv.Key()
	m := new(dns.Msg)
	m.SetAxfr("example.test.")
	m.SetTsig(k.Name, dns.Fqdn(k.Algorithm), 300, time.Now().Unix())
	tr := &dns.Transfer{TsigSecret: map[string]string{k.Name: k.Secret}}
	envs, err := tr.In(m, srv.Addr())
	require.NoError(t, err)
	got := []string{}
	for env := range envs {
		require.NoError(t, env.Error)
		for _, rr := range env.RR {
			h := rr.Header()
			if h.Rrtype == dns.TypeSOA || h.Rrtype == dns.TypeNS || h.Name == "ns.example.test." {
				continue
			}
			data := strings.TrimSpace(strings.TrimPrefix(rr.String(), h.String()))
			got = append(got, fmt.Sprintf("%s %d %s %s", h.Name, h.Ttl, dns.TypeToString[h.Rrtype], data))
		}
	}
	slices.Sort(got)
	return got
}

// assertInOrder checks that s contains every part, each after the one
// before.
func assertInOrder(t *testing.T, s string, parts ...string) {
	t.Helper()
	rest := s
	for _, p := range parts {
		i := strings.Index(rest, p)
		if i < 0 {
			t.Errorf("%q missing, or not after %q, in:\n%s", p, parts, s)
			return
		}
		rest = rest[i+len(p):]
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	return string(body)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	require.NoError(t, err)
	writeFile(t, to, string(data))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// freePort returns a port free on 127.0.0.1 for both TCP and UDP.
func freePort(t *testing.T) int {
	t.Helper()
	port, err := testproc.FreePort(true)
	require.NoError(t, err)
	return port
}

// syncBuffer is an io.Writer safe for a program writing while the test
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the output contains want; it fails the test when
// the program returns first or waitLimit passes.
func (s *syncBuffer) waitFor(t *testing.T, done chan error, want string) {
	t.Helper()
	deadline := time.After(waitLimit)
	for !strings.Contains(s.String(), want) {
		select {
		case err := <-done:
			done <- err // for the cleanup
			t.Fatalf("run returned %v before printing %q:\n%s", err, want, s.String())
		case <-deadline:
			t.Fatalf("no %q within %v:\n%s", want, waitLimit, s.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
