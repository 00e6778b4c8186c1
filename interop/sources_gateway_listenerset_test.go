package interop

import (
	"testing"

	xtypes "sigs.k8s.io/external-dns/source/types"
)

// ListenerSets (--gateway-listener-sets, gatewayapi.Config.GatewayListenerSets):
// the generator of sources_gateway_test.go adds ListenerSets attached to
// the drawn Gateways (some missing, not accepted, or not allowed by the
// Gateway's allowedListeners), and routes attach to them too.

func TestGatewayListenerSetAgreement(t *testing.T) {
	checkGatewayRoutes(t, gatewayRouteKindNamed(xtypes.GatewayHttpRoute), true)
}
