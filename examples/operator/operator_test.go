package main

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

func service(ns, name string, annotations map[string]string, ingress ...corev1.LoadBalancerIngress) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: annotations},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
		Status:     corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: ingress}},
	}
}

const (
	alpha              = "external-dns.alpha.kubernetes.io/"
	hostnameAnnotation = "hostname"
	ttlAnnotation      = "ttl"
)

// testController returns a DNS controller over the Service source of a
// fake clientset holding objs, with its informers started and synced.
func testController(t *testing.T, p *inmemory.Provider, cfg config, objs ...runtime.Object) (*dnsController, *fake.Clientset, *kubernetes.ServiceSource) {
	t.Helper()
	client := fake.NewClientset(objs...)
	src, factory, err := newServiceSource(client, 0)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = startInformers(factory)(ctx) }()
	require.NoError(t, src.WaitForSync(ctx))
	c, err := newDNSController(src, p, client, cfg, testr.New(t), nil)
	require.NoError(t, err)
	return c, client, src
}

// waitFor waits until the source shows n endpoints (the fake clientset's
// watch delivers changes asynchronously).
func waitFor(t *testing.T, src source.Source, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		eps, _ := src.Endpoints(context.Background())
		return len(eps) == n
	}, 10*time.Second, 5*time.Millisecond)
}

// zoneRecords returns the provider's raw records as "name type targets".
func zoneRecords(t *testing.T, p *inmemory.Provider) []string {
	t.Helper()
	recs, err := p.Records(context.Background())
	require.NoError(t, err)
	out := []string{}
	for _, r := range recs {
		out = append(out, r.DNSName+" "+r.RecordType+" "+r.Targets.String())
	}
	return out
}

func TestDNSControllerReconcile(t *testing.T) {
	ctx := context.Background()
	p := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	cfg := defaultConfig()
	c, cl, src := testController(t, p, cfg,
		service("default", "web", map[string]string{alpha + hostnameAnnotation: "web.example.com"},
			corev1.LoadBalancerIngress{IP: "192.0.2.10"}),
	)

	res, err := c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Result{RequeueAfter: cfg.resync}, res)
	assert.Equal(t, []string{
		`a-web.example.com TXT "heritage=external-dns,external-dns/owner=zonesync-operator,external-dns/resource=service/default/web"`,
		"web.example.com A 192.0.2.10",
	}, zoneRecords(t, p))

	// The Service moves to another address and a second one appears.
	web, err := cl.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	web.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.20"}}
	_, err = cl.CoreV1().Services("default").UpdateStatus(ctx, web, metav1.UpdateOptions{})
	require.NoError(t, err)
	_, err = cl.CoreV1().Services("default").Create(ctx, service("default", "api", map[string]string{alpha + hostnameAnnotation: "api.example.com"},
		corev1.LoadBalancerIngress{Hostname: "lb.example.net"}), metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		eps, _ := src.Endpoints(ctx)
		return len(eps) == 2 && (eps[0].Targets[0] == "192.0.2.20" || eps[1].Targets[0] == "192.0.2.20")
	}, 10*time.Second, 5*time.Millisecond)
	_, err = c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err)
	assert.Equal(t, []string{
		`a-web.example.com TXT "heritage=external-dns,external-dns/owner=zonesync-operator,external-dns/resource=service/default/web"`,
		"api.example.com CNAME lb.example.net",
		`cname-api.example.com TXT "heritage=external-dns,external-dns/owner=zonesync-operator,external-dns/resource=service/default/api"`,
		"web.example.com A 192.0.2.20",
	}, zoneRecords(t, p))

	// Deleting a Service deletes its records and their ownership TXT.
	require.NoError(t, cl.CoreV1().Services("default").Delete(ctx, "web", metav1.DeleteOptions{}))
	waitFor(t, src, 1)
	_, err = c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"api.example.com CNAME lb.example.net",
		`cname-api.example.com TXT "heritage=external-dns,external-dns/owner=zonesync-operator,external-dns/resource=service/default/api"`,
	}, zoneRecords(t, p))

	// Converged: a further cycle changes nothing.
	cyc, err := c.dns.RunOnce(ctx)
	changes := cyc.Changes
	require.NoError(t, err)
	assert.False(t, changes.HasChanges())
}

func TestDNSControllerNotReadyRequeues(t *testing.T) {
	client := fake.NewClientset()
	src, _, err := newServiceSource(client, 0) // the factory is never started
	require.NoError(t, err)
	c, err := newDNSController(src, inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), client, defaultConfig(), testr.New(t), nil)
	require.NoError(t, err)
	res, err := c.Reconcile(context.Background(), dnsRequest)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Result{RequeueAfter: notReadyRetry}, res)
}

// TestDNSControllerBadServiceIsIsolated: one Service with a bad annotation
// neither fails every cycle nor loses its records.
func TestDNSControllerBadServiceIsIsolated(t *testing.T) {
	ctx := context.Background()
	p := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	c, cl, src := testController(t, p, defaultConfig(),
		service("default", "web", map[string]string{alpha + hostnameAnnotation: "web.example.com"},
			corev1.LoadBalancerIngress{IP: "192.0.2.10"}),
		service("default", "api", map[string]string{alpha + hostnameAnnotation: "api.example.com"},
			corev1.LoadBalancerIngress{IP: "192.0.2.30"}),
	)
	_, err := c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err)

	// web gets a bad TTL and moves; api moves too.
	web, err := cl.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	web.Annotations[alpha+ttlAnnotation] = "-1"
	web.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.20"}}
	_, err = cl.CoreV1().Services("default").Update(ctx, web, metav1.UpdateOptions{})
	require.NoError(t, err)
	api, err := cl.CoreV1().Services("default").Get(ctx, "api", metav1.GetOptions{})
	require.NoError(t, err)
	api.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.40"}}
	_, err = cl.CoreV1().Services("default").UpdateStatus(ctx, api, metav1.UpdateOptions{})
	require.NoError(t, err)

	// The source reports the bad Service by its resource key.
	var eps []*endpoint.Endpoint
	require.Eventually(t, func() bool {
		got, err := src.Endpoints(ctx)
		eps = got
		return err != nil && len(got) == 1 && got[0].Targets[0] == "192.0.2.40"
	}, 10*time.Second, 5*time.Millisecond)
	_, err = src.Endpoints(ctx)
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	require.Contains(t, pe.Failed, "service/default/web")
	assert.ErrorContains(t, pe.Failed["service/default/web"], `Service default/web: annotation external-dns.alpha.kubernetes.io/ttl="-1"`)
	assert.Equal(t, "api.example.com", eps[0].DNSName)

	res, err := c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err, "the bad Service is logged, not retried in a loop")
	assert.Equal(t, reconcile.Result{RequeueAfter: defaultConfig().resync}, res)
	assert.Equal(t, []string{
		`a-api.example.com TXT "heritage=external-dns,external-dns/owner=zonesync-operator,external-dns/resource=service/default/api"`,
		`a-web.example.com TXT "heritage=external-dns,external-dns/owner=zonesync-operator,external-dns/resource=service/default/web"`,
		"api.example.com A 192.0.2.40",
		"web.example.com A 192.0.2.10",
	}, zoneRecords(t, p), "api follows its Service; web keeps its record")

	// The bad Service learns why from its condition, the good one too.
	for _, tc := range []struct {
		name, reason, message string
		status                metav1.ConditionStatus
	}{
		{"web", "RecordInvalid", `Service default/web: annotation external-dns.alpha.kubernetes.io/ttl="-1"`, metav1.ConditionFalse},
		{"api", "RecordsApplied", "1 record(s) in DNS", metav1.ConditionTrue},
	} {
		svc, err := cl.CoreV1().Services("default").Get(ctx, tc.name, metav1.GetOptions{})
		require.NoError(t, err)
		cond := meta.FindStatusCondition(svc.Status.Conditions, conditionDNSReady)
		require.NotNil(t, cond, tc.name)
		assert.Equal(t, tc.status, cond.Status, tc.name)
		assert.Equal(t, tc.reason, cond.Reason, tc.name)
		assert.Contains(t, cond.Message, tc.message, tc.name)
	}
}

func TestManagerOptionsLeaderElection(t *testing.T) {
	opts := managerOptions(defaultConfig())
	assert.True(t, opts.LeaderElection, "only the leader may write DNS")
	assert.NotEmpty(t, opts.LeaderElectionID)
	assert.Equal(t, "default", opts.LeaderElectionNamespace)
}

func TestSetupBuildsManager(t *testing.T) {
	// No API server is contacted before Start.
	mgr, err := setup(t.Context(), &rest.Config{Host: "https://127.0.0.1:1"}, managerOptions(defaultConfig()), defaultConfig(), inmemory.New(), testr.New(t))
	require.NoError(t, err)
	require.NotNil(t, mgr)
}

func TestRunWithoutCluster(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "missing"))
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("HOME", t.TempDir())
	var out strings.Builder
	err := run(context.Background(), &out)
	require.ErrorContains(t, err, "loading kubeconfig")
}

func TestDNSControllerUnsafePlanRequeues(t *testing.T) {
	ctx := context.Background()
	var objs []runtime.Object
	for i := range 12 {
		name := "svc-" + strconv.Itoa(i)
		objs = append(objs, service("default", name, map[string]string{alpha + hostnameAnnotation: name + ".example.com"},
			corev1.LoadBalancerIngress{IP: "192.0.2.10"}))
	}
	p := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	cfg := defaultConfig()
	c, cl, src := testController(t, p, cfg, objs...)
	_, err := c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err)
	before := zoneRecords(t, p)
	require.Len(t, before, 24)

	// Every Service disappears at once (say, a namespace was deleted by
	// mistake): the safety threshold keeps the records.
	for i := range 12 {
		require.NoError(t, cl.CoreV1().Services("default").Delete(ctx, "svc-"+strconv.Itoa(i), metav1.DeleteOptions{}))
	}
	waitFor(t, src, 0)
	res, err := c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Result{RequeueAfter: cfg.resync}, res)
	assert.Equal(t, before, zoneRecords(t, p))
}
