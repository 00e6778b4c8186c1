package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/internal/motoserver"
	"github.com/zonesync/zonesync/provider/externaldns"
)

// issue34Flags is the command line of an external-dns deployment on Route 53
// that issue 34 asks this program to run unchanged.
func issue34Flags() []string {
	return []string{
		"--source=service", "--source=ingress", "--provider=aws", "--aws-zone-type=public",
		"--domain-filter=example.com", "--policy=upsert-only", "--registry=txt",
		"--txt-owner-id=prod-cluster", "--txt-prefix=edns-", "--interval=1m",
		"--annotation-filter=team=web",
	}
}

// offlineAWS points the AWS SDK at the Route 53 stand-in at url, with
// static keys, and keeps it from reading any other configuration or asking
// the instance metadata service.
func offlineAWS(t *testing.T, url string) {
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME":                        home,
		"AWS_CONFIG_FILE":             filepath.Join(home, "aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, "aws-credentials"),
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_ACCESS_KEY_ID":           "AKIAFAKEFAKEFAKEFAKE",
		"AWS_SECRET_ACCESS_KEY":       "fake-secret",
		"AWS_REGION":                  "us-east-1",
		"AWS_ENDPOINT_URL_ROUTE_53":   url,
		"AWS_PROFILE":                 "",
		"AWS_ROLE_ARN":                "",
		"AWS_WEB_IDENTITY_TOKEN_FILE": "",
		"AWS_ENDPOINT_URL":            "",
	} {
		t.Setenv(k, v)
	}
}

// The cluster the tests publish from: two Services and an Ingress in
// namespace shop; db lacks the team=web annotation the flags filter on.
func webService() *corev1.Service {
	return lbService("web", map[string]string{"external-dns.kubernetes.io/hostname": "web.example.com", "team": "web"}, "192.0.2.10")
}

func dbService() *corev1.Service {
	return lbService("db", map[string]string{"external-dns.kubernetes.io/hostname": "db.example.com"}, "192.0.2.11")
}

func shopIngress() *networkingv1.Ingress {
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "shop", Annotations: map[string]string{"team": "web"}},
		Spec:       networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "shop.example.com"}}},
		Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{
			Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.20"}}}},
	}
}

func lbService(name string, ann map[string]string, ip string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Annotations: ann},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
		Status:     corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: ip}}}},
	}
}

// cycleSignal passes the cycles of a run to the test.
type cycleSignal chan zonesync.Cycle

func (cycleSignal) CycleStarted(context.Context, time.Time) {}

func (c cycleSignal) CycleFinished(_ context.Context, cy zonesync.Cycle) {
	select {
	case c <- cy:
	default: // the test reads the first cycle only
	}
}

// lockedBuffer is a bytes.Buffer safe for the run's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// loopRun is one run of the program's loop, stopped after its first cycle.
type loopRun struct {
	cycle   zonesync.Cycle
	logs    string
	metrics string // the /metrics page during the run
	healthz string
}

// runFirstCycle runs the program with args over e's clients until its first
// cycle ends, reads its metrics endpoint, stops it and checks that it
// stopped cleanly.
func runFirstCycle(t *testing.T, args []string, e env) loopRun {
	t.Helper()
	logs := &lockedBuffer{}
	cycles := make(cycleSignal, 1)
	var addr net.Addr
	var mu sync.Mutex
	e.stderr, e.observer = logs, cycles
	e.listen = func(network, _ string) (net.Listener, error) {
		ln, err := net.Listen(network, "127.0.0.1:0")
		if err == nil {
			mu.Lock()
			addr = ln.Addr()
			mu.Unlock()
		}
		return ln, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, e) }()

	var out loopRun
	select {
	case out.cycle = <-cycles:
	case err := <-done:
		t.Fatalf("the program ended before its first cycle: %v\n%s", err, logs)
	}
	mu.Lock()
	base := "http://" + addr.String()
	mu.Unlock()
	out.metrics = get(t, base+"/metrics")
	out.healthz = get(t, base+"/healthz")
	cancel()
	require.NoError(t, <-done, "a loop stopped by its context ends without error")
	out.logs = logs.String()
	return out
}

// get returns the body of a GET of url.
func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
	return string(body)
}

// zoneRecords returns the A and TXT record sets of the zone as moto holds
// them.
func zoneRecords(srv *motoserver.Server, zoneID string) []string {
	var out []string
	for _, rs := range srv.RecordSets(zoneID) {
		if rs.Type == "A" || rs.Type == "TXT" {
			out = append(out, rs.String())
		}
	}
	slices.Sort(out)
	return out
}

// TestExternalDNSFlagsOnRoute53 runs the program with issue 34's
// external-dns command line, unchanged, against moto's Route 53 behind the
// proxy that makes it refuse what Route 53 refuses: the first cycle
// publishes the Service and the Ingress that carry team=web, each with its
// TXT ownership record under the edns- prefix and owner prod-cluster; once
// the Service is gone, a new run with the same flags deletes nothing
// (upsert-only).
func TestExternalDNSFlagsOnRoute53(t *testing.T) {
	srv := motoserver.Start(t)
	zoneID := srv.CreateZone("example.com")
	offlineAWS(t, srv.URL())
	kube := fake.NewClientset(webService(), dbService(), shopIngress())

	first := runFirstCycle(t, issue34Flags(), env{kube: kube})
	require.NoError(t, first.cycle.Err, first.logs)
	assert.Equal(t, 2, first.cycle.Creates, "the Service's record and the Ingress's (the registry adds their TXT records)")
	want := zoneRecords(srv, zoneID)
	owner := `"heritage=external-dns,external-dns/owner=prod-cluster,external-dns/resource=`
	for _, rec := range []string{"web.example.com", "shop.example.com", "edns-a-web.example.com", "edns-a-shop.example.com"} {
		assert.True(t, slices.ContainsFunc(want, func(s string) bool { return strings.HasPrefix(s, rec+". ") }), "%s missing from %v", rec, want)
	}
	assert.True(t, slices.ContainsFunc(want, func(s string) bool {
		return strings.HasPrefix(s, "edns-a-web.example.com.") && strings.Contains(s, owner+`service/shop/web"`)
	}), "%v", want)
	assert.True(t, slices.ContainsFunc(want, func(s string) bool {
		return strings.HasPrefix(s, "edns-a-shop.example.com.") && strings.Contains(s, owner+`ingress/shop/shop"`)
	}), "%v", want)
	assert.False(t, slices.ContainsFunc(want, func(s string) bool { return strings.Contains(s, "db.example.com") }), "--annotation-filter=team=web leaves db out: %v", want)
	assert.Len(t, want, 4)
	assert.Empty(t, srv.Refusals(), "Route 53 refused no batch")

	// What a user swapping the image sees: the start, the cycle, and the
	// metrics external-dns serves.
	assert.Contains(t, first.logs, `"zonesync starting"`)
	assert.Contains(t, first.logs, `"provider"="aws"`)
	assert.NotContains(t, first.logs, "not carried out", "every flag of the command line is carried out")
	assert.Contains(t, first.metrics, "external_dns_controller_last_sync_timestamp_seconds")
	assert.Equal(t, "OK", first.healthz)

	// The Service goes; the same command line deletes nothing.
	require.NoError(t, kube.CoreV1().Services("shop").Delete(context.Background(), "web", metav1.DeleteOptions{}))
	second := runFirstCycle(t, issue34Flags(), env{kube: fake.NewClientset(dbService(), shopIngress())})
	require.NoError(t, second.cycle.Err, second.logs)
	assert.Zero(t, second.cycle.Creates+second.cycle.Updates+second.cycle.Deletes, "upsert-only: nothing to do")
	assert.Equal(t, want, zoneRecords(srv, zoneID))
}

// TestOnceOnRoute53 runs the same command line with --once: one cycle, then
// run returns; a second --once run finds nothing to do.
func TestOnceOnRoute53(t *testing.T) {
	srv := motoserver.Start(t)
	zoneID := srv.CreateZone("example.com")
	offlineAWS(t, srv.URL())
	args := append(issue34Flags(), "--once", "--metrics-address=127.0.0.1:0")
	kube := fake.NewClientset(webService(), dbService(), shopIngress())
	var logs lockedBuffer
	require.NoError(t, run(context.Background(), args, env{stderr: &logs, kube: kube}), logs.String())
	require.Len(t, zoneRecords(srv, zoneID), 4, logs.String())
	srv.ResetCounts()
	require.NoError(t, run(context.Background(), args, env{stderr: &logs, kube: kube}), logs.String())
	assert.Zero(t, srv.Counts()[motoserver.OpChangeResourceRecordSets], "the second run changes nothing")
}

// TestUnsupportedFlags: a command line with flags zonesync cannot carry out
// stops the program before it starts, naming each.
func TestUnsupportedFlags(t *testing.T) {
	withDynamoDB := append(issue34Flags(), "--compatibility=mate")
	withDynamoDB[slices.Index(withDynamoDB, "--registry=txt")] = "--registry=dynamodb"
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"registry and compatibility", withDynamoDB, []string{"--compatibility=mate", "--registry=dynamodb"}},
		{"no --source (external-dns requires one)", []string{"--provider=aws", "--policy=sync"}, []string{"--source=fake"}},
		{"a provider this module cannot build", []string{"--provider=civo", "--source=empty", "--policy=sync"}, []string{"--provider=civo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(context.Background(), tt.args, env{stderr: io.Discard})
			var unsupported *externaldns.UnsupportedFlagsError
			require.ErrorAs(t, err, &unsupported)
			var flags []string
			for _, f := range unsupported.Flags {
				flags = append(flags, f.Flag)
			}
			assert.Equal(t, tt.want, flags)
		})
	}
}

// TestUnusedFlagsLogged: each flag given that has no effect is logged at
// start as a warning naming it, in flag order, whether its value is the
// default or not and whether it comes from the command line or the
// environment; flags the program uses are not.
func TestUnusedFlagsLogged(t *testing.T) {
	base := []string{"--provider=inmemory", "--inmemory-zone=example.com", "--source=empty", "--policy=sync", "--once", "--metrics-address=127.0.0.1:0"}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want []string
	}{
		{"every flag used", []string{"--log-level=info", "--registry=txt", "--txt-owner-id=default", "--interval=1m"}, nil, nil},
		{
			"flags of another provider, source and registry",
			[]string{"--aws-zone-type=public", "--cloudflare-proxied", "--ingress-class=nginx", "--namespace=shop", "--crd-registry-namespace=dns"},
			nil,
			[]string{"--aws-zone-type", "--cloudflare-proxied", "--crd-registry-namespace", "--ingress-class", "--namespace"},
		},
		{"flags at their defaults", []string{"--registry=noop", "--txt-prefix=", "--aws-zone-type="}, nil, []string{"--aws-zone-type", "--txt-prefix"}},
		{
			"void flags and the environment",
			[]string{"--force-default-targets", "--regex-domain-filter=example\\.com$", "--domain-filter=example.com", "--webhook-provider-idle-timeout=1m"},
			map[string]string{"EXTERNAL_DNS_GOOGLE_PROJECT": "p"},
			[]string{"--domain-filter", "--force-default-targets", "--google-project", "--webhook-provider-idle-timeout"},
		},
	}
	flagRE := regexp.MustCompile(`"external-dns flag not carried out" "flag"="([^"]+)"`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var logs lockedBuffer
			require.NoError(t, run(context.Background(), append(slices.Clone(base), tt.args...), env{stderr: &logs}), logs.String())
			var got []string
			for _, m := range flagRE.FindAllStringSubmatch(logs.String(), -1) {
				got = append(got, m[1])
			}
			assert.Equal(t, tt.want, got, logs.String())
		})
	}
}

// TestNewLogger checks the logger each --log-level and --log-format gives.
func TestNewLogger(t *testing.T) {
	tests := []struct {
		level, format string
		want          []string // the lines that appear, by message
	}{
		{"info", "text", []string{"cycle", "failed"}},
		{"warning", "text", []string{"cycle", "failed"}},
		{"debug", "text", []string{"cycle", "change", "failed"}},
		{"trace", "text", []string{"cycle", "change", "detail", "failed"}},
		{"error", "text", []string{"failed"}},
		{"panic", "json", []string{"failed"}},
		{"info", "json", []string{"cycle", "failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.level+"/"+tt.format, func(t *testing.T) {
			cfg := xconfig.NewConfig()
			cfg.LogLevel, cfg.LogFormat = tt.level, tt.format
			var buf bytes.Buffer
			log, err := newLogger(cfg, &buf)
			require.NoError(t, err)
			log = log.WithName("zonesync").WithValues("k", "v")
			log.Info("cycle")
			log.V(1).Info("change")
			log.V(2).Info("detail")
			log.Error(errors.New("boom"), "failed")
			var got []string
			for _, msg := range []string{"cycle", "change", "detail", "failed"} {
				if strings.Contains(buf.String(), `"`+msg+`"`) {
					got = append(got, msg)
				}
			}
			assert.Equal(t, tt.want, got, buf.String())
			if tt.format == "json" {
				assert.True(t, strings.HasPrefix(buf.String(), "{"), buf.String())
			}
		})
	}
	_, err := newLogger(&xconfig.Config{LogLevel: "loud"}, io.Discard)
	assert.ErrorContains(t, err, "--log-level=loud")
}

// TestNeedsKubernetes: only the sources that need no cluster, with a
// registry that keeps nothing there and no Events, run without one.
func TestNeedsKubernetes(t *testing.T) {
	tests := []struct {
		sources  []string
		registry string
		events   []string
		want     bool
	}{
		{[]string{"service"}, "txt", nil, true},
		{[]string{"connector", "empty"}, "txt", nil, false},
		{[]string{"fake"}, "txt", nil, false},
		{[]string{"connector"}, "crd", nil, true},
		{[]string{"connector"}, "txt", []string{"RecordReady"}, true},
	}
	for _, tt := range tests {
		cfg := &xconfig.Config{Sources: tt.sources, Registry: tt.registry, EmitEvents: tt.events}
		assert.Equal(t, tt.want, needsKubernetes(cfg), "%+v", tt)
	}
}
