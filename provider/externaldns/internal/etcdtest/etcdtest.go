// Package etcdtest starts a real etcd server for tests: Debian's
// etcd-server (/usr/bin/etcd) on 127.0.0.1 with free client and peer ports
// and a temporary data directory, stopped when the test ends. It serves
// the end-to-end tests of external-dns's coredns provider, which keeps its
// records in etcd in the SkyDNS layout.
//
// When etcd is not installed the test is skipped, unless the environment
// variable ZONESYNC_REQUIRE_ETCD is "1": then it fails.
package etcdtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/zonesync/zonesync/internal/testproc"
)

// RequireEnv is the environment variable that turns a missing etcd into a
// test failure when set to "1".
const RequireEnv = "ZONESYNC_REQUIRE_ETCD"

// DefaultEtcdPath is where Debian's etcd-server package installs etcd.
const DefaultEtcdPath = "/usr/bin/etcd"

// Config describes the server to start. The zero value is ready to use.
type Config struct {
	// EtcdPath is the etcd binary; empty means $PATH's etcd, else
	// DefaultEtcdPath.
	EtcdPath string
	// StartTimeout bounds the wait for etcd to report itself healthy;
	// default 30 s.
	StartTimeout time.Duration
}

// Server is a running single-member etcd. Its methods fail the test on
// error.
type Server struct {
	t       testing.TB
	etcd    string
	dir     string
	url     string
	timeout time.Duration

	mu     sync.Mutex
	proc   *testproc.Process // nil while stopped
	output *testproc.LogTail // the last process's, kept after it stops
	client *clientv3.Client
}

// absentAction decides what a test does when etcd cannot be found: skip
// (with the message) unless required, else fail.
func absentAction(findErr error, require string) (skip bool, msg string) {
	return testproc.Absent(fmt.Sprintf("etcdtest: etcd not found: %v; install it with `apt-get install etcd-server`", findErr), RequireEnv, require)
}

// Start starts etcd and returns it once it reports itself healthy. It is
// stopped, and its data directory removed, when the test ends.
func Start(t testing.TB, cfg Config) *Server {
	t.Helper()
	etcd, err := testproc.FindExecutable(cfg.EtcdPath, "etcd", DefaultEtcdPath)
	if err != nil {
		skip, msg := absentAction(err, os.Getenv(RequireEnv))
		if skip {
			t.Skip(msg)
		}
		t.Fatal(msg)
	}
	s := &Server{t: t, etcd: etcd, dir: t.TempDir(), timeout: cfg.StartTimeout}
	if s.timeout <= 0 {
		s.timeout = 30 * time.Second
	}
	t.Cleanup(s.stop)

	// Ports free now may be taken before etcd binds them: retry.
	var lastErr error
	for attempt := range 5 {
		ports, err := testproc.FreePorts(2)
		if err != nil {
			t.Fatalf("etcdtest: picking free ports: %v", err)
		}
		if lastErr = s.start(attempt, ports[0], ports[1]); lastErr == nil {
			s.connect()
			return s
		}
		s.stop()
	}
	t.Fatalf("etcdtest: %v", lastErr)
	return nil
}

// URL is the client URL, "http://127.0.0.1:<port>", as external-dns's
// ETCD_URLS takes it.
func (s *Server) URL() string { return s.url }

// Client returns a client connected to the server, closed when the test
// ends.
func (s *Server) Client() *clientv3.Client { return s.client }

// Output returns what etcd logged so far.
func (s *Server) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.output == nil {
		return ""
	}
	return s.output.String()
}

// Get returns every key under prefix with its value.
func (s *Server) Get(prefix string) map[string]string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := s.client.Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		s.t.Fatalf("etcdtest: get %q: %v", prefix, err)
	}
	out := make(map[string]string, len(r.Kvs))
	for _, kv := range r.Kvs {
		out[string(kv.Key)] = string(kv.Value)
	}
	return out
}

// Put writes key with value.
func (s *Server) Put(key, value string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.client.Put(ctx, key, value); err != nil {
		s.t.Fatalf("etcdtest: put %q: %v", key, err)
	}
}

func (s *Server) start(attempt, clientPort, peerPort int) error {
	clientURL := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(clientPort))
	peerURL := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(peerPort))
	const name = "etcdtest"
	cmd := exec.Command(s.etcd,
		"--name", name,
		"--data-dir", filepath.Join(s.dir, "data-"+strconv.Itoa(attempt)),
		"--listen-client-urls", clientURL,
		"--advertise-client-urls", clientURL,
		"--listen-peer-urls", peerURL,
		"--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", name+"="+peerURL,
		"--initial-cluster-state", "new",
		"--logger", "zap",
		"--log-level", "warn",
	)
	cmd.Dir = s.dir
	// etcd reads its flags from ETCD_* variables too; a test's own ones
	// (external-dns's ETCD_URLS, say) must not reach it.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ETCD_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	proc, err := testproc.Start(cmd)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.proc, s.output = proc, proc.Log
	s.mu.Unlock()
	s.url = clientURL

	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if err := waitHealthy(ctx, clientURL, proc.Done); err != nil {
		return fmt.Errorf("etcd on %s did not become healthy: %w\netcd's output:\n%s", clientURL, err, proc.Log.String())
	}
	return nil
}

// waitHealthy polls etcd's /health endpoint until it reports healthy, etcd
// exits or ctx ends.
func waitHealthy(ctx context.Context, url string, exited <-chan struct{}) error {
	c := &http.Client{Timeout: 2 * time.Second}
	return testproc.Poll(ctx, exited, 50*time.Millisecond, func(ctx context.Context) error { return health(ctx, c, url) })
}

func health(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/health", nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		return err
	}
	var h struct {
		Health string `json:"health"`
	}
	if err := json.Unmarshal(body, &h); err != nil {
		return fmt.Errorf("/health answered %s %q: %w", resp.Status, body, err)
	}
	if h.Health != "true" {
		return fmt.Errorf("/health answered %s %q", resp.Status, body)
	}
	return nil
}

func (s *Server) connect() {
	s.t.Helper()
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{s.url},
		DialTimeout: 10 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		s.t.Fatalf("etcdtest: connecting to %s: %v", s.url, err)
	}
	s.mu.Lock()
	s.client = c
	s.mu.Unlock()
}

func (s *Server) stop() {
	s.mu.Lock()
	proc, client := s.proc, s.client
	s.proc, s.client = nil, nil
	s.mu.Unlock()
	if client != nil {
		_ = client.Close()
	}
	if proc != nil {
		// etcd runs in its own process group.
		proc.Stop(10 * time.Second)
	}
}
