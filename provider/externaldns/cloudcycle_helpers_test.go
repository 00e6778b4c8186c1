package externaldns_test

// What the whole-cycle tests of Cloud DNS (clouddns_cycle_test.go), Azure
// DNS (azuredns_cycle_test.go) and Cloudflare (cloudflare_cycle_test.go)
// share: the cluster they publish, the steps they run through the shared
// harness of wholecycle_test.go, and the runner. Each test supplies its
// provider, constructed through externaldns.New against the provider's
// stand-in (internal/standin), and the stand-in's own view of the zone
// after each step.

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/policy"
)

// Annotations the cycle tests set (external-dns's names; zonesync's
// sources read the same).
const (
	cycleAnnHostname      = "external-dns.alpha.kubernetes.io/hostname"
	cycleAnnTTL           = "external-dns.alpha.kubernetes.io/ttl"
	cycleAnnSetIdentifier = "external-dns.alpha.kubernetes.io/set-identifier"
	cycleAnnProxied       = "external-dns.alpha.kubernetes.io/cloudflare-proxied"
)

// cycleOwner is the --txt-owner-id of every cycle test.
const cycleOwner = "cycle-owner"

// cycleService returns a LoadBalancer Service in namespace default published
// under the hostname annotation, with the load balancer addresses ingress.
func cycleService(name, hostname string, ann map[string]string, ingress ...corev1.LoadBalancerIngress) *corev1.Service {
	a := map[string]string{cycleAnnHostname: hostname}
	for k, v := range ann {
		a[k] = v
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: a},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}},
		Status:     corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: ingress}},
	}
}

// cycleIngress returns an Ingress in namespace default for host, with the
// load balancer addresses ingress.
func cycleIngress(name, host string, ann map[string]string, ingress ...networkingv1.IngressLoadBalancerIngress) *networkingv1.Ingress {
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: ann},
		Spec:       networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: host}}},
		Status:     networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: ingress}},
	}
}

// cycleObjects returns the cluster of the cycle tests: a Service and an
// Ingress behind an IP load balancer (A records) and behind a hostname
// load balancer (CNAME records), and, when geo is set, a Service with a
// set identifier. appAnn are extra annotations of the Ingress "app".
func cycleObjects(geo bool, appAnn map[string]string) []runtime.Object {
	objs := []runtime.Object{
		cycleService("web", "web.example.com", map[string]string{cycleAnnTTL: "300"}, corev1.LoadBalancerIngress{IP: "192.0.2.10"}),
		cycleService("lb", "lb.example.com", map[string]string{cycleAnnTTL: "600"}, corev1.LoadBalancerIngress{Hostname: "lb-1234.elb.example.net"}),
		cycleIngress("app", "app.example.com", appAnn, networkingv1.IngressLoadBalancerIngress{IP: "192.0.2.20"}),
		cycleIngress("cdn", "cdn.example.com", map[string]string{cycleAnnTTL: "120"}, networkingv1.IngressLoadBalancerIngress{Hostname: "cdn-lb.example.net"}),
	}
	if geo {
		objs = append(objs, cycleService("geo", "geo.example.com", map[string]string{cycleAnnSetIdentifier: "eu"}, corev1.LoadBalancerIngress{IP: "192.0.2.30"}))
	}
	return objs
}

// cycleSetServiceIP points the load balancer of the Service "web" at ip.
func cycleSetServiceIP(ip string) func(*testing.T, *kubefake.Clientset) {
	return func(t *testing.T, kube *kubefake.Clientset) {
		svc, err := kube.CoreV1().Services("default").Get(t.Context(), "web", metav1.GetOptions{})
		require.NoError(t, err)
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
		_, err = kube.CoreV1().Services("default").UpdateStatus(t.Context(), svc, metav1.UpdateOptions{})
		require.NoError(t, err)
	}
}

// cycleSetIngressIP points the load balancer of the Ingress "app" at ip.
func cycleSetIngressIP(ip string) func(*testing.T, *kubefake.Clientset) {
	return func(t *testing.T, kube *kubefake.Clientset) {
		ing, err := kube.NetworkingV1().Ingresses("default").Get(t.Context(), "app", metav1.GetOptions{})
		require.NoError(t, err)
		ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: ip}}
		_, err = kube.NetworkingV1().Ingresses("default").UpdateStatus(t.Context(), ing, metav1.UpdateOptions{})
		require.NoError(t, err)
	}
}

// cycleDeleteCDN deletes the Ingress "cdn", and the Service "geo" when
// it exists.
func cycleDeleteCDN(t *testing.T, kube *kubefake.Clientset) {
	require.NoError(t, kube.NetworkingV1().Ingresses("default").Delete(t.Context(), "cdn", metav1.DeleteOptions{}))
	err := kube.CoreV1().Services("default").Delete(t.Context(), "geo", metav1.DeleteOptions{})
	if err != nil {
		require.Contains(t, err.Error(), "not found")
	}
}

// cycleStep is one cycle of a whole-cycle scenario.
type cycleStep struct {
	name string
	// mutate changes the cluster before the cycle; nil leaves it.
	mutate func(*testing.T, *kubefake.Clientset)
	// externalDNS runs external-dns's controller cycle instead of
	// zonesync's Reconciler.
	externalDNS bool
	// policy is the --policy of the cycle; empty means sync.
	policy string
	// creates, updates and deletes are the changes the cycle must plan
	// and apply (records, their ownership TXT records not counted).
	creates, updates, deletes int
	// unsupported are the names of the desired endpoints zonesync must
	// skip as unsupported by the provider (plan.SkipUnsupported).
	unsupported []string
	// view is the provider's own view of the zone afterwards (the
	// stand-in's records), in the form of the test's view function.
	view []string
}

// cycleHarness is one provider's scenario: the shared harness, the
// cluster, and the stand-in's view of the zone and count of writes.
type cycleHarness struct {
	wc   *wholeCycle
	kube *kubefake.Clientset
	// view returns the stand-in's records of the zone under test.
	view func() []string
	// writes returns how many write requests the stand-in has served.
	writes func() int
	last   *cycleObserver
}

// newCycleHarness wires zonesync's Reconciler of wc to record its cycles.
func newCycleHarness(t *testing.T, wc *wholeCycle, kube *kubefake.Clientset, view func() []string, writes func() int) *cycleHarness {
	t.Helper()
	r, err := wc.Reconciler()
	require.NoError(t, err)
	last := &cycleObserver{}
	r.Observer = last
	return &cycleHarness{wc: wc, kube: kube, view: view, writes: writes, last: last}
}

// run runs the steps in order; each step is a subtest, and a failed step
// ends the scenario (the next steps build on its zone).
func (h *cycleHarness) run(t *testing.T, steps []cycleStep) {
	for _, st := range steps {
		ok := t.Run(st.name, func(t *testing.T) {
			if st.mutate != nil {
				st.mutate(t, h.kube)
			}
			pol := st.policy
			if pol == "" {
				pol = string(policy.Sync)
			}
			writesBefore := h.writes()
			var creates, updates, deletes int
			var desc string
			if st.externalDNS {
				h.wc.Config.Policy = pol
				changes, err := h.wc.RunExternalDNS(t.Context())
				require.NoError(t, err, describeX(changes))
				creates, updates, deletes = len(changes.Create), len(changes.UpdateNew), len(changes.Delete)
				desc = describeX(changes)
				assert.Empty(t, st.unsupported, "the test asks external-dns's cycle for zonesync's skips")
			} else {
				r, err := h.wc.Reconciler()
				require.NoError(t, err)
				r.Policy, err = policy.ByName(pol)
				require.NoError(t, err)
				changes, err := h.wc.RunZonesync(t.Context())
				require.NoError(t, err, cycleDescribe(changes))
				creates, updates, deletes = len(changes.Create), len(changes.UpdateNew), len(changes.Delete)
				desc = cycleDescribe(changes)
				assert.Equal(t, st.unsupported, h.last.unsupported(), "names skipped as unsupported")
			}
			assert.Equal(t, [3]int{st.creates, st.updates, st.deletes}, [3]int{creates, updates, deletes},
				"creates, updates, deletes: %s", desc)
			if st.creates+st.updates+st.deletes == 0 {
				assert.Equal(t, writesBefore, h.writes(), "a cycle that plans nothing writes nothing")
			}
			assert.Equal(t, st.view, h.view(), "the provider's zone after the cycle")
		})
		if !ok {
			return
		}
	}
}

// cycleDescribe renders zonesync's changes for a failure message.
func cycleDescribe(c *plan.Changes) string {
	if c == nil {
		return "<nil>"
	}
	return fmt.Sprintf("create %v, update old %v new %v, delete %v", c.Create, c.UpdateOld, c.UpdateNew, c.Delete)
}

// cycleObserver is a zonesync.Observer that keeps the last cycle.
type cycleObserver struct {
	mu sync.Mutex
	c  zonesync.Cycle
}

func (l *cycleObserver) CycleStarted(context.Context, time.Time) {}

func (l *cycleObserver) CycleFinished(_ context.Context, c zonesync.Cycle) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.c = c
}

// unsupported returns the names the last cycle skipped as unsupported by
// the provider, in the plan's order.
func (l *cycleObserver) unsupported() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c.Plan == nil {
		return nil
	}
	var names []string
	for _, s := range l.c.Plan.Skipped {
		if s.Reason == plan.SkipUnsupported {
			names = append(names, s.Endpoint.DNSName)
		}
	}
	return names
}

// cycleTXT returns the ownership TXT value of the resource res (such as
// "service/default/web") for the cycle tests' owner, quoted as the TXT
// registries write it.
func cycleTXT(res string) string {
	return `"heritage=external-dns,external-dns/owner=` + cycleOwner + `,external-dns/resource=` + res + `"`
}

// cycleViews are a provider's own views of its zone (the stand-in's
// records, in the test's form) at the stages of the scenarios, each with
// the foreign record that nobody owns and the apex records left out.
type cycleViews struct {
	// created: web (192.0.2.10), lb, app (192.0.2.20) and cdn with their
	// ownership TXT records.
	created []string
	// upserted: created with web at 192.0.2.11.
	upserted []string
	// deleted: upserted without cdn and its TXT record.
	deleted []string
	// xupdated: deleted with app at 192.0.2.21.
	xupdated []string
}

// zonesyncFirstSteps is the scenario in which zonesync writes the zone
// and external-dns takes it over, then hands it back: zonesync creates
// (the Service with a set identifier refused as unsupported, when geo),
// plans nothing, updates without deleting under upsert-only, deletes
// under sync, plans nothing; external-dns plans nothing on that zone and
// updates it; zonesync plans nothing on external-dns's update.
func zonesyncFirstSteps(v cycleViews, geo bool) []cycleStep {
	var unsupported []string
	if geo {
		unsupported = []string{"geo.example.com"}
	}
	return []cycleStep{
		{name: "zonesync creates", creates: 4, unsupported: unsupported, view: v.created},
		{name: "zonesync plans nothing", unsupported: unsupported, view: v.created},
		{name: "upsert-only updates and keeps the deleted Ingress's records", policy: string(policy.UpsertOnly),
			mutate: func(t *testing.T, kube *kubefake.Clientset) {
				cycleSetServiceIP("192.0.2.11")(t, kube)
				cycleDeleteCDN(t, kube)
			}, updates: 1, view: v.upserted},
		{name: "sync deletes", deletes: 1, view: v.deleted},
		{name: "zonesync plans nothing after the delete", view: v.deleted},
		{name: "external-dns plans nothing on zonesync's zone", externalDNS: true, view: v.deleted},
		{name: "external-dns updates", externalDNS: true, mutate: cycleSetIngressIP("192.0.2.21"), updates: 1, view: v.xupdated},
		{name: "zonesync plans nothing on external-dns's update", view: v.xupdated},
	}
}

// externalDNSFirstSteps is the scenario in which external-dns's
// controller writes the zone and zonesync takes it over, then hands it
// back: external-dns creates and plans nothing; zonesync plans nothing on
// that zone and updates it; external-dns plans nothing on zonesync's
// update and deletes; zonesync plans nothing.
func externalDNSFirstSteps(v cycleViews) []cycleStep {
	return []cycleStep{
		{name: "external-dns creates", externalDNS: true, creates: 4, view: v.created},
		{name: "external-dns plans nothing", externalDNS: true, view: v.created},
		{name: "zonesync plans nothing on external-dns's zone", view: v.created},
		{name: "zonesync updates", mutate: cycleSetServiceIP("192.0.2.11"), updates: 1, view: v.upserted},
		{name: "external-dns plans nothing on zonesync's update", externalDNS: true, view: v.upserted},
		{name: "external-dns deletes", externalDNS: true, mutate: cycleDeleteCDN, deletes: 1, view: v.deleted},
		{name: "zonesync plans nothing on external-dns's delete", view: v.deleted},
	}
}

// cycleFlags are the flags of every cycle test besides the provider's:
// one domain, the TXT registry with the tests' owner, sync.
func cycleFlags(provider ...string) []string {
	return append([]string{
		"--domain-filter=example.com", "--registry=txt", "--txt-owner-id=" + cycleOwner, "--policy=sync",
	}, provider...)
}

// replaceView returns a copy of view with the line old replaced by repl,
// or removed when repl is empty. It panics when view has no line old, so
// that a mistyped expectation cannot pass unnoticed.
func replaceView(view []string, old, repl string) []string {
	i := slices.Index(view, old)
	if i < 0 {
		panic(fmt.Sprintf("replaceView: no line %q in %q", old, view))
	}
	out := slices.Clone(view)
	if repl == "" {
		return slices.Delete(out, i, i+1)
	}
	out[i] = repl
	return out
}
