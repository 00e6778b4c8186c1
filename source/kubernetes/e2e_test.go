package kubernetes_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// zoneRecords returns the A records of zone as "name targets".
func zoneRecords(t *testing.T, ctx context.Context, zone *inmemory.Provider) []string {
	t.Helper()
	recs, err := zone.Records(ctx)
	require.NoError(t, err)
	var out []string
	for _, r := range recs {
		if r.RecordType == endpoint.RecordTypeA {
			out = append(out, r.DNSName+" "+r.Targets.String())
		}
	}
	slices.Sort(out)
	return out
}

// TestReconcilerOverServiceSource runs a Reconciler with the TXT registry
// over the in-memory provider and the Service source over a fake
// clientset through the life of three Services.
func TestReconcilerOverServiceSource(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(
		svc("ns", "web", corev1.ServiceTypeLoadBalancer, map[string]string{hostnameKey: "web.example.com"}, lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.1"})),
		svc("ns", "db", corev1.ServiceTypeLoadBalancer, map[string]string{hostnameKey: "db.example.com"}, lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.2"})),
	)
	factory := k8sinformers.NewSharedInformerFactory(client, 0)
	src, err := kubernetes.NewServiceSource(ctx, client, kubernetes.ServiceConfig{Factory: factory})
	require.NoError(t, err)
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "e2e"})
	require.NoError(t, err)
	rec := &zonesync.Reconciler{Source: src, Registry: reg}

	// Not synced yet: the Reconciler refuses to plan.
	_, err = rec.RunOnce(ctx)
	require.ErrorIs(t, err, zonesync.ErrSourceNotReady)
	assert.Empty(t, zoneRecords(t, ctx, zone))

	factory.Start(ctx.Done())
	require.NoError(t, src.WaitForSync(ctx))
	_, err = rec.RunOnce(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"db.example.com 192.0.2.2", "web.example.com 192.0.2.1"}, zoneRecords(t, ctx, zone))
	cyc, err := rec.RunOnce(ctx)
	changes := cyc.Changes
	require.NoError(t, err)
	assert.False(t, changes.HasChanges(), "converged: %v", changes)

	// A deleted Service loses its records.
	require.NoError(t, client.CoreV1().Services("ns").Delete(ctx, "db", metav1.DeleteOptions{}))
	eventually(t, func() bool { eps, _ := src.Endpoints(ctx); return len(eps) == 1 })
	_, err = rec.RunOnce(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"web.example.com 192.0.2.1"}, zoneRecords(t, ctx, zone))

	// A Service whose annotation breaks keeps its records as they are,
	// even though its address changed, while another Service is added.
	broken := svc("ns", "web", corev1.ServiceTypeLoadBalancer, map[string]string{hostnameKey: "web.example.com", "external-dns.kubernetes.io/ttl": "-5"},
		lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.9"}), func(s *corev1.Service) { s.ResourceVersion = "2" })
	_, err = client.CoreV1().Services("ns").Update(ctx, broken, metav1.UpdateOptions{})
	require.NoError(t, err)
	_, err = client.CoreV1().Services("ns").Create(ctx,
		svc("ns", "api", corev1.ServiceTypeLoadBalancer, map[string]string{hostnameKey: "api.example.com"}, lbStatus(corev1.LoadBalancerIngress{IP: "192.0.2.3"})),
		metav1.CreateOptions{})
	require.NoError(t, err)
	eventually(t, func() bool { eps, err := src.Endpoints(ctx); return err != nil && len(eps) == 1 })
	_, err = rec.RunOnce(ctx)
	require.ErrorContains(t, err, "service/ns/web")
	assert.Equal(t, []string{"api.example.com 192.0.2.3", "web.example.com 192.0.2.1"}, zoneRecords(t, ctx, zone))
}
