package gatewayapi_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonesync/zonesync/source/gatewayapi"
)

// BenchmarkHTTPRouteEndpoints measures one Endpoints call over n accepted
// HTTPRoutes spread over 10 Gateways with a wildcard listener each: the
// cost of reading the unstructured objects (conversion included) and
// intersecting the names.
func BenchmarkHTTPRouteEndpoints(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx, cancel := context.WithCancel(b.Context())
			defer cancel()
			http := gatewayapi.HTTPRouteKind()
			var objs []*unstructured.Unstructured
			for g := range 10 {
				objs = append(objs, gw("infra", fmt.Sprintf("gw-%d", g), nil, []string{fmt.Sprintf("192.0.2.%d", g+1)},
					listenerSpec{name: "https", protocol: "HTTPS", port: 443, hostname: "*.example.com", from: "All"}))
			}
			for i := range n {
				objs = append(objs, rt(http, fmt.Sprintf("team-%02d", i%50), fmt.Sprintf("route-%05d", i), nil,
					[]string{fmt.Sprintf("r%05d.example.com", i)}, parent{ns: "infra", name: fmt.Sprintf("gw-%d", i%10), accepted: yes()}))
			}
			dyn := dynClient(b, objs...)
			s, err := gatewayapi.NewHTTPRouteSource(ctx, newKube(), dyn, gatewayapi.Config{})
			require.NoError(b, err)
			require.NoError(b, s.WaitForSync(ctx))
			b.ReportAllocs()
			for b.Loop() {
				eps, err := s.Endpoints(ctx)
				if err != nil || len(eps) != n {
					b.Fatalf("got %d endpoints, %v", len(eps), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/route")
		})
	}
}
