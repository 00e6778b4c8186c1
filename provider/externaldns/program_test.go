package externaldns_test

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"
	xprovider "sigs.k8s.io/external-dns/provider"
	xinmemory "sigs.k8s.io/external-dns/provider/inmemory"

	"github.com/zonesync/zonesync/policy"
	"github.com/zonesync/zonesync/provider/cache"
	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/registry"
	"github.com/zonesync/zonesync/registry/noop"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes/events"
)

// baseArgs are the flags every program test starts from: external-dns's
// in-memory provider with one zone, the service source, and policy sync
// unless extra has another.
func baseArgs(extra ...string) []string {
	args := []string{"--provider=inmemory", "--inmemory-zone=example.com", "--source=service"}
	if !slices.ContainsFunc(extra, func(a string) bool { return strings.HasPrefix(a, "--policy=") }) {
		args = append(args, "--policy=sync")
	}
	return append(args, extra...)
}

// inmemoryOnly is the provider table of the tests: external-dns's
// in-memory provider only.
func inmemoryOnly() map[string]externaldns.Constructor {
	return map[string]externaldns.Constructor{"inmemory": xinmemory.New}
}

// newProgram parses args as external-dns would and builds the program over
// a fake clientset holding objs. The informers stop when the test ends.
func newProgram(t *testing.T, args []string, opts externaldns.ProgramOptions, objs ...runtime.Object) (*externaldns.Program, error) {
	t.Helper()
	cfg, err := externaldns.ParseFlags(args)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if opts.Kube == nil {
		opts.Kube = kubefake.NewClientset(objs...)
	}
	if opts.Constructors == nil {
		opts.Constructors = inmemoryOnly()
	}
	return externaldns.NewProgram(ctx, cfg, opts)
}

// TestNewProgramSettings checks, flag by flag, the setting each one
// gives the Reconciler, the registry or the provider.
func TestNewProgramSettings(t *testing.T) {
	ownership := func(t *testing.T, p *externaldns.Program) registry.Ownership {
		rep, ok := registry.As[registry.OwnershipReporter](p.Reconciler.Registry)
		require.True(t, ok, "%T reports no ownership", p.Reconciler.Registry)
		return rep.Ownership()
	}
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, p *externaldns.Program)
	}{
		{"defaults", baseArgs(), func(t *testing.T, p *externaldns.Program) {
			r := p.Reconciler
			assert.Equal(t, policy.Sync, r.Policy)
			assert.Equal(t, time.Minute, r.Interval)
			assert.Equal(t, 5*time.Second, r.MinEventSyncInterval)
			assert.True(t, r.IgnoreSourceEvents, "external-dns reacts to no source event without --events")
			assert.False(t, r.DryRun)
			assert.False(t, p.Once)
			assert.Nil(t, r.DomainFilter)
			assert.Nil(t, r.Observer)
			assert.IsType(t, &txt.Registry{}, r.Registry)
			assert.Equal(t, registry.Ownership{OwnerID: "default", ManagedRecordTypes: []string{"A", "AAAA", "CNAME"}}, ownership(t, p))
			assert.IsType(t, &externaldns.Provider{}, p.Provider)
			assert.Empty(t, p.Warnings)
		}},
		{"--policy=upsert-only", baseArgs("--policy=upsert-only"), func(t *testing.T, p *externaldns.Program) {
			assert.Equal(t, policy.UpsertOnly, p.Reconciler.Policy)
		}},
		{"--policy=create-only", baseArgs("--policy=create-only"), func(t *testing.T, p *externaldns.Program) {
			assert.Equal(t, policy.CreateOnly, p.Reconciler.Policy)
		}},
		{"--interval", baseArgs("--interval=3m"), func(t *testing.T, p *externaldns.Program) {
			assert.Equal(t, 3*time.Minute, p.Reconciler.Interval)
		}},
		{"--min-event-sync-interval", baseArgs("--min-event-sync-interval=20s"), func(t *testing.T, p *externaldns.Program) {
			assert.Equal(t, 20*time.Second, p.Reconciler.MinEventSyncInterval)
		}},
		{"--events", baseArgs("--events"), func(t *testing.T, p *externaldns.Program) {
			assert.False(t, p.Reconciler.IgnoreSourceEvents)
		}},
		{"--dry-run", baseArgs("--dry-run"), func(t *testing.T, p *externaldns.Program) {
			assert.True(t, p.Reconciler.DryRun)
		}},
		{"--once", baseArgs("--once"), func(t *testing.T, p *externaldns.Program) {
			assert.True(t, p.Once)
		}},
		{"--domain-filter, --exclude-domains", baseArgs("--domain-filter=example.com", "--exclude-domains=internal.example.com"), func(t *testing.T, p *externaldns.Program) {
			f := p.Reconciler.DomainFilter
			require.NotNil(t, f)
			assert.True(t, f.Match("www.example.com"))
			assert.False(t, f.Match("db.internal.example.com"))
			assert.False(t, f.Match("www.example.org"))
		}},
		{"--regex-domain-filter, --regex-domain-exclusion", baseArgs(`--regex-domain-filter=\.example\.com$`, "--regex-domain-exclusion=^test-", "--domain-filter=example.org"), func(t *testing.T, p *externaldns.Program) {
			f := p.Reconciler.DomainFilter
			require.NotNil(t, f)
			assert.True(t, f.Match("www.example.com"))
			assert.False(t, f.Match("test-a.example.com"))
			assert.False(t, f.Match("www.example.org"), "the regular expressions replace --domain-filter, as in external-dns")
		}},
		{"--txt-owner-id, --migrate-from-txt-owner, --managed-record-types, --exclude-record-types",
			baseArgs("--txt-owner-id=prod", "--migrate-from-txt-owner=old", "--managed-record-types=A", "--managed-record-types=TXT", "--managed-record-types=CNAME", "--exclude-record-types=CNAME"),
			func(t *testing.T, p *externaldns.Program) {
				assert.Equal(t, registry.Ownership{OwnerID: "prod", OldOwnerID: "old", ManagedRecordTypes: []string{"A", "TXT"}}, ownership(t, p))
				assert.Empty(t, p.Reconciler.ManagedRecordTypes, "the TXT registry holds the record types")
			}},
		{"--registry=noop", baseArgs("--registry=noop", "--managed-record-types=A", "--exclude-record-types=AAAA"), func(t *testing.T, p *externaldns.Program) {
			assert.IsType(t, &noop.Registry{}, p.Reconciler.Registry)
			assert.Equal(t, []string{"A"}, p.Reconciler.ManagedRecordTypes)
			assert.Equal(t, []string{"AAAA"}, p.Reconciler.ExcludeRecordTypes)
		}},
		{"--provider-cache-time", baseArgs("--provider-cache-time=1m"), func(t *testing.T, p *externaldns.Program) {
			assert.IsType(t, &cache.Provider{}, p.Provider)
		}},
		{"--txt-cache-interval", baseArgs("--txt-cache-interval=1h"), func(t *testing.T, p *externaldns.Program) {
			assert.IsType(t, &cache.Provider{}, p.Provider)
		}},
		{"--events-emit", baseArgs("--events-emit=RecordReady", "--events-emit=RecordDeleted", "--events-emit=RecordError"), func(t *testing.T, p *externaldns.Program) {
			assert.IsType(t, &events.Observer{}, p.Reconciler.Observer)
			assert.Empty(t, p.Warnings)
		}},
		{"--provider names the provider", baseArgs(), func(t *testing.T, p *externaldns.Program) {
			assert.Equal(t, "inmemory", p.Provider.(*externaldns.Provider).Name())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := newProgram(t, tt.args, externaldns.ProgramOptions{EventRecorder: record.NewFakeRecorder(10)})
			require.NoError(t, err)
			tt.check(t, p)
		})
	}
}

// objects the source tests publish from, in namespace "shop" unless
// named otherwise.
func lbService(ns, name string, ann map[string]string, ip string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
		Status:     corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: ip}}}},
	}
}

func ingress(ns, name string, ann map[string]string, host, ip string) *networkingv1.Ingress {
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann},
		Spec:       networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: host}}},
		Status:     networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: ip}}}},
	}
}

// TestNewProgramSources checks the source flags by what the program's
// source publishes from a fake cluster.
func TestNewProgramSources(t *testing.T) {
	hostname := func(h string, more ...string) map[string]string {
		m := map[string]string{"external-dns.kubernetes.io/hostname": h}
		for i := 0; i+1 < len(more); i += 2 {
			m[more[i]] = more[i+1]
		}
		return m
	}
	web := lbService("shop", "web", hostname("web.example.com", "team", "web"), "192.0.2.10")
	other := lbService("shop", "db", hostname("db.example.com"), "192.0.2.11")
	elsewhere := lbService("blog", "blog", hostname("blog.example.com", "team", "web"), "192.0.2.12")
	alpha := lbService("shop", "old", map[string]string{"external-dns.alpha.kubernetes.io/hostname": "old.example.com"}, "192.0.2.13")
	custom := lbService("shop", "custom", map[string]string{"example.org/hostname": "custom.example.com"}, "192.0.2.14")
	unnamed := lbService("shop", "api", nil, "192.0.2.15")
	ing := ingress("shop", "shop", map[string]string{"team": "web"}, "shop.example.com", "192.0.2.20")
	all := []runtime.Object{web, other, elsewhere, alpha, custom, unnamed, ing}

	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"--source=service reads the v0.23 prefix only", baseArgs(), []string{
			"blog.example.com 0 IN A  192.0.2.12", "db.example.com 0 IN A  192.0.2.11", "web.example.com 0 IN A  192.0.2.10"}},
		{"--enable-legacy-annotation-prefix", baseArgs("--enable-legacy-annotation-prefix"), []string{
			"blog.example.com 0 IN A  192.0.2.12", "db.example.com 0 IN A  192.0.2.11", "old.example.com 0 IN A  192.0.2.13", "web.example.com 0 IN A  192.0.2.10"}},
		{"--annotation-prefix", baseArgs("--annotation-prefix=example.org/"), []string{"custom.example.com 0 IN A  192.0.2.14"}},
		{"--namespace", baseArgs("--namespace=blog"), []string{"blog.example.com 0 IN A  192.0.2.12"}},
		{"--annotation-filter", baseArgs("--annotation-filter=team=web"), []string{
			"blog.example.com 0 IN A  192.0.2.12", "web.example.com 0 IN A  192.0.2.10"}},
		{"--source=ingress", []string{"--provider=inmemory", "--policy=sync", "--source=ingress"}, []string{"shop.example.com 0 IN A  192.0.2.20"}},
		{"--fqdn-template", baseArgs("--namespace=shop", "--fqdn-template={{.Name}}.svc.example.com"), []string{
			"api.svc.example.com 0 IN A  192.0.2.15", "custom.svc.example.com 0 IN A  192.0.2.14", "db.example.com 0 IN A  192.0.2.11",
			"old.svc.example.com 0 IN A  192.0.2.13", "web.example.com 0 IN A  192.0.2.10"}},
		{"--min-ttl", baseArgs("--namespace=blog", "--min-ttl=60s"), []string{"blog.example.com 60 IN A  192.0.2.12"}},
		{"--default-targets, --force-default-targets", baseArgs("--namespace=blog", "--default-targets=192.0.2.99", "--force-default-targets"), []string{"blog.example.com 0 IN A  192.0.2.99"}},
		{"--target-net-filter", baseArgs("--target-net-filter=192.0.2.10/32"), []string{"web.example.com 0 IN A  192.0.2.10"}},
		{"--exclude-target-net", baseArgs("--exclude-target-net=192.0.2.10/31"), []string{"blog.example.com 0 IN A  192.0.2.12"}},
		{"--managed-record-types=PTR and --create-ptr", baseArgs("--namespace=blog", "--managed-record-types=A", "--managed-record-types=PTR", "--create-ptr"), []string{
			"12.2.0.192.in-addr.arpa 0 IN PTR  blog.example.com", "blog.example.com 0 IN A  192.0.2.12"}},
		{"--source twice", []string{"--provider=inmemory", "--policy=sync", "--source=service", "--source=ingress", "--annotation-filter=team=web", "--namespace=shop"}, []string{
			"shop.example.com 0 IN A  192.0.2.20", "web.example.com 0 IN A  192.0.2.10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := newProgram(t, tt.args, externaldns.ProgramOptions{}, all...)
			require.NoError(t, err)
			ctx := context.Background()
			require.NoError(t, p.WaitForSync(ctx))
			eps, err := p.Reconciler.Source.Endpoints(ctx)
			require.NoError(t, err)
			got := make([]string, 0, len(eps))
			for _, ep := range eps {
				got = append(got, ep.String())
			}
			sort.Strings(got)
			assert.Equal(t, tt.want, got)
		})
	}
}

// flagsOf returns the Flag of each issue.
func flagsOf(issues []externaldns.FlagIssue) []string {
	out := make([]string, 0, len(issues))
	for _, i := range issues {
		out = append(out, i.Flag)
	}
	return out
}

// TestNewProgramUnsupportedFlags checks that flags that would change what
// is written, and have no equivalent, stop NewProgram, each named.
func TestNewProgramUnsupportedFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"fake source", []string{"--provider=inmemory", "--policy=sync"}, []string{"--source=fake"}},
		{"dynamodb registry", baseArgs("--registry=dynamodb"), []string{"--registry=dynamodb"}},
		{"aws-sd registry", baseArgs("--registry=aws-sd"), []string{"--registry=aws-sd"}},
		{"compatibility", baseArgs("--compatibility=mate"), []string{"--compatibility=mate"}},
		{"webhook server", baseArgs("--webhook-server"), []string{"--webhook-server"}},
		{"provider without constructor", []string{"--provider=aws", "--source=service", "--policy=sync"}, []string{"--provider=aws"}},
		{"civo", []string{"--provider=civo", "--source=service", "--policy=sync"}, []string{"--provider=civo"}},
		{"several, sorted", []string{"--provider=exoscale", "--source=fake", "--policy=sync", "--registry=dynamodb", "--compatibility=molecule"},
			[]string{"--compatibility=molecule", "--provider=exoscale", "--registry=dynamodb", "--source=fake"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newProgram(t, tt.args, externaldns.ProgramOptions{})
			var unsupported *externaldns.UnsupportedFlagsError
			require.ErrorAs(t, err, &unsupported)
			assert.Equal(t, tt.want, flagsOf(unsupported.Flags))
			for _, f := range tt.want {
				assert.Contains(t, err.Error(), f+": ")
			}
		})
	}
}

// TestNewProgramWarnings checks the flags reported as warnings: given,
// not carried out, changing nothing that is written.
func TestNewProgramWarnings(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		handled []string
		want    []string
	}{
		{"none", baseArgs("--inmemory-zone=example.org", "--publish-internal-services", "--namespace=shop", "--default-targets=192.0.2.1", "--force-default-targets"), nil, []string{}},
		{"program flags", baseArgs("--log-level=debug", "--log-format=json", "--metrics-address=:9000", "--kubeconfig=/k", "--server=https://k", "--kube-api-qps=9", "--kube-api-burst=20", "--kube-api-request-timeout=1m"), nil,
			[]string{"--kube-api-burst", "--kube-api-qps", "--kube-api-request-timeout", "--kubeconfig", "--log-format", "--log-level", "--metrics-address", "--server"}},
		{"program flags the caller handles", baseArgs("--log-level=debug", "--metrics-address=:9000", "--kubeconfig=/k"), []string{"log-level", "kubeconfig"},
			[]string{"--metrics-address"}},
		{"flags external-dns ignores too", baseArgs("--crd-source-kind=Other", "--crd-source-apiversion=example.com/v1"), nil,
			[]string{"--crd-source-apiversion", "--crd-source-kind"}},
		{"flags of another registry", baseArgs("--registry=noop", "--txt-prefix=x-", "--txt-encrypt-aes-key=0123456789abcdef0123456789abcdef", "--crd-registry-namespace=dns", "--dynamodb-table=t"), nil,
			[]string{"--crd-registry-namespace", "--dynamodb-table", "--txt-encrypt-aes-key", "--txt-prefix"}},
		{"a selection of Event reasons", baseArgs("--events-emit=RecordReady"), nil, []string{"--events-emit"}},
		{"flags of other providers", baseArgs("--aws-zone-type=public", "--zone-id-filter=Z1", "--cloudflare-proxied", "--tls-ca=/ca.pem", "--webhook-provider-url=http://127.0.0.1:8888", "--rfc2136-host=ns1.example.org"), nil,
			[]string{"--aws-zone-type", "--cloudflare-proxied", "--rfc2136-host", "--tls-ca", "--webhook-provider-url", "--zone-id-filter"}},
		{"flags of external-dns's webhook server", baseArgs("--webhook-provider-read-header-timeout=1s", "--webhook-provider-idle-timeout=1m"), nil,
			[]string{"--webhook-provider-idle-timeout", "--webhook-provider-read-header-timeout"}},
		{"flags of other sources", baseArgs("--ingress-class=nginx", "--gateway-name=gw", "--pod-source-domain=pods.example.com", "--unstructured-resource=configmaps.v1", "--publish-host-ip"), nil,
			[]string{"--gateway-name", "--ingress-class", "--pod-source-domain", "--unstructured-resource"}},
		{"options of the Kubernetes sources without one", []string{"--provider=inmemory", "--source=empty", "--policy=sync", "--namespace=shop", "--annotation-filter=team=web", "--fqdn-template={{.Name}}.example.com", "--connector-source-server=127.0.0.1:8080"}, nil,
			[]string{"--annotation-filter", "--connector-source-server", "--fqdn-template", "--namespace"}},
		{"forced default targets without any", baseArgs("--force-default-targets"), nil, []string{"--force-default-targets"}},
		{"domain lists beside regular expressions", baseArgs("--regex-domain-exclusion=^internal\\.", "--domain-filter=example.com", "--exclude-domains=a.example.com"), nil,
			[]string{"--domain-filter", "--exclude-domains"}},
		{"owner id with the noop registry", baseArgs("--registry=noop", "--txt-owner-id=me"), nil, []string{"--txt-owner-id"}},
		{"everything at once, sorted", baseArgs("--txt-owner-id=me", "--registry=noop", "--log-level=debug", "--google-project=p", "--ingress-class=nginx", "--txt-prefix=x-", "--crd-source-kind=Other"), nil,
			[]string{"--crd-source-kind", "--google-project", "--ingress-class", "--log-level", "--txt-owner-id", "--txt-prefix"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := newProgram(t, tt.args, externaldns.ProgramOptions{Handled: tt.handled, EventRecorder: record.NewFakeRecorder(10)})
			require.NoError(t, err)
			assert.Equal(t, tt.want, flagsOf(p.Warnings))
			for _, w := range p.Warnings {
				assert.NotContains(t, w.String(), "0123456789abcdef", "an issue never shows a flag's value")
			}
		})
	}
}

// TestNewProgramWarnsAboutFlagsGivenWithDefaults: with
// ProgramOptions.GivenFlags from GivenFlags, a flag given with its default
// value that nothing uses is reported by name too; without it, only the
// flags whose values differ from their defaults are.
func TestNewProgramWarnsAboutFlagsGivenWithDefaults(t *testing.T) {
	tests := []struct {
		name         string
		args         []string
		env          map[string]string
		want         []string // with GivenFlags
		wantByValues []string // without
	}{
		{"used flags", baseArgs("--registry=txt", "--txt-owner-id=default", "--interval=1m", "--no-publish-internal-services"), nil, []string{}, []string{}},
		{"program flags at their defaults", baseArgs("--log-level=info", "--metrics-address=:7979"), nil, []string{"--log-level", "--metrics-address"}, []string{}},
		{"registry flags at their defaults", baseArgs("--registry=noop", "--txt-prefix=", "--txt-owner-id=default"), nil, []string{"--txt-owner-id", "--txt-prefix"}, []string{}},
		{"provider and source flags at their defaults", baseArgs("--aws-zone-type=", "--ingress-class="), nil, []string{"--aws-zone-type", "--ingress-class"}, []string{}},
		{"through the environment", baseArgs(), map[string]string{"EXTERNAL_DNS_LOG_LEVEL": "info", "EXTERNAL_DNS_GOOGLE_PROJECT": "p"}, []string{"--google-project", "--log-level"}, []string{"--google-project"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			given, err := externaldns.GivenFlags(tt.args)
			require.NoError(t, err)
			p, err := newProgram(t, tt.args, externaldns.ProgramOptions{GivenFlags: given})
			require.NoError(t, err)
			assert.Equal(t, tt.want, flagsOf(p.Warnings))
			p, err = newProgram(t, tt.args, externaldns.ProgramOptions{})
			require.NoError(t, err)
			assert.Equal(t, tt.wantByValues, flagsOf(p.Warnings))
		})
	}
}

// TestNewProgramWarnsAboutEnvironmentVariables: a flag set through
// EXTERNAL_DNS_<FLAG> counts as given.
func TestNewProgramWarnsAboutEnvironmentVariables(t *testing.T) {
	t.Setenv("EXTERNAL_DNS_LOG_LEVEL", "debug")
	p, err := newProgram(t, baseArgs(), externaldns.ProgramOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"--log-level"}, flagsOf(p.Warnings))
}

// TestNewProgramRefuses checks the configurations NewProgram refuses with
// an error naming the flag: external-dns's own checks, values zonesync
// cannot use, clients the flags need.
func TestNewProgramRefuses(t *testing.T) {
	tests := []struct {
		name string
		args []string
		opts externaldns.ProgramOptions
		want string
	}{
		{"no policy (external-dns v0.23 requires it)", []string{"--provider=inmemory", "--source=service"}, externaldns.ProgramOptions{}, "--policy must be set"},
		{"prefix and suffix", baseArgs("--txt-prefix=a-", "--txt-suffix=-b"), externaldns.ProgramOptions{}, "txt-prefix and txt-suffix are mutual exclusive"},
		{"encryption without a key", baseArgs("--txt-encrypt-enabled"), externaldns.ProgramOptions{}, "--txt-encrypt-enabled: --txt-encrypt-aes-key is required"},
		{"a key of the wrong size", baseArgs("--txt-encrypt-enabled", "--txt-encrypt-aes-key=short"), externaldns.ProgramOptions{}, "--registry=txt"},
		{"an invalid network", baseArgs("--target-net-filter=192.0.2.0/33"), externaldns.ProgramOptions{}, "--target-net-filter"},
		{"a NAT64 network that is not a /96", baseArgs("--nat64-networks=64:ff9b::/64"), externaldns.ProgramOptions{}, "--nat64-networks"},
		{"an invalid template", baseArgs("--fqdn-template={{.Name"), externaldns.ProgramOptions{}, "--fqdn-template"},
		{"an invalid annotation prefix", baseArgs("--annotation-prefix=no-slash"), externaldns.ProgramOptions{}, "--annotation-prefix must end with '/'"},
		{"a dynamic-client source without one", baseArgs("--source=crd"), externaldns.ProgramOptions{}, "--source=crd: ProgramOptions.Dynamic is nil"},
		{"the crd registry without a dynamic client", baseArgs("--registry=crd"), externaldns.ProgramOptions{}, "--registry=crd: ProgramOptions.Dynamic is nil"},
		{"unstructured without resources", baseArgs("--source=unstructured"), externaldns.ProgramOptions{}, "no --unstructured-resource"},
		{"an unstructured resource the server does not serve", baseArgs("--source=unstructured", "--unstructured-resource=widgets.v1.example.com"), externaldns.ProgramOptions{}, "--unstructured-resource=widgets.v1.example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newProgram(t, tt.args, tt.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			var unsupported *externaldns.UnsupportedFlagsError
			assert.False(t, errors.As(err, &unsupported))
		})
	}
}

// TestProgramRunsExternalDNSFlags runs whole programs from an external-dns
// command line over one zone of external-dns's in-memory provider: the TXT
// records carry the prefix and the owner, the annotation filter holds, and
// upsert-only keeps the record of an object that is gone.
func TestProgramRunsExternalDNSFlags(t *testing.T) {
	args := []string{"--source=service", "--source=ingress", "--provider=inmemory", "--inmemory-zone=example.com",
		"--domain-filter=example.com", "--policy=upsert-only", "--registry=txt", "--txt-owner-id=prod-cluster",
		"--txt-prefix=edns-", "--interval=1m", "--annotation-filter=team=web", "--once"}
	ctx := context.Background()
	cfg, err := externaldns.ParseFlags(args)
	require.NoError(t, err)
	zone, err := xinmemory.New(ctx, cfg, nil)
	require.NoError(t, err)
	// Every program gets the same zone.
	ctors := map[string]externaldns.Constructor{"inmemory": func(context.Context, *xconfig.Config, *xendpoint.DomainFilter) (xprovider.Provider, error) {
		return zone, nil
	}}

	web := lbService("shop", "web", map[string]string{"external-dns.kubernetes.io/hostname": "web.example.com", "team": "web"}, "192.0.2.10")
	db := lbService("shop", "db", map[string]string{"external-dns.kubernetes.io/hostname": "db.example.com"}, "192.0.2.11")
	ing := ingress("shop", "shop", map[string]string{"team": "web"}, "shop.example.com", "192.0.2.20")
	p, err := newProgram(t, args, externaldns.ProgramOptions{Constructors: ctors}, web, db, ing)
	require.NoError(t, err)
	require.Empty(t, p.Warnings)
	require.NoError(t, p.Run(ctx))

	records := func() []string {
		eps, err := p.Provider.Records(ctx)
		require.NoError(t, err)
		var out []string
		for _, ep := range eps {
			out = append(out, ep.DNSName+" "+ep.RecordType+" "+ep.Targets.String())
		}
		return out
	}
	owned := `"heritage=external-dns,external-dns/owner=prod-cluster,external-dns/resource=`
	want := []string{
		"edns-a-shop.example.com TXT " + owned + `ingress/shop/shop"`,
		"edns-a-web.example.com TXT " + owned + `service/shop/web"`,
		"shop.example.com A 192.0.2.20",
		"web.example.com A 192.0.2.10",
	}
	assert.Equal(t, want, records())

	// The same flags over a cluster without the Service: upsert-only
	// deletes nothing.
	p, err = newProgram(t, args, externaldns.ProgramOptions{Constructors: ctors}, db, ing)
	require.NoError(t, err)
	require.NoError(t, p.WaitForSync(ctx))
	cyc, err := p.Reconciler.RunOnce(ctx)
	changes := cyc.Changes
	require.NoError(t, err)
	assert.False(t, changes.HasChanges(), "upsert-only deletes nothing: %v", changes)
	assert.Equal(t, want, records())
}

// TestProgramWaitForSyncWithoutSources: a program whose sources have no
// caches is ready at once.
func TestProgramWaitForSyncWithoutSources(t *testing.T) {
	p, err := newProgram(t, []string{"--provider=inmemory", "--source=empty", "--policy=sync"}, externaldns.ProgramOptions{})
	require.NoError(t, err)
	require.NoError(t, p.WaitForSync(context.Background()))
	assert.True(t, source.HasSynced(p.Reconciler.Source))
}

// TestCheckFlags: CheckFlags gives NewProgram's verdict on the flags
// without building anything, so without any client.
func TestCheckFlags(t *testing.T) {
	_, err := externaldns.CheckFlags(nil, externaldns.ProgramOptions{})
	require.Error(t, err)

	opts := externaldns.ProgramOptions{Constructors: inmemoryOnly(), Handled: []string{"log-level"}}
	cfg, err := externaldns.ParseFlags(baseArgs("--log-level=debug", "--metrics-address=:1", "--source=crd", "--registry=crd"))
	require.NoError(t, err)
	warnings, err := externaldns.CheckFlags(cfg, opts)
	require.NoError(t, err, "no Dynamic client is needed to check the flags")
	assert.Equal(t, []string{"--metrics-address"}, flagsOf(warnings))

	cfg, err = externaldns.ParseFlags(baseArgs("--registry=dynamodb"))
	require.NoError(t, err)
	_, err = externaldns.CheckFlags(cfg, opts)
	var unsupported *externaldns.UnsupportedFlagsError
	require.ErrorAs(t, err, &unsupported)

	cfg, err = externaldns.ParseFlags([]string{"--provider=inmemory", "--source=service"})
	require.NoError(t, err)
	_, err = externaldns.CheckFlags(cfg, opts)
	assert.ErrorContains(t, err, "--policy must be set")
}
