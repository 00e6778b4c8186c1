package externaldns_test

// Route 53 whole cycles against moto's emulator (internal/motoserver:
// moto_server behind a proxy that refuses what real Route 53 refuses and
// counts the API requests): external-dns's aws provider constructed
// through externaldns.New from external-dns flags, zonesync's Reconciler
// and external-dns's controller cycle (wholecycle_test.go) over Services
// and Ingresses in a fake clientset. Without moto_server the tests skip,
// unless ZONESYNC_REQUIRE_MOTO=1.

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"
	"sigs.k8s.io/external-dns/provider/aws"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/motoserver"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/externaldns"
)

const (
	r53Owner = "prod-cluster"
	// r53ShopELB and r53StoreELB are classic ELB host names in us-east-1,
	// whose canonical hosted zone is r53ELBZone (external-dns's table).
	r53ShopELB  = "k8s-shop-1234567890.us-east-1.elb.amazonaws.com"
	r53StoreELB = "k8s-store-0987654321.us-east-1.elb.amazonaws.com"
	r53ELBZone  = "Z35SXDOTRQ7X7K"

	r53AnnHostname = "external-dns.alpha.kubernetes.io/hostname"
	r53AnnSetID    = "external-dns.alpha.kubernetes.io/set-identifier"
	r53AnnWeight   = "external-dns.alpha.kubernetes.io/aws-weight"
	r53AnnCountry  = "external-dns.alpha.kubernetes.io/aws-geolocation-country-code"
)

// startRoute53 starts moto behind the proxy, creates the public zone
// example.com and points the AWS SDK at the proxy with fake static keys.
func startRoute53(t testing.TB) (*motoserver.Server, string) {
	t.Helper()
	srv := motoserver.Start(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAFAKEFAKEFAKEFAKE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "fake-secret")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_ENDPOINT_URL_ROUTE_53", srv.URL())
	return srv, srv.CreateZone("example.com")
}

// route53Config is the external-dns configuration of the deployment the
// tests run, with extra flags after the common ones. Batches are sent
// without external-dns's pause of a second between them.
func route53Config(t testing.TB, extra ...string) *xconfig.Config {
	t.Helper()
	return parseFlags(t, append([]string{
		"--provider=aws", "--aws-zone-type=public", "--domain-filter=example.com",
		"--registry=txt", "--txt-owner-id=" + r53Owner, "--txt-prefix=edns-",
		"--aws-batch-change-interval=0s",
	}, extra...)...)
}

// newRoute53 constructs external-dns's aws provider for cfg through the
// adapter.
func newRoute53(t testing.TB, cfg *xconfig.Config) *externaldns.Provider {
	t.Helper()
	p, err := externaldns.New(context.Background(), aws.New, cfg, xendpoint.NewDomainFilter(cfg.DomainFilter))
	require.NoError(t, err)
	return p
}

// route53View is the zone as moto holds it, without the apex NS and SOA,
// one line per record set (motoserver.RecordSet.String).
func route53View(srv *motoserver.Server, zoneID string) []string {
	var out []string
	for _, r := range srv.RecordSets(zoneID) {
		if r.Type == "NS" || r.Type == "SOA" {
			continue
		}
		out = append(out, r.String())
	}
	return out
}

// r53Service is a LoadBalancer Service in namespace default published
// under host, with the annotations ann and the load balancer address lb
// (an IP or a host name).
func r53Service(name, host, lb string, ann ...string) *corev1.Service {
	a := map[string]string{r53AnnHostname: host}
	for i := 0; i+1 < len(ann); i += 2 {
		a[ann[i]] = ann[i+1]
	}
	ing := corev1.LoadBalancerIngress{Hostname: lb}
	if net.ParseIP(lb) != nil {
		ing = corev1.LoadBalancerIngress{IP: lb}
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: a},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}},
		Status:     corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{ing}}},
	}
}

// r53Ingress is an Ingress in namespace default for host behind the load
// balancer host name lb.
func r53Ingress(name, host, lb string) *networkingv1.Ingress {
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: host}}},
		Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{
			Ingress: []networkingv1.IngressLoadBalancerIngress{{Hostname: lb}}}},
	}
}

// route53Objects is the cluster: a Service behind an IP load balancer, a
// Service and an Ingress behind ELB host names, two weighted Services
// sharing a name and two geolocation Services sharing another.
func route53Objects() []runtime.Object {
	return []runtime.Object{
		r53Service("web", "web.example.com", "203.0.113.10"),
		r53Service("shop", "shop.example.com", r53ShopELB),
		r53Ingress("store", "store.example.com", r53StoreELB),
		r53Service("blue", "app.example.com", "203.0.113.21", r53AnnSetID, "blue", r53AnnWeight, "10"),
		r53Service("green", "app.example.com", "203.0.113.22", r53AnnSetID, "green", r53AnnWeight, "90"),
		r53Service("geo-de", "geo.example.com", "203.0.113.31", r53AnnSetID, "de", r53AnnCountry, "DE"),
		r53Service("geo-us", "geo.example.com", "203.0.113.32", r53AnnSetID, "us", r53AnnCountry, "US"),
	}
}

// r53TXT is the value of the ownership TXT record of a record of the
// object resource, as external-dns writes it on Route 53 (quoted).
func r53TXT(resource string) string {
	return `"heritage=external-dns,external-dns/owner=` + r53Owner + `,external-dns/resource=` + resource + `"`
}

// route53Converged is the zone once the objects of route53Objects are
// published: the records and one ownership TXT record each, under the
// prefix edns- with the record type. Alias records have no TTL; their
// TXT records have external-dns's default of 300.
func route53Converged() []string {
	alias := func(name, typ, elb string) string {
		return name + " " + typ + " alias=" + elb + ". zone=" + r53ELBZone + " evaluate-target-health=true"
	}
	return []string{
		"app.example.com. A set=blue weight=10 ttl=300 203.0.113.21",
		"app.example.com. A set=green weight=90 ttl=300 203.0.113.22",
		"edns-a-app.example.com. TXT set=blue weight=10 ttl=300 " + r53TXT("service/default/blue"),
		"edns-a-app.example.com. TXT set=green weight=90 ttl=300 " + r53TXT("service/default/green"),
		"edns-a-geo.example.com. TXT set=de geo=/DE/ ttl=300 " + r53TXT("service/default/geo-de"),
		"edns-a-geo.example.com. TXT set=us geo=/US/ ttl=300 " + r53TXT("service/default/geo-us"),
		"edns-a-shop.example.com. TXT ttl=300 " + r53TXT("service/default/shop"),
		"edns-aaaa-shop.example.com. TXT ttl=300 " + r53TXT("service/default/shop"),
		"edns-a-store.example.com. TXT ttl=300 " + r53TXT("ingress/default/store"),
		"edns-aaaa-store.example.com. TXT ttl=300 " + r53TXT("ingress/default/store"),
		"edns-a-web.example.com. TXT ttl=300 " + r53TXT("service/default/web"),
		"geo.example.com. A set=de geo=/DE/ ttl=300 203.0.113.31",
		"geo.example.com. A set=us geo=/US/ ttl=300 203.0.113.32",
		alias("shop.example.com.", "A", r53ShopELB),
		alias("shop.example.com.", "AAAA", r53ShopELB),
		alias("store.example.com.", "A", r53StoreELB),
		alias("store.example.com.", "AAAA", r53StoreELB),
		"web.example.com. A ttl=300 203.0.113.10",
	}
}

// sortedView sorts a view, so that views compare whatever moto's order.
func sortedView(v []string) []string {
	v = slices.Clone(v)
	slices.Sort(v)
	return v
}

// TestRoute53WholeCycle runs zonesync's cycles on Route 53: the objects
// are published (alias A and AAAA records for the ELB host names, weighted
// and geolocation record sets, TXT ownership records), a second cycle
// plans nothing, an upsert-only cycle updates but does not delete, a sync
// cycle deletes, and the cycle after it plans nothing.
func TestRoute53WholeCycle(t *testing.T) {
	srv, zone := startRoute53(t)
	ctx := t.Context()
	cfg := route53Config(t)
	p := newRoute53(t, cfg)
	kube := newKube(route53Objects()...)
	wc := newWholeCycle(t, kube, cfg, p)

	changes, err := wc.RunZonesync(ctx)
	require.NoError(t, err)
	assert.Len(t, changes.Create, 9, "created: %v", changes)
	assert.Empty(t, srv.Refusals())
	assert.Equal(t, sortedView(route53Converged()), sortedView(route53View(srv, zone)))

	changes, err = wc.RunZonesync(ctx)
	require.NoError(t, err)
	assert.False(t, changes.HasChanges(), "second cycle plans nothing: %v", changes)

	// What the adapter reads back: the alias records as A and AAAA with
	// the ELB host name, alias=true and evaluate-target-health.
	recs, err := p.Records(ctx)
	require.NoError(t, err)
	var shop []string
	for _, r := range recs {
		if r.DNSName == "shop.example.com" {
			alias, _ := r.GetProviderSpecificProperty(endpoint.ProviderSpecificAlias)
			eth, _ := r.GetProviderSpecificProperty("aws/evaluate-target-health")
			shop = append(shop, fmt.Sprintf("%s %v alias=%s evaluate-target-health=%s", r.RecordType, r.Targets, alias, eth))
		}
	}
	assert.Equal(t, []string{
		"A " + r53ShopELB + " alias=true evaluate-target-health=true",
		"AAAA " + r53ShopELB + " alias=true evaluate-target-health=true",
	}, shop)

	// web moves to another address and green goes away.
	web := r53Service("web", "web.example.com", "203.0.113.11")
	_, err = kube.CoreV1().Services("default").Update(ctx, web, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.NoError(t, kube.CoreV1().Services("default").Delete(ctx, "green", metav1.DeleteOptions{}))

	upsertOnly := newWholeCycle(t, kube, route53Config(t, "--policy=upsert-only"), newRoute53(t, cfg))
	changes, err = upsertOnly.RunZonesync(ctx)
	require.NoError(t, err)
	assert.Len(t, changes.UpdateNew, 1, "upsert-only updates web: %v", changes)
	assert.Empty(t, changes.Delete, "upsert-only deletes nothing: %v", changes)
	view := route53View(srv, zone)
	assert.Contains(t, view, "web.example.com. A ttl=300 203.0.113.11")
	assert.Contains(t, view, "app.example.com. A set=green weight=90 ttl=300 203.0.113.22", "upsert-only keeps green")
	changes, err = upsertOnly.RunZonesync(ctx)
	require.NoError(t, err)
	assert.False(t, changes.HasChanges(), "upsert-only converged: %v", changes)

	changes, err = wc.RunZonesync(ctx)
	require.NoError(t, err)
	require.Len(t, changes.Delete, 1, "sync deletes green (and the registry its TXT record): %v", changes)
	assert.Empty(t, changes.Create)
	assert.Empty(t, changes.UpdateNew)
	want := slices.DeleteFunc(route53Converged(), func(s string) bool { return strings.Contains(s, "set=green") })
	want[slices.Index(want, "web.example.com. A ttl=300 203.0.113.10")] = "web.example.com. A ttl=300 203.0.113.11"
	assert.Equal(t, sortedView(want), sortedView(route53View(srv, zone)))
	assert.Empty(t, srv.Refusals())

	changes, err = wc.RunZonesync(ctx)
	require.NoError(t, err)
	assert.False(t, changes.HasChanges(), "after the delete nothing is planned: %v", changes)
}

// TestRoute53SameRecordsAsExternalDNS publishes the same objects once with
// external-dns's controller cycle and once with zonesync's, each in a new
// zone, and compares the record sets moto holds: alias, weighted and
// geolocation record sets and the TXT records, byte for byte.
func TestRoute53SameRecordsAsExternalDNS(t *testing.T) {
	srv, zone := startRoute53(t)
	ctx := t.Context()
	cfg := route53Config(t)

	xc, err := newWholeCycle(t, newKube(route53Objects()...), cfg, newRoute53(t, cfg)).RunExternalDNS(ctx)
	require.NoError(t, err)
	require.Len(t, xc.Create, 9, "external-dns creates (and its registry the TXT records): %s", describeX(xc))
	byExternalDNS := route53View(srv, zone)

	srv.Reset()
	zone = srv.CreateZone("example.com")
	changes, err := newWholeCycle(t, newKube(route53Objects()...), cfg, newRoute53(t, cfg)).RunZonesync(ctx)
	require.NoError(t, err)
	require.True(t, changes.HasChanges())
	byZonesync := route53View(srv, zone)

	// moto lists record sets of one name and type in the order they were
	// written, which differs between the two; their contents may not.
	assert.Equal(t, sortedView(byExternalDNS), sortedView(byZonesync))
	assert.Equal(t, sortedView(route53Converged()), sortedView(byZonesync))
}

// TestRoute53SwitchOver hands a zone from external-dns's controller to
// zonesync and back, with the same owner id and TXT settings: neither
// plans anything over what the other wrote, and each then changes and
// deletes what the other created.
func TestRoute53SwitchOver(t *testing.T) {
	srv, zone := startRoute53(t)
	ctx := t.Context()
	cfg := route53Config(t)
	kube := newKube(route53Objects()...)
	wc := newWholeCycle(t, kube, cfg, newRoute53(t, cfg))

	// external-dns writes the zone and converges.
	xc, err := wc.RunExternalDNS(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, xc.Create)
	xc, err = wc.RunExternalDNS(ctx)
	require.NoError(t, err)
	require.False(t, xc.HasChanges(), "external-dns converged: %s", describeX(xc))

	// zonesync reads it and plans nothing, twice; it owns every record.
	for range 2 {
		changes, err := wc.RunZonesync(ctx)
		require.NoError(t, err)
		assert.False(t, changes.HasChanges(), "zonesync plans nothing over external-dns's zone: %v", changes)
	}
	r, err := wc.Reconciler()
	require.NoError(t, err)
	recs, err := r.Registry.Records(ctx)
	require.NoError(t, err)
	owned := 0
	for _, rec := range recs {
		if rec.RecordType == endpoint.RecordTypeA || rec.RecordType == endpoint.RecordTypeAAAA {
			assert.True(t, rec.IsOwnedBy(r53Owner), "owned: %v", rec)
			owned++
		}
	}
	assert.Equal(t, 9, owned)

	// zonesync changes what external-dns created: shop moves to another
	// ELB, geo-us goes, api comes.
	shop := r53Service("shop", "shop.example.com", "k8s-shop2-1111111111.us-east-1.elb.amazonaws.com")
	_, err = kube.CoreV1().Services("default").Update(ctx, shop, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.NoError(t, kube.CoreV1().Services("default").Delete(ctx, "geo-us", metav1.DeleteOptions{}))
	_, err = kube.CoreV1().Services("default").Create(ctx, r53Service("api", "api.example.com", "203.0.113.40"), metav1.CreateOptions{})
	require.NoError(t, err)
	changes, err := wc.RunZonesync(ctx)
	require.NoError(t, err)
	assert.Len(t, changes.Create, 1, "api: %v", changes)
	assert.Len(t, changes.UpdateNew, 2, "shop's A and AAAA: %v", changes)
	assert.Len(t, changes.Delete, 1, "geo-us: %v", changes)
	afterZonesync := route53View(srv, zone)
	assert.NotContains(t, strings.Join(afterZonesync, "\n"), "set=us", "geo-us and its TXT record are gone")
	assert.Contains(t, afterZonesync, "edns-a-api.example.com. TXT ttl=300 "+r53TXT("service/default/api"))
	assert.Contains(t, afterZonesync, "shop.example.com. AAAA alias=k8s-shop2-1111111111.us-east-1.elb.amazonaws.com. zone="+r53ELBZone+" evaluate-target-health=true")

	// Back to external-dns: it plans nothing over zonesync's changes.
	xc, err = wc.RunExternalDNS(ctx)
	require.NoError(t, err)
	assert.False(t, xc.HasChanges(), "external-dns plans nothing over zonesync's zone: %s", describeX(xc))

	// external-dns changes and deletes what zonesync created, and zonesync
	// plans nothing after it.
	require.NoError(t, kube.CoreV1().Services("default").Delete(ctx, "api", metav1.DeleteOptions{}))
	xc, err = wc.RunExternalDNS(ctx)
	require.NoError(t, err)
	assert.Len(t, xc.Delete, 1, "external-dns deletes api: %s", describeX(xc))
	changes, err = wc.RunZonesync(ctx)
	require.NoError(t, err)
	assert.False(t, changes.HasChanges(), "zonesync plans nothing after external-dns's delete: %v", changes)
	assert.NotContains(t, strings.Join(route53View(srv, zone), "\n"), "api.example.com", "api and its TXT record are gone")
	assert.Empty(t, srv.Refusals())
}

// racingProvider makes another writer's change right before each
// ApplyChanges of the provider it wraps: a record set that appears
// between the Reconciler's read and its create.
type racingProvider struct {
	*externaldns.Provider
	race func(ctx context.Context) error
}

func (p racingProvider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if err := p.race(ctx); err != nil {
		return fmt.Errorf("the other writer: %w", err)
	}
	return p.Provider.ApplyChanges(ctx, changes)
}

// TestRoute53CreateFailsIfExists checks the guarantee the adapter declares
// for aws (a create of an existing record set fails and changes nothing)
// on the stand-in: a record set another writer creates between zonesync's
// read and its create is neither overwritten nor claimed, and the records
// of other names are created.
func TestRoute53CreateFailsIfExists(t *testing.T) {
	srv, zone := startRoute53(t)
	ctx := t.Context()
	cfg := route53Config(t)
	p := newRoute53(t, cfg)
	require.True(t, provider.GuaranteesOf(p).CreateFailsIfExists)

	theirs := motoserver.RecordSet{Name: "web.example.com", Type: "A", TTL: new(int64(60)),
		ResourceRecords: []motoserver.ResourceRecord{{Value: "198.51.100.7"}}}
	raced := false
	wc := newWholeCycle(t, newKube(
		r53Service("web", "web.example.com", "203.0.113.10"),
		r53Service("api", "api.example.com", "203.0.113.40"),
	), cfg, p)
	wc.ZonesyncProvider = racingProvider{Provider: p, race: func(ctx context.Context) error {
		if raced {
			return nil
		}
		raced = true
		return srv.Change(ctx, zone, motoserver.Change{Action: motoserver.ActionCreate, ResourceRecordSet: theirs})
	}}

	_, err := wc.RunZonesync(ctx)
	require.Error(t, err, "the create of web is refused")
	assert.ErrorIs(t, err, provider.SoftError, "external-dns's aws provider reports the failed batch as soft: %v", err)
	require.Len(t, srv.Refusals(), 2, "the whole batch, then web's part of it alone: %v", srv.Refusals())
	assert.Equal(t, []string{"Tried to create resource record set [name='web.example.com.', type='A'] but it already exists"},
		srv.Refusals()[1].Messages)
	assert.Equal(t, []string{
		"api.example.com. A ttl=300 203.0.113.40",
		"edns-a-api.example.com. TXT ttl=300 " + r53TXT("service/default/api"),
		"web.example.com. A ttl=60 198.51.100.7",
	}, sortedView(route53View(srv, zone)), "the other writer's record stands, without an ownership record")

	// Next cycle: web is somebody else's, so zonesync leaves it alone.
	srv.ResetCounts()
	changes, err := wc.RunZonesync(ctx)
	require.NoError(t, err)
	assert.False(t, changes.HasChanges(), "nothing to do over a record zonesync does not own: %v", changes)
	assert.Zero(t, srv.Counts()[motoserver.OpChangeResourceRecordSets])
}
