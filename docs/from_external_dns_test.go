// Package docs_test checks the Go that docs/from-external-dns.md gives for
// external-dns's flags: the guide's program and source chain are repeated
// here word for word, and every other name a table row uses is built
// below, so a rename breaks this build. The program runs against a zone
// written the way external-dns writes it, as the switch-over procedure
// expects: with the same owner id and TXT settings, Preview plans nothing.
//
// Names of the nested module provider/externaldns (ParseFlags, New) are
// checked by that module's own examples; see the guide.
package docs_test

import (
	"context"
	"net/http"
	"net/netip"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	promclient "github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/metrics/prometheus"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/policy"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/batch"
	"github.com/zonesync/zonesync/provider/cache"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/ratelimit"
	"github.com/zonesync/zonesync/provider/rfc2136"
	"github.com/zonesync/zonesync/provider/webhook"
	"github.com/zonesync/zonesync/registry/crd"
	"github.com/zonesync/zonesync/registry/noop"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
	"github.com/zonesync/zonesync/source/connector"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/gatewayapi"
	k8s "github.com/zonesync/zonesync/source/kubernetes"
	"github.com/zonesync/zonesync/source/kubernetes/conditions"
	"github.com/zonesync/zonesync/source/kubernetes/events"
	"github.com/zonesync/zonesync/source/sourcetest"
)

// newReconciler is the guide's program ("One program for one deployment"):
// what an external-dns deployment run with
//
//	--source=service --source=ingress --namespace=shop
//	--domain-filter=example.com --policy=upsert-only
//	--registry=txt --txt-owner-id=default --txt-prefix=extdns-
//	--interval=1m --min-ttl=60s
//
// does, over any zonesync provider.
func newReconciler(ctx context.Context, kube kubernetes.Interface, dns provider.Provider) (*zonesync.Reconciler, error) {
	shared := k8s.Options{Namespace: "shop"} // --namespace; --label-filter etc. go here too
	svc, err := k8s.NewServiceSource(ctx, kube, k8s.ServiceConfig{Options: shared})
	if err != nil {
		return nil, err
	}
	ing, err := k8s.NewIngressSource(ctx, kube, k8s.IngressConfig{Options: shared})
	if err != nil {
		return nil, err
	}
	src := source.NewPostProcessor( // --min-ttl
		source.NewDedup(source.NewMulti([]source.Source{svc, ing}, source.MultiOptions{})),
		source.PostProcessorOptions{DefaultTTL: 60})
	reg, err := txt.New(dns, txt.Config{OwnerID: "default", Prefix: "extdns-"})
	if err != nil {
		return nil, err
	}
	return &zonesync.Reconciler{
		Source:       src,
		Registry:     reg,
		Policy:       policy.UpsertOnly,
		DomainFilter: endpoint.NewDomainFilter([]string{"example.com"}),
		Interval:     time.Minute,
	}, nil
}

// wrapSources is the guide's source chain ("Source wrappers"), in
// external-dns's order: default targets inside the multi-source, then
// dedup, NAT64, target filter, PTR and the post-processor.
func wrapSources(sources []source.Source) (source.Source, error) {
	var s source.Source = source.NewDedup(source.NewDefaultTargets(
		source.NewMulti(sources, source.MultiOptions{}),
		source.DefaultTargetsOptions{Targets: []string{"192.0.2.1"}})) // --default-targets
	s, err := source.NewNAT64(s, source.NAT64Options{ // --nat64-networks
		Prefixes: []netip.Prefix{netip.MustParsePrefix("64:ff9b::/96")}})
	if err != nil {
		return nil, err
	}
	s = source.NewTargetFilter(s, source.TargetFilterOptions{ // --target-net-filter, --exclude-target-net
		Include: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")},
		Exclude: []netip.Prefix{netip.MustParsePrefix("192.0.2.128/25")}})
	s = source.NewPTR(s, source.PTROptions{})                                           // --create-ptr
	return source.NewPostProcessor(s, source.PostProcessorOptions{DefaultTTL: 60}), nil // --min-ttl
}

// TestGuideShowsThisCode fails when the functions the guide shows differ
// from the ones this file compiles and runs.
func TestGuideShowsThisCode(t *testing.T) {
	guide, err := os.ReadFile("from-external-dns.md")
	require.NoError(t, err)
	self, err := os.ReadFile("from_external_dns_test.go")
	require.NoError(t, err)
	function := func(text []byte, name string) string {
		s := string(text)
		i := strings.Index(s, "\nfunc "+name+"(")
		require.GreaterOrEqual(t, i, 0, "func %s not found", name)
		j := strings.Index(s[i:], "\n}\n")
		require.GreaterOrEqual(t, j, 0, "end of func %s not found", name)
		return s[i : i+j+3]
	}
	for _, name := range []string{"newReconciler", "wrapSources"} {
		assert.Equal(t, function(self, name), function(guide, name), "docs/from-external-dns.md shows another %s than docs/from_external_dns_test.go", name)
	}
}

// TestProgramOverAnExternalDNSZone runs the guide's program over a zone
// external-dns wrote (owner "default", prefix "extdns-"), as step 2 of the
// switch-over does: with the same owner id nothing is planned and the
// record counts as owned; with another owner id the preview warns.
func TestProgramOverAnExternalDNSZone(t *testing.T) {
	for _, tc := range []struct {
		name         string
		ownerID      string
		wantOwned    int
		wantWarnings int
	}{
		{name: "same owner id", ownerID: "default", wantOwned: 1},
		{name: "owner id forgotten", ownerID: "zonesync", wantOwned: 0, wantWarnings: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			kube := fake.NewClientset(&corev1.Service{
				ObjectMeta: metav1.ObjectMeta{
					Namespace: "shop", Name: "web",
					Annotations: map[string]string{"external-dns.kubernetes.io/hostname": "shop.example.com"},
				},
				Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
				Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{
					Ingress: []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}},
				}},
			})
			// The zone as external-dns v0.23 leaves it for that Service
			// with --txt-owner-id=default --txt-prefix=extdns- and
			// --min-ttl=60s.
			zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: []*endpoint.Endpoint{
				endpoint.NewEndpointWithTTL("shop.example.com", endpoint.RecordTypeA, 60, "192.0.2.10"),
				endpoint.NewEndpointWithTTL("extdns-a-shop.example.com", endpoint.RecordTypeTXT, 60,
					`"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/shop/web"`),
			}})
			r, err := newReconciler(ctx, kube, zone)
			require.NoError(t, err)
			reg, err := txt.New(zone, txt.Config{OwnerID: tc.ownerID, Prefix: "extdns-"})
			require.NoError(t, err)
			r.Registry = reg
			require.Eventually(t, func() bool { return source.HasSynced(r.Source) }, 10*time.Second, 10*time.Millisecond)

			pv, err := r.Preview(ctx)
			require.NoError(t, err)
			assert.False(t, pv.Plan.Changes.HasChanges(), "planned:\n%s", pv)
			assert.Empty(t, pv.Plan.Skipped)
			assert.Nil(t, pv.Unsafe)
			assert.NoError(t, pv.SourceErr)
			assert.Zero(t, pv.Repairs)
			assert.Equal(t, tc.wantOwned, pv.Owned)
			assert.Len(t, pv.Warnings, tc.wantWarnings)
		})
	}
}

// TestSourceChain runs the guide's chain on one endpoint without targets:
// the default target fills it in, the PTR wrapper adds its reverse record,
// and the post-processor gives both the default TTL.
func TestSourceChain(t *testing.T) {
	s, err := wrapSources([]source.Source{source.NewStatic(endpoint.NewEndpoint("app.example.com", endpoint.RecordTypeA))})
	require.NoError(t, err)
	eps, err := s.Endpoints(context.Background())
	require.NoError(t, err)
	var got []string
	for _, ep := range eps {
		got = append(got, ep.DNSName+" "+ep.RecordType+" "+ep.Targets.String()+" "+strconv.FormatInt(int64(ep.RecordTTL), 10))
	}
	assert.ElementsMatch(t, []string{
		"app.example.com A 192.0.2.1 60",
		"1.2.0.192.in-addr.arpa PTR app.example.com 60",
	}, got)
}

// TestRows builds what the guide's table rows name, one subtest per
// group of rows, and checks the behaviour the row promises where it can
// be seen without a cluster or a DNS server.
func TestRows(t *testing.T) {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})

	t.Run("domain filters", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			filter endpoint.DomainFilterInterface
			match  map[string]bool
		}{
			{"--domain-filter", endpoint.NewDomainFilter([]string{"example.com"}),
				map[string]bool{"a.example.com": true, "example.org": false}},
			{"--exclude-domains", endpoint.NewDomainFilterWithExclusions([]string{"example.com"}, []string{"internal.example.com"}),
				map[string]bool{"a.example.com": true, "db.internal.example.com": false}},
			{"--regex-domain-filter, --regex-domain-exclusion", endpoint.NewRegexDomainFilter(regexp.MustCompile(`\.example\.com$`), regexp.MustCompile(`^test-`)),
				map[string]bool{"a.example.com": true, "test-a.example.com": false}},
			{"both kinds", endpoint.MatchAllDomainFilters{endpoint.NewDomainFilter([]string{"example.com"}), endpoint.NewRegexDomainFilter(nil, regexp.MustCompile(`^test-`))},
				map[string]bool{"a.example.com": true, "test-a.example.com": false, "a.example.org": false}},
		} {
			for name, want := range tc.match {
				assert.Equal(t, want, tc.filter.Match(name), "%s: %s", tc.name, name)
			}
		}
	})

	t.Run("policy and conflicts", func(t *testing.T) {
		pol, err := policy.ByName("upsert-only") // --policy=upsert-only
		require.NoError(t, err)
		assert.Equal(t, plan.Policy(policy.UpsertOnly), pol)
		_, err = policy.ByName("upsert")
		assert.ErrorContains(t, err, "create-only", "the error lists the valid names")

		// Two objects ask for one name: PerResource (external-dns's
		// behaviour) publishes one of them, MergeTargets both.
		want := func(target, resource string) *endpoint.Endpoint {
			return endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, target).WithLabel(endpoint.ResourceLabelKey, resource)
		}
		for _, tc := range []struct {
			resolver plan.ConflictResolver
			targets  []string
		}{
			{plan.PerResource{}, []string{"192.0.2.1"}},
			{plan.MergeTargets{}, []string{"192.0.2.1", "192.0.2.2"}},
		} {
			reg, err := txt.New(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), txt.Config{OwnerID: "default"})
			require.NoError(t, err)
			r := zonesync.Reconciler{
				Source:   source.NewStatic(want("192.0.2.1", "service/a/one"), want("192.0.2.2", "service/b/two")),
				Registry: reg, Policy: policy.Sync, Resolver: tc.resolver, DryRun: true,
				Safety: plan.SafetyThreshold{MaxChangeRatio: 0.5, MinOwned: 20},
			}
			cyc, err := r.RunOnce(ctx)
			changes := cyc.Changes
			require.NoError(t, err)
			require.Len(t, changes.Create, 1, "%T", tc.resolver)
			assert.ElementsMatch(t, tc.targets, []string(changes.Create[0].Targets), "%T", tc.resolver)
		}
	})

	t.Run("run loop", func(t *testing.T) {
		r := zonesync.Reconciler{
			Source:   source.NewStatic(endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1")),
			Interval: time.Minute, MinEventSyncInterval: 5 * time.Second, DryRun: true,
			IgnoreSourceEvents: true, // --events not given
		}
		var reg *txt.Registry
		reg, err := txt.New(zone, txt.Config{OwnerID: "default"})
		require.NoError(t, err)
		r.Registry = reg
		cyc, err := r.RunOnce(ctx) // --once, --dry-run
		require.NoError(t, err)
		assert.Len(t, cyc.Changes.Create, 1)
		recs, err := zone.Records(ctx)
		require.NoError(t, err)
		assert.Empty(t, recs, "a dry run writes nothing")
		assert.Equal(t, time.Minute, zonesync.DefaultInterval)
		assert.Equal(t, 5*time.Second, zonesync.DefaultMinEventSyncInterval)

		// A failed cycle is retried with backoff; a bad configuration is
		// an error Run returns.
		r = zonesync.Reconciler{Registry: reg, Policy: policy.CreateOnly, Logger: logr.Discard(),
			BackoffInitial: time.Second, BackoffMax: time.Minute, Safety: plan.SafetyThreshold{Disabled: true}}
		_, err = r.RunOnce(ctx)
		assert.ErrorIs(t, err, zonesync.ErrInvalidConfig, "no Source")
		assert.NotErrorIs(t, err, zonesync.ErrUnsafePlan)
	})

	t.Run("registries", func(t *testing.T) {
		key := make([]byte, 32)
		for _, cfg := range []txt.Config{
			{OwnerID: "default"}, // --txt-owner-id (external-dns's default is "default")
			{OwnerID: "default", Prefix: "extdns-%{record_type}."},                              // --txt-prefix
			{OwnerID: "default", Suffix: "-%{record_type}-extdns"},                              // --txt-suffix
			{OwnerID: "default", WildcardReplacement: "any"},                                    // --txt-wildcard-replacement
			{OwnerID: "default", EncryptionKey: key},                                            // --txt-encrypt-enabled --txt-encrypt-aes-key
			{OwnerID: "default", EncryptionKey: key, EncryptionMode: txt.EncryptionDecryptOnly}, // key without --txt-encrypt-enabled
			{OwnerID: "default", EncryptionKey: key, EncryptionMode: txt.EncryptionReadWrite},
			{OwnerID: "new", OldOwnerID: "default"}, // --migrate-from-txt-owner
			{OwnerID: "default", ManagedRecordTypes: []string{"A", "AAAA", "CNAME", "PTR"}, ExcludeRecordTypes: []string{"AAAA"}},
			{OwnerID: "default", AliasTXTType: txt.AliasTXTTypeCNAME},
		} {
			_, err := txt.New(zone, cfg)
			assert.NoError(t, err, "%+v", cfg)
		}
		_, err := txt.New(zone, txt.Config{OwnerID: "default", Prefix: "a-", Suffix: "-b"})
		assert.ErrorIs(t, err, txt.ErrInvalidConfig, "prefix and suffix are exclusive, as in external-dns")
		r := zonesync.Reconciler{Registry: noop.New(zone), ManagedRecordTypes: []string{"A", "CNAME"}, ExcludeRecordTypes: []string{"CNAME"}} // --registry=noop
		assert.NotNil(t, r.Registry)
		reg, err := crd.New(zone, dynamicfake.NewSimpleDynamicClient(runtime.NewScheme()), crd.Config{OwnerID: "default", Namespace: "dns"}) // --registry=crd --crd-registry-namespace=dns
		require.NoError(t, err)
		start := reg.Start // then reg.Start(ctx); needs the DNSRecord CRD, served by a real API server
		assert.NotNil(t, start)
		assert.NotEmpty(t, crd.CustomResourceDefinitionYAML())
	})

	t.Run("sources", func(t *testing.T) {
		opts := k8s.Options{
			Namespace:                "shop",                                        // --namespace
			AnnotationFilter:         "dns in (public)",                             // --annotation-filter
			LabelSelector:            "team=web",                                    // --label-filter
			FQDNTemplate:             fqdn.MustTemplate("{{.Name}}.example.com"),    // --fqdn-template
			CombineFQDN:              true,                                          // --combine-fqdn-annotation
			IgnoreHostnameAnnotation: false,                                         // --ignore-hostname-annotation
			TargetTemplate:           fqdn.MustTemplate("{{.Name}}.lb.example.com"), // --target-template
			FQDNTargetTemplate:       fqdn.MustTemplate(""),                         // --fqdn-target-template
			Annotations: annotations.Config{ // --annotation-prefix, --enable-legacy-annotation-prefix
				Prefixes: []string{annotations.Prefix, annotations.AlphaPrefix},
			},
		}
		assert.Equal(t, []string{annotations.Prefix, annotations.AlphaPrefix}, annotations.DefaultPrefixes())
		assert.Equal(t, "external-dns.kubernetes.io/", annotations.Prefix)
		assert.Equal(t, "external-dns.alpha.kubernetes.io/", annotations.AlphaPrefix)
		sctx, cancel := context.WithCancel(ctx)
		defer cancel()
		kube := fake.NewClientset()
		dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
			k8s.DNSEndpointGVR: "DNSEndpointList",
			{Group: "kubevirt.io", Version: "v1", Resource: "virtualmachineinstances"}: "VirtualMachineInstanceList",
			gatewayapi.GatewayGVR(): "GatewayList",
			{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}: "HTTPRouteList",
		})
		_, err := k8s.NewServiceSource(sctx, kube, k8s.ServiceConfig{Options: opts})
		require.NoError(t, err)
		_, err = k8s.NewIngressSource(sctx, kube, k8s.IngressConfig{Options: opts, IngressClassNames: []string{"nginx"}})
		require.NoError(t, err)
		crdSrc, err := k8s.NewDNSEndpointSource(sctx, dyn, k8s.DNSEndpointConfig{GVR: k8s.DNSEndpointGVR}) // --source=crd, --crd-source-apiversion, --crd-source-kind
		require.NoError(t, err)
		w, err := conditions.NewForDNSEndpoints(dyn, crdSrc) // "Status on DNSEndpoints"
		require.NoError(t, err)
		assert.Implements(t, (*zonesync.Observer)(nil), w)
		assert.NotNil(t, conditions.ErrPruned)
		assert.NotNil(t, conditions.New)
		_, err = k8s.NewUnstructuredSource(sctx, dyn, k8s.UnstructuredConfig{ // --unstructured-resource
			GVR: schema.GroupVersionResource{Group: "kubevirt.io", Version: "v1", Resource: "virtualmachineinstances"}})
		require.NoError(t, err)
		_, err = gatewayapi.NewHTTPRouteSource(sctx, kube, dyn, gatewayapi.Config{Options: k8s.Options{Namespace: "shop"}, GatewayNamespace: "gateways"})
		require.NoError(t, err)
		conn, err := connector.New("localhost:8080", connector.Options{}) // --source=connector
		require.NoError(t, err)
		for _, s := range []source.Source{
			conn,
			source.Empty{}, // --source=empty
			sourcetest.NewFake("example.com", 10, sourcetest.FakeOptions{}), // --source=fake
		} {
			assert.NotNil(t, s)
		}
		nat, err := source.NewNAT64(source.Empty{}, source.NAT64Options{SynthesizeAAAA: true})
		require.NoError(t, err)
		assert.NotNil(t, nat)
		assert.NotNil(t, source.NewDefaultTargets(source.Empty{}, source.DefaultTargetsOptions{Targets: []string{"lb.example.com"}, ReplaceExisting: true})) // --force-default-targets
		assert.NotNil(t, source.NewTargetFilter(source.Empty{}, source.TargetFilterOptions{AllRecordTypes: true}))
		assert.NotNil(t, source.NewPTR(source.Empty{}, source.PTROptions{OnlyAnnotated: true, ReverseZones: endpoint.NewDomainFilter([]string{"2.0.192.in-addr.arpa"})}))
		assert.NotNil(t, source.NewPostProcessor(source.Empty{}, source.PostProcessorOptions{MinTTL: 60, Provider: "cloudflare", PreferAlias: true}))

		// What belongs to the program: the clients (--kubeconfig,
		// --kube-api-qps, ...). Built here, not connected.
		restCfg := &rest.Config{Host: "https://127.0.0.1:6443", QPS: 5, Burst: 10, Timeout: 30 * time.Second}
		_, err = kubernetes.NewForConfig(restCfg)
		require.NoError(t, err)
		_, err = dynamic.NewForConfig(restCfg)
		require.NoError(t, err)
		_ = rest.InClusterConfig // in a pod
	})

	t.Run("providers and wrappers", func(t *testing.T) {
		p, err := rfc2136.New(rfc2136.Config{ // --provider=rfc2136 with zonesync's own provider
			Server: "127.0.0.1:53", Zones: []string{"example.com"},
			TSIG:                &rfc2136.TSIG{KeyName: "zonesync", Algorithm: "hmac-sha256", Secret: "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"},
			MaxChangesPerUpdate: 50, MinTTL: 60, Timeout: 10 * time.Second,
		})
		require.NoError(t, err)
		assert.Equal(t, []string{"example.com"}, p.Zones())
		cached, err := cache.New(zone, cache.Options{TTL: time.Minute}) // --provider-cache-time, --txt-cache-interval
		require.NoError(t, err)
		batched, err := batch.New(cached, batch.Options{MaxRecords: 200, MaxValueBytes: 32000, Pause: time.Second}) // --batch-change-size, --batch-change-interval
		require.NoError(t, err)
		wrapped, err := ratelimit.New(batched, ratelimit.Options{Rate: 5, Burst: 5})
		require.NoError(t, err)
		recs, err := wrapped.Records(ctx)
		require.NoError(t, err)
		assert.NotNil(t, recs)
		h := webhook.NewHandler(zone, webhook.ServerOptions{MaxRequestBytes: 32 << 20}) // --webhook-server
		assert.Implements(t, (*http.Handler)(nil), h)
		_ = webhook.Serve // webhook.Serve(ctx, h, webhook.ServeConfig{})
		_ = webhook.ServeConfig{Address: "127.0.0.1:8888", ReadTimeout: 5 * time.Second, WriteTimeout: 10 * time.Second,
			ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 30 * time.Second}
		_ = webhook.ClientOptions{Timeout: 15 * time.Second, MaxResponseBytes: 32 << 20, HTTPClient: http.DefaultClient} // --webhook-provider-read-timeout etc.
		_ = webhook.NewProvider                                                                                          // --webhook-provider-url
	})

	t.Run("events and metrics", func(t *testing.T) {
		metricsReg := promclient.NewRegistry()
		m, err := prometheus.New(metricsReg, prometheus.Options{})
		require.NoError(t, err)
		var recorder record.EventRecorder = record.NewFakeRecorder(10)
		reg, err := txt.New(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), txt.Config{OwnerID: "default"})
		require.NoError(t, err)
		emitter, err := events.New(recorder, events.Options{}) // --events-emit
		require.NoError(t, err)
		r := zonesync.Reconciler{
			Source:   source.NewStatic(endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1")),
			Registry: reg,
			Observer: zonesync.Observers(m, emitter),
		}
		_, err = r.RunOnce(ctx)
		require.NoError(t, err)
		families, err := metricsReg.Gather()
		require.NoError(t, err)
		var names []string
		for _, f := range families {
			names = append(names, f.GetName())
		}
		assert.Contains(t, names, "external_dns_controller_last_sync_timestamp_seconds")
		assert.Empty(t, recorder.(*record.FakeRecorder).Events, "a record without a resource label names no object to record an Event on")
	})
}
