package interop

import (
	"testing"

	routev1 "github.com/openshift/api/route/v1"
	routefake "github.com/openshift/client-go/route/clientset/versioned/fake"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	xsource "sigs.k8s.io/external-dns/source"
)

// external-dns's source package links against the stand-in of
// github.com/openshift/api (internal/openshiftapi); this checks that the
// stand-in's Route round-trips through openshift/client-go's fake
// clientset, which copies objects with the stand-in's deep copy methods.
func TestOpenShiftAPIStandIn(t *testing.T) {
	weight := int32(10)
	route := &routev1.Route{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "r"},
		Spec: routev1.RouteSpec{
			Host: "r.example.com",
			To:   routev1.RouteTargetReference{Kind: "Service", Name: "svc", Weight: &weight},
			TLS:  &routev1.TLSConfig{Termination: "edge"},
		},
		Status: routev1.RouteStatus{Ingress: []routev1.RouteIngress{{
			Host: "r.example.com", RouterCanonicalHostname: "router.example.net",
			Conditions: []routev1.RouteIngressCondition{{Type: routev1.RouteAdmitted, Status: "True"}},
		}}},
	}
	client := routefake.NewSimpleClientset(route)
	list, err := client.RouteV1().Routes("ns").List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	got := list.Items[0]
	require.Equal(t, route.Spec, got.Spec)
	require.Equal(t, route.Status, got.Status)
	got.Spec.To.Weight = nil
	require.NotNil(t, route.Spec.To.Weight, "a copy shares no memory")

	// The package that needs the stand-in.
	var _ xsource.Source
}
