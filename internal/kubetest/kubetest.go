package kubetest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/zonesync/zonesync/internal/testproc"
)

const (
	// RequireEnv is the environment variable that turns a missing etcd or
	// kube-apiserver into a test failure when set to "1".
	RequireEnv = "ZONESYNC_REQUIRE_KUBE"
	// APIServerEnv names the kube-apiserver binary to use.
	APIServerEnv = "ZONESYNC_KUBE_APISERVER"
	// EtcdEnv names the etcd binary to use.
	EtcdEnv = "ZONESYNC_ETCD"
	// ToolsDir is the tools module that builds kube-apiserver and etcd,
	// relative to the repository root; the binaries go to BinDir.
	ToolsDir = "tools/kubeapiserver"
	// BinDir is where `make kubetest-binaries` puts kube-apiserver and
	// etcd, relative to the repository root.
	BinDir = "bin"
	// AdminUser is the user the admin configuration authenticates as; it
	// is in the group system:masters, which RBAC lets do anything.
	AdminUser = "kubetest-admin"
)

// ErrMissing is matched by the error of [Start] when etcd or
// kube-apiserver cannot be found.
var ErrMissing = errors.New("kubetest: binary not found")

// Env is a running etcd and kube-apiserver. Its methods are safe for
// concurrent use by parallel tests.
type Env struct {
	dir       string
	etcd      *process
	apiserver *process
	host      string
	token     string

	installMu sync.Mutex // serialises CRD installs
	nsCounter atomic.Int64
}

// Start starts etcd and kube-apiserver on loopback and returns once the API
// server reports itself ready. The caller stops them with [Env.Stop]. An
// error matching [ErrMissing] says a binary is absent and how to get it.
// Tests normally use a [Shared] instead.
func Start(ctx context.Context) (*Env, error) {
	etcdBin, err := findBinary(EtcdEnv, "etcd")
	if err != nil {
		return nil, err
	}
	apiBin, err := findBinary(APIServerEnv, "kube-apiserver")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "kubetest-")
	if err != nil {
		return nil, fmt.Errorf("kubetest: %w", err)
	}
	e := &Env{dir: dir}
	if err := e.start(ctx, etcdBin, apiBin); err != nil {
		e.Stop()
		return nil, err
	}
	return e, nil
}

// findBinary returns the binary the environment variable env names, else
// the one `make kubetest-binaries` built. It does not look in $PATH:
// Debian's etcd-server is etcd 3.4, without the watch progress
// notifications kube-apiserver's consistent reads wait for (a watch from
// "now" fails with "Too large resource version").
func findBinary(env, name string) (string, error) {
	path := os.Getenv(env)
	if path == "" {
		path = builtBinary(name)
	}
	if path == "" {
		return "", fmt.Errorf("%w: %s: no %s found above the working directory and %s is not set", ErrMissing, name, ToolsDir, env)
	}
	p, err := testproc.FindExecutable(path, name, "")
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v; build it with `make kubetest-binaries` at the repository root (the tools module %s builds it into %s/) or set %s",
			ErrMissing, name, err, ToolsDir, BinDir, env)
	}
	return p, nil
}

// builtBinary returns where `make kubetest-binaries` leaves the binary name:
// in the first directory from the working directory upwards that holds the
// tools module, or "" when there is none.
func builtBinary(name string) string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, ToolsDir, "go.mod")); err == nil {
			return filepath.Join(dir, BinDir, name)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func (e *Env) start(ctx context.Context, etcdBin, apiBin string) error {
	// Ports free now may be taken before the servers bind them: retry.
	var lastErr error
	for attempt := range 4 {
		if err := ctx.Err(); err != nil {
			return err
		}
		ports, err := testproc.FreePorts(3)
		if err != nil {
			return fmt.Errorf("kubetest: picking free ports: %w", err)
		}
		if lastErr = e.startEtcd(ctx, etcdBin, attempt, ports[0], ports[1]); lastErr != nil {
			e.stopProcesses()
			continue
		}
		if lastErr = e.startAPIServer(ctx, apiBin, attempt, ports[2]); lastErr != nil {
			e.stopProcesses()
			continue
		}
		return nil
	}
	return lastErr
}

func (e *Env) startEtcd(ctx context.Context, bin string, attempt, clientPort, peerPort int) error {
	clientURL := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(clientPort))
	peerURL := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(peerPort))
	const name = "kubetest"
	p, err := startProcess(e.dir, bin,
		"--name", name,
		"--data-dir", filepath.Join(e.dir, "etcd-"+strconv.Itoa(attempt)),
		"--listen-client-urls", clientURL,
		"--advertise-client-urls", clientURL,
		"--listen-peer-urls", peerURL,
		"--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", name+"="+peerURL,
		"--initial-cluster-state", "new",
		// Tests do not need etcd to survive a power cut.
		"--unsafe-no-fsync",
		"--logger", "zap",
		"--log-level", "warn",
	)
	if err != nil {
		return err
	}
	e.etcd = p
	e.etcd.url = clientURL
	client := &http.Client{Timeout: 2 * time.Second}
	return waitFor(ctx, 60*time.Second, p, func(ctx context.Context) error {
		return getOK(ctx, client, clientURL+"/health", "")
	}, "etcd on "+clientURL)
}

func (e *Env) startAPIServer(ctx context.Context, bin string, attempt, port int) error {
	dir := filepath.Join(e.dir, "apiserver-"+strconv.Itoa(attempt))
	if err := os.MkdirAll(filepath.Join(dir, "certs"), 0o700); err != nil {
		return fmt.Errorf("kubetest: %w", err)
	}
	saKey := filepath.Join(dir, "sa.key")
	if err := writeRSAKey(saKey); err != nil {
		return err
	}
	token, err := randomToken()
	if err != nil {
		return err
	}
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(token+","+AdminUser+","+AdminUser+",\"system:masters\"\n"), 0o600); err != nil {
		return fmt.Errorf("kubetest: %w", err)
	}
	p, err := startProcess(dir, bin,
		"--etcd-servers", e.etcd.url,
		// Every test binary has its own etcd, but keep the prefix apart
		// from anything else that may share one.
		"--etcd-prefix", "/kubetest",
		"--bind-address", "127.0.0.1",
		"--advertise-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(port),
		"--cert-dir", filepath.Join(dir, "certs"),
		"--token-auth-file", tokens,
		"--authorization-mode", "RBAC",
		"--service-cluster-ip-range", "10.0.0.0/24",
		"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file", saKey,
		"--service-account-signing-key-file", saKey,
		"--allow-privileged=true",
		// No controller creates the default ServiceAccount of a namespace,
		// so Pods could not be created with this admission plugin on.
		"--disable-admission-plugins", "ServiceAccount",
		"--profiling=false",
	)
	if err != nil {
		return err
	}
	e.apiserver = p
	e.host = "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	e.token = token
	client := &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // a self-signed test server on loopback
	}
	defer client.CloseIdleConnections()
	return waitFor(ctx, 90*time.Second, p, func(ctx context.Context) error {
		return getOK(ctx, client, e.host+"/readyz", token)
	}, "kube-apiserver on "+e.host)
}

// Config returns a new admin client configuration (group system:masters).
func (e *Env) Config() *rest.Config {
	return &rest.Config{
		Host:            e.host,
		BearerToken:     e.token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             1000,
		Burst:           2000,
		UserAgent:       "zonesync-kubetest",
	}
}

// ConfigAs returns a client configuration that acts as user in groups
// (through impersonation by the admin), for tests of what RBAC forbids. The
// user has no rights until a test grants them.
func (e *Env) ConfigAs(user string, groups ...string) *rest.Config {
	c := e.Config()
	c.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	return c
}

// Host returns the API server's URL.
func (e *Env) Host() string { return e.host }

// Output returns the tail of what kube-apiserver and etcd logged, for a
// failing test's message.
func (e *Env) Output() string {
	var out string
	if e.apiserver != nil {
		out += "kube-apiserver:\n" + e.apiserver.Log.String()
	}
	if e.etcd != nil {
		out += "\netcd:\n" + e.etcd.Log.String()
	}
	return out
}

// Stop stops kube-apiserver and etcd and removes their files.
func (e *Env) Stop() {
	e.stopProcesses()
	_ = os.RemoveAll(e.dir)
}

func (e *Env) stopProcesses() {
	// The API server first: it would log etcd's absence at length.
	for _, p := range []**process{&e.apiserver, &e.etcd} {
		if *p != nil {
			(*p).stop()
			*p = nil
		}
	}
}

// process is a server started in its own process group.
type process struct {
	*testproc.Process
	name string
	url  string
}

func startProcess(dir, bin string, args ...string) (*process, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	// etcd reads flags from ETCD_* variables; the test's own must not
	// reach it.
	for _, kv := range os.Environ() {
		if len(kv) < 5 || kv[:5] != "ETCD_" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	proc, err := testproc.Start(cmd)
	if err != nil {
		return nil, fmt.Errorf("kubetest: %w", err)
	}
	return &process{Process: proc, name: filepath.Base(bin)}, nil
}

func (p *process) stop() { p.Stop(15 * time.Second) }

// waitFor polls check until it succeeds, p exits, timeout passes or ctx
// ends; the error carries the server's log.
func waitFor(ctx context.Context, timeout time.Duration, p *process, check func(context.Context) error, what string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := testproc.Poll(ctx, p.Done, 100*time.Millisecond, check); err != nil {
		return fmt.Errorf("kubetest: %s not ready: %w\n%s's output:\n%s", what, err, p.name, p.Log.String())
	}
	return nil
}

func getOK(ctx context.Context, c *http.Client, url, token string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}

func writeRSAKey(path string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("kubetest: service account key: %w", err)
	}
	der := x509.MarshalPKCS1PrivateKey(key)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("kubetest: %w", err)
	}
	return nil
}

func randomToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("kubetest: token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Shared is one [Env] for a whole test binary, started by the first test
// that asks for it. The zero value is ready to use; keep it in a
// package-level variable of the test package and call [Shared.Main] from
// TestMain so the servers stop when the tests end.
type Shared struct {
	once sync.Once
	env  *Env
	err  error
}

// Env returns the running servers, starting them on first use. When a
// binary is missing the test is skipped, or fails when ZONESYNC_REQUIRE_KUBE
// is "1"; any other start failure fails the test.
func (s *Shared) Env(t testing.TB) *Env {
	t.Helper()
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		s.env, s.err = Start(ctx)
	})
	if s.err != nil {
		if errors.Is(s.err, ErrMissing) {
			skip, msg := testproc.Absent(s.err.Error(), RequireEnv, os.Getenv(RequireEnv))
			if skip {
				t.Skip(msg)
			}
			t.Fatal(msg)
		}
		t.Fatal(s.err)
	}
	return s.env
}

// Main runs the tests and stops the servers; TestMain returns its result
// to os.Exit.
func (s *Shared) Main(m *testing.M) int {
	code := m.Run()
	s.Stop()
	return code
}

// Stop stops the servers if they were started.
func (s *Shared) Stop() {
	s.once.Do(func() {}) // no start after this
	if s.env != nil {
		s.env.Stop()
	}
}
