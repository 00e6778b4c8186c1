package kubernetes_test

import (
	"context"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// TestRegression_ObjectReferencesEscapedInErrors (issue 33, finding 6): an
// object an annotation or a spec names is not a name the API server
// checked. When it holds control characters (here an Istio Gateway's
// ingress annotation, and a VirtualService's gateway reaching it), the
// error that names it shows them escaped, under the object's key.
func TestRegression_ObjectReferencesEscapedInErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dyn := crdClient(t,
		istioGateway("istio-system", "hostile", map[string]string{"external-dns.kubernetes.io/ingress": "ns/x\n\x1b[31mFORGED\x00"}, nil, "*"),
		virtualService("app", "vs", nil, []any{"vs.example.com"}, []any{"istio-system/hostile"}),
	)
	gw, err := kubernetes.NewIstioGatewaySource(ctx, istioKube(), dyn, kubernetes.IstioGatewayConfig{})
	require.NoError(t, err)
	vs, err := kubernetes.NewIstioVirtualServiceSource(ctx, istioKube(), dyn, kubernetes.IstioVirtualServiceConfig{})
	require.NoError(t, err)
	for _, tt := range []struct {
		name string
		src  interface {
			source.Source
			WaitForSync(context.Context) error
		}
		key string
	}{
		{"gateway", gw, "gateway/istio-system/hostile"},
		{"virtual service", vs, "virtualservice/app/vs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, tt.src.WaitForSync(ctx))
			_, err := tt.src.Endpoints(ctx)
			var pe *source.PartialError
			require.ErrorAs(t, err, &pe)
			require.Error(t, pe.Failed[tt.key])
			assert.Contains(t, pe.Failed[tt.key].Error(), `ingress annotation: Ingress ns/"x\n\x1b[31mFORGED\x00" not found`)
			for i, r := range err.Error() {
				if unicode.IsControl(r) {
					t.Fatalf("raw %q at offset %d: %q", r, i, err.Error())
				}
			}
		})
	}
}
