package externaldns_test

// API calls per steady cycle on Route 53 (moto behind internal/motoserver's
// counting proxy): a zone of n names published by n Services, each an A
// record and its ownership TXT record, read by zonesync's Reconciler
// without and with provider/cache, and by external-dns's controller cycle,
// over the same provider. A steady cycle is one that plans nothing; the
// counts are the Route 53 requests it makes. docs/benchmarks.md has the
// table at 1,000 and 10,000 names.

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/zonesync/zonesync/internal/motoserver"
	"github.com/zonesync/zonesync/provider/cache"
)

// route53Scale returns n Services svc-00000 … published as
// svc-NNNNN.example.com behind an IP load balancer, and the record sets
// both controllers write for them: the A record and its TXT record.
func route53Scale(n int) ([]runtime.Object, []motoserver.RecordSet) {
	objs := make([]runtime.Object, 0, n)
	sets := make([]motoserver.RecordSet, 0, 2*n)
	ttl := int64(300)
	for i := range n {
		name := fmt.Sprintf("svc-%05d", i)
		ip := fmt.Sprintf("10.%d.%d.%d", i>>16&0xff, i>>8&0xff, i&0xff)
		objs = append(objs, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name,
				Annotations: map[string]string{r53AnnHostname: name + ".example.com"}},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}},
			Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{
				Ingress: []corev1.LoadBalancerIngress{{IP: ip}}}},
		})
		sets = append(sets,
			motoserver.RecordSet{Name: name + ".example.com", Type: "A", TTL: &ttl,
				ResourceRecords: []motoserver.ResourceRecord{{Value: ip}}},
			motoserver.RecordSet{Name: "edns-a-" + name + ".example.com", Type: "TXT", TTL: &ttl,
				ResourceRecords: []motoserver.ResourceRecord{{Value: r53TXT("service/default/" + name)}}},
		)
	}
	return objs, sets
}

// route53Controllers are the three readers compared, each with the cycle
// it runs; a cycle reports whether it planned anything.
type route53Controller struct {
	name string
	run  func(ctx context.Context) (planned bool, err error)
}

// route53Steady loads a zone of n names into moto and returns the
// controllers over it, each past its first cycle (which must plan
// nothing: the zone is what they would have written), so that the next
// cycle of each is a steady one.
func route53Steady(tb testing.TB, n int) (*motoserver.Server, []route53Controller) {
	tb.Helper()
	srv, zone := startRoute53(tb)
	objs, sets := route53Scale(n)
	srv.Load(zone, sets)
	kube := newKube(objs...)
	cfg := route53Config(tb)
	p := newRoute53(tb, cfg)

	plain := newWholeCycle(tb, kube, cfg, p)
	cached := newWholeCycle(tb, kube, cfg, p)
	// A TTL far longer than the benchmark: every steady cycle is served
	// from the cache, as cycles within --provider-cache-time are.
	cp, err := cache.New(p, cache.Options{TTL: 24 * time.Hour})
	if err != nil {
		tb.Fatal(err)
	}
	cached.ZonesyncProvider = cp
	xdns := newWholeCycle(tb, kube, cfg, p)
	zonesyncRun := func(wc *wholeCycle) func(context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			c, err := wc.RunZonesync(ctx)
			return c != nil && c.HasChanges(), err
		}
	}
	ctrls := []route53Controller{
		{name: "zonesync", run: zonesyncRun(plain)},
		{name: "zonesync+cache", run: zonesyncRun(cached)},
		{name: "external-dns", run: func(ctx context.Context) (bool, error) {
			c, err := xdns.RunExternalDNS(ctx)
			return c != nil && c.HasChanges(), err
		}},
	}
	for _, c := range ctrls {
		planned, err := c.run(context.Background())
		require.NoError(tb, err, c.name)
		require.False(tb, planned, "%s plans nothing over the loaded zone", c.name)
	}
	require.Empty(tb, srv.Refusals())
	return srv, ctrls
}

// steadyCalls runs one steady cycle of c and returns the requests it
// made.
func steadyCalls(tb testing.TB, srv *motoserver.Server, c route53Controller) motoserver.Counts {
	tb.Helper()
	srv.ResetCounts()
	planned, err := c.run(context.Background())
	require.NoError(tb, err, c.name)
	require.False(tb, planned, "%s: a steady cycle plans nothing", c.name)
	return srv.Counts()
}

// listCalls counts the list requests of a cycle.
func listCalls(c motoserver.Counts) int {
	return c[motoserver.OpListHostedZones] + c[motoserver.OpListHostedZonesByName] +
		c[motoserver.OpListResourceRecordSets] + c[motoserver.OpListTagsForResource] + c[motoserver.OpListTagsForResources]
}

// TestRoute53APICalls checks, at 1,000 names, that a steady zonesync cycle
// makes no more Route 53 requests than external-dns's, of each operation,
// and that with provider/cache it makes none at all. The aws provider
// answers GetDomainFilter with a ListHostedZones request: a cycle that
// asks for the filter more often than external-dns's controller (once), or
// a cache that does not keep it, fails here.
func TestRoute53APICalls(t *testing.T) {
	srv, ctrls := route53Steady(t, 1000)
	calls := map[string]motoserver.Counts{}
	for _, c := range ctrls {
		calls[c.name] = steadyCalls(t, srv, c)
		t.Logf("%s: %v", c.name, calls[c.name])
	}
	x := calls["external-dns"]
	// 2,002 record sets (with the apex NS and SOA), 300 a page.
	assert.Equal(t, 7, x[motoserver.OpListResourceRecordSets], "external-dns: %v", x)
	for op, n := range calls["zonesync"] {
		assert.LessOrEqual(t, n, x[op], "zonesync's %s calls: %v, external-dns's: %v", op, calls["zonesync"], x)
	}
	assert.LessOrEqual(t, calls["zonesync"].Total(), x.Total())
	assert.Zero(t, listCalls(calls["zonesync+cache"]), "zonesync+cache: %v", calls["zonesync+cache"])
	assert.Zero(t, calls["zonesync+cache"].Total(), "zonesync+cache: %v", calls["zonesync+cache"])
}

// BenchmarkRoute53APICalls reports the Route 53 requests of one steady
// cycle of each controller at 1,000 and 10,000 names, per operation
// (list-zones/op: ListHostedZones, list-rrsets/op: ListResourceRecordSets,
// get/op: GetHostedZone and GetChange, change/op: ChangeResourceRecordSets,
// calls/op: all). Loading 10,000 names into moto takes about a minute.
func BenchmarkRoute53APICalls(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("names=%d", n), func(b *testing.B) {
			srv, ctrls := route53Steady(b, n)
			for _, c := range ctrls {
				b.Run(c.name, func(b *testing.B) {
					var sum motoserver.Counts = motoserver.Counts{}
					cycles := 0
					for b.Loop() {
						for op, k := range steadyCalls(b, srv, c) {
							sum[op] += k
						}
						cycles++
					}
					per := func(k int) float64 { return float64(k) / float64(cycles) }
					b.ReportMetric(per(sum[motoserver.OpListHostedZones]+sum[motoserver.OpListHostedZonesByName]), "list-zones/op")
					b.ReportMetric(per(sum[motoserver.OpListResourceRecordSets]), "list-rrsets/op")
					b.ReportMetric(per(sum[motoserver.OpGetHostedZone]+sum[motoserver.OpGetChange]), "get/op")
					b.ReportMetric(per(sum[motoserver.OpChangeResourceRecordSets]), "change/op")
					b.ReportMetric(per(sum.Total()), "calls/op")
				})
			}
		})
	}
}
