package main

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-logr/logr/testr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/source"
)

func service(ns, name string, annotations map[string]string, ingress ...corev1.LoadBalancerIngress) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: annotations},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
		Status:     corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: ingress}},
	}
}

const (
	current = "external-dns.kubernetes.io/"
	alpha   = "external-dns.alpha.kubernetes.io/"
)

func TestServiceEndpoints(t *testing.T) {
	tests := []struct {
		name    string
		svc     *corev1.Service
		want    []string // "name type targets ttl"
		wantErr string
	}{
		{
			name: "no annotation",
			svc:  service("default", "web", nil, corev1.LoadBalancerIngress{IP: "192.0.2.10"}),
		},
		{
			name: "IPv4 and IPv6, two hostnames, TTL",
			svc: service("default", "web", map[string]string{
				alpha + hostnameAnnotation: "web.example.com, www.example.com.",
				alpha + ttlAnnotation:      "300",
			}, corev1.LoadBalancerIngress{IP: "192.0.2.10"}, corev1.LoadBalancerIngress{IP: "2001:db8::10"}),
			want: []string{
				"web.example.com A 192.0.2.10 300", "web.example.com AAAA 2001:db8::10 300",
				"www.example.com A 192.0.2.10 300", "www.example.com AAAA 2001:db8::10 300",
			},
		},
		{
			name: "current annotation prefix wins over the alpha one",
			svc: service("default", "web", map[string]string{
				current + hostnameAnnotation: "new.example.com",
				alpha + hostnameAnnotation:   "old.example.com",
				current + ttlAnnotation:      "60",
			}, corev1.LoadBalancerIngress{IP: "192.0.2.10"}),
			want: []string{"new.example.com A 192.0.2.10 60"},
		},
		{
			name: "load balancer host name gives a CNAME",
			svc: service("team", "api", map[string]string{alpha + hostnameAnnotation: "api.example.com"},
				corev1.LoadBalancerIngress{Hostname: "lb-1.elb.example.net"}),
			want: []string{"api.example.com CNAME lb-1.elb.example.net 0"},
		},
		{
			name: "no status yet",
			svc:  service("default", "web", map[string]string{alpha + hostnameAnnotation: "web.example.com"}),
		},
		{
			name: "bad TTL",
			svc: service("default", "web", map[string]string{alpha + hostnameAnnotation: "web.example.com", alpha + ttlAnnotation: "soon"},
				corev1.LoadBalancerIngress{IP: "192.0.2.10"}),
			wantErr: `service default/web: annotation external-dns.alpha.kubernetes.io/ttl: invalid TTL "soon"`,
		},
		{
			name: "bad hostname",
			svc: service("default", "web", map[string]string{alpha + hostnameAnnotation: "web..example.com"},
				corev1.LoadBalancerIngress{IP: "192.0.2.10"}),
			wantErr: "service default/web: annotation external-dns.alpha.kubernetes.io/hostname",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &serviceSource{reader: fake.NewClientBuilder().WithObjects(tt.svc).Build()}
			eps, err := src.Endpoints(context.Background())
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			got := []string{}
			for _, ep := range eps {
				got = append(got, ep.DNSName+" "+ep.RecordType+" "+ep.Targets.String()+" "+strconv.FormatInt(int64(ep.RecordTTL), 10))
				assert.Equal(t, "service/"+tt.svc.Namespace+"/"+tt.svc.Name, ep.Labels[endpoint.ResourceLabelKey])
			}
			if tt.want == nil {
				tt.want = []string{}
			}
			assert.Equal(t, tt.want, got)
		})
	}
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
	cl := fake.NewClientBuilder().WithObjects(
		service("default", "web", map[string]string{alpha + hostnameAnnotation: "web.example.com"},
			corev1.LoadBalancerIngress{IP: "192.0.2.10"}),
	).Build()
	p := inmemory.New(inmemory.WithZone("example.com"))
	cfg := defaultConfig()
	c, err := newDNSController(cl, p, cfg, testr.New(t))
	require.NoError(t, err)

	res, err := c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Result{RequeueAfter: cfg.resync}, res)
	assert.Equal(t, []string{
		`a-web.example.com TXT "heritage=external-dns,external-dns/owner=zonesync-operator,external-dns/resource=service/default/web"`,
		"web.example.com A 192.0.2.10",
	}, zoneRecords(t, p))

	// The Service moves to another address and a second one appears.
	var web corev1.Service
	require.NoError(t, cl.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, &web))
	web.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.20"}}
	require.NoError(t, cl.Status().Update(ctx, &web))
	require.NoError(t, cl.Create(ctx, service("default", "api", map[string]string{alpha + hostnameAnnotation: "api.example.com"},
		corev1.LoadBalancerIngress{Hostname: "lb.example.net"})))
	_, err = c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err)
	assert.Equal(t, []string{
		`a-web.example.com TXT "heritage=external-dns,external-dns/owner=zonesync-operator,external-dns/resource=service/default/web"`,
		"api.example.com CNAME lb.example.net",
		`cname-api.example.com TXT "heritage=external-dns,external-dns/owner=zonesync-operator,external-dns/resource=service/default/api"`,
		"web.example.com A 192.0.2.20",
	}, zoneRecords(t, p))

	// Deleting a Service deletes its records and their ownership TXT.
	require.NoError(t, cl.Delete(ctx, &web))
	_, err = c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"api.example.com CNAME lb.example.net",
		`cname-api.example.com TXT "heritage=external-dns,external-dns/owner=zonesync-operator,external-dns/resource=service/default/api"`,
	}, zoneRecords(t, p))

	// Converged: a further cycle changes nothing.
	changes, err := c.dns.RunOnce(ctx)
	require.NoError(t, err)
	assert.False(t, changes.HasChanges())
}

// TestDNSControllerBadServiceIsIsolated: one Service with a bad annotation
// neither fails every cycle nor loses its records.
func TestDNSControllerBadServiceIsIsolated(t *testing.T) {
	ctx := context.Background()
	cl := fake.NewClientBuilder().WithObjects(
		service("default", "web", map[string]string{alpha + hostnameAnnotation: "web.example.com"},
			corev1.LoadBalancerIngress{IP: "192.0.2.10"}),
		service("default", "api", map[string]string{alpha + hostnameAnnotation: "api.example.com"},
			corev1.LoadBalancerIngress{IP: "192.0.2.30"}),
	).Build()
	p := inmemory.New(inmemory.WithZone("example.com"))
	c, err := newDNSController(cl, p, defaultConfig(), testr.New(t))
	require.NoError(t, err)
	_, err = c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err)

	// web gets a bad TTL and moves; api moves too.
	var web, api corev1.Service
	require.NoError(t, cl.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, &web))
	web.Annotations[alpha+ttlAnnotation] = "-1"
	require.NoError(t, cl.Update(ctx, &web))
	web.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.20"}}
	require.NoError(t, cl.Status().Update(ctx, &web))
	require.NoError(t, cl.Get(ctx, client.ObjectKey{Namespace: "default", Name: "api"}, &api))
	api.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.40"}}
	require.NoError(t, cl.Status().Update(ctx, &api))

	res, err := c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err, "the bad Service is logged, not retried in a loop")
	assert.Equal(t, reconcile.Result{RequeueAfter: defaultConfig().resync}, res)
	assert.Equal(t, []string{
		`a-api.example.com TXT "heritage=external-dns,external-dns/owner=zonesync-operator,external-dns/resource=service/default/api"`,
		`a-web.example.com TXT "heritage=external-dns,external-dns/owner=zonesync-operator,external-dns/resource=service/default/web"`,
		"api.example.com A 192.0.2.40",
		"web.example.com A 192.0.2.10",
	}, zoneRecords(t, p), "api follows its Service; web keeps its record")

	// The source reports the bad Service by its resource key.
	src := &serviceSource{reader: cl}
	eps, err := src.Endpoints(ctx)
	var pe *source.PartialError
	require.ErrorAs(t, err, &pe)
	require.Contains(t, pe.Failed, "service/default/web")
	assert.ErrorContains(t, pe.Failed["service/default/web"], `service default/web: annotation external-dns.alpha.kubernetes.io/ttl: invalid TTL "-1"`)
	require.Len(t, eps, 1)
	assert.Equal(t, "api.example.com", eps[0].DNSName)
}

func TestManagerOptionsLeaderElection(t *testing.T) {
	opts := managerOptions(defaultConfig())
	assert.True(t, opts.LeaderElection, "only the leader may write DNS")
	assert.NotEmpty(t, opts.LeaderElectionID)
	assert.Equal(t, "default", opts.LeaderElectionNamespace)
}

func TestSetupBuildsManager(t *testing.T) {
	// No API server is contacted before Start.
	mgr, err := setup(&rest.Config{Host: "https://127.0.0.1:1"}, defaultConfig(), testr.New(t))
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
	var objs []client.Object
	for i := range 12 {
		name := "svc-" + strconv.Itoa(i)
		objs = append(objs, service("default", name, map[string]string{alpha + hostnameAnnotation: name + ".example.com"},
			corev1.LoadBalancerIngress{IP: "192.0.2.10"}))
	}
	cl := fake.NewClientBuilder().WithObjects(objs...).Build()
	p := inmemory.New(inmemory.WithZone("example.com"))
	cfg := defaultConfig()
	c, err := newDNSController(cl, p, cfg, testr.New(t))
	require.NoError(t, err)
	_, err = c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err)
	before := zoneRecords(t, p)
	require.Len(t, before, 24)

	// Every Service disappears at once (say, a namespace was deleted by
	// mistake): the safety threshold keeps the records.
	for _, o := range objs {
		require.NoError(t, cl.Delete(ctx, o))
	}
	res, err := c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err)
	assert.Equal(t, reconcile.Result{RequeueAfter: cfg.resync}, res)
	assert.Equal(t, before, zoneRecords(t, p))
}
