package interop

import (
	"testing"

	xtypes "sigs.k8s.io/external-dns/source/types"
)

// The GRPCRoute, TLSRoute, TCPRoute and UDPRoute sources, over the
// generator of sources_gateway_test.go: listeners speak mostly the
// route's protocol; TCPRoutes and UDPRoutes have no spec.hostnames and
// take their names from the annotation, the template or the listeners.

func TestGatewayGRPCRouteSourceAgreement(t *testing.T) {
	checkGatewayRoutes(t, gatewayRouteKindNamed(xtypes.GatewayGrpcRoute), false)
}

func TestGatewayTLSRouteSourceAgreement(t *testing.T) {
	checkGatewayRoutes(t, gatewayRouteKindNamed(xtypes.GatewayTlsRoute), false)
}

func TestGatewayTCPRouteSourceAgreement(t *testing.T) {
	checkGatewayRoutes(t, gatewayRouteKindNamed(xtypes.GatewayTcpRoute), false)
}

func TestGatewayUDPRouteSourceAgreement(t *testing.T) {
	checkGatewayRoutes(t, gatewayRouteKindNamed(xtypes.GatewayUdpRoute), false)
}
