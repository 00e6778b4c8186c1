package gatewayapi

import (
	"context"

	"k8s.io/client-go/dynamic"
	k8sclient "k8s.io/client-go/kubernetes"

	"github.com/zonesync/zonesync/source"
)

// HTTPRouteSource publishes HTTPRoutes: their hostnames intersected with
// the hostnames of the HTTP and HTTPS listeners they attach to, pointing
// at the addresses of the Gateways that accepted them.
//
//zonesync:source:name=gateway-httproute
//zonesync:source:category=gatewayapi
//zonesync:source:description=Gateway API HTTPRoutes: route hostnames intersected with the attached listeners, pointing at the accepting Gateways' addresses.
//zonesync:source:resources=httproutes.gateway.networking.k8s.io,gateways.gateway.networking.k8s.io,listenersets.gateway.networking.k8s.io,namespaces
//zonesync:source:filters=annotation-filter,label-selector,gateway-name,gateway-namespace,gateway-label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=Config
//zonesync:source:unused=TargetTemplate,FQDNTargetTemplate
type HTTPRouteSource struct{ *routeSource }

// GRPCRouteSource publishes GRPCRoutes like [HTTPRouteSource].
//
//zonesync:source:name=gateway-grpcroute
//zonesync:source:category=gatewayapi
//zonesync:source:description=Gateway API GRPCRoutes: route hostnames intersected with the attached listeners, pointing at the accepting Gateways' addresses.
//zonesync:source:resources=grpcroutes.gateway.networking.k8s.io,gateways.gateway.networking.k8s.io,listenersets.gateway.networking.k8s.io,namespaces
//zonesync:source:filters=annotation-filter,label-selector,gateway-name,gateway-namespace,gateway-label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=Config
//zonesync:source:unused=TargetTemplate,FQDNTargetTemplate
type GRPCRouteSource struct{ *routeSource }

// TLSRouteSource publishes TLSRoutes (TLS listeners).
//
//zonesync:source:name=gateway-tlsroute
//zonesync:source:category=gatewayapi
//zonesync:source:description=Gateway API TLSRoutes: route hostnames intersected with the attached TLS listeners, pointing at the accepting Gateways' addresses.
//zonesync:source:resources=tlsroutes.gateway.networking.k8s.io,gateways.gateway.networking.k8s.io,listenersets.gateway.networking.k8s.io,namespaces
//zonesync:source:filters=annotation-filter,label-selector,gateway-name,gateway-namespace,gateway-label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=Config
//zonesync:source:unused=TargetTemplate,FQDNTargetTemplate
type TLSRouteSource struct{ *routeSource }

// TCPRouteSource publishes TCPRoutes (TCP and TLS listeners). TCPRoutes
// have no hostnames: the names come from the hostname annotation, the
// FQDN template or the listener hostnames.
//
//zonesync:source:name=gateway-tcproute
//zonesync:source:category=gatewayapi
//zonesync:source:description=Gateway API TCPRoutes: hostname annotation, template or listener hostnames, pointing at the accepting Gateways' addresses.
//zonesync:source:resources=tcproutes.gateway.networking.k8s.io,gateways.gateway.networking.k8s.io,listenersets.gateway.networking.k8s.io,namespaces
//zonesync:source:filters=annotation-filter,label-selector,gateway-name,gateway-namespace,gateway-label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=Config
//zonesync:source:unused=TargetTemplate,FQDNTargetTemplate
type TCPRouteSource struct{ *routeSource }

// UDPRouteSource publishes UDPRoutes (UDP listeners), named like
// [TCPRouteSource].
//
//zonesync:source:name=gateway-udproute
//zonesync:source:category=gatewayapi
//zonesync:source:description=Gateway API UDPRoutes: hostname annotation, template or listener hostnames, pointing at the accepting Gateways' addresses.
//zonesync:source:resources=udproutes.gateway.networking.k8s.io,gateways.gateway.networking.k8s.io,listenersets.gateway.networking.k8s.io,namespaces
//zonesync:source:filters=annotation-filter,label-selector,gateway-name,gateway-namespace,gateway-label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=Config
//zonesync:source:unused=TargetTemplate,FQDNTargetTemplate
type UDPRouteSource struct{ *routeSource }

var (
	_ source.Source = HTTPRouteSource{}
	_ source.Syncer = HTTPRouteSource{}
	_ source.Source = GRPCRouteSource{}
	_ source.Source = TLSRouteSource{}
	_ source.Source = TCPRouteSource{}
	_ source.Source = UDPRouteSource{}
)

// NewHTTPRouteSource returns an HTTPRoute source. kube is used for the
// Namespace informer (allowedRoutes namespace selectors), client for
// routes and Gateways. Like the sources of package kubernetes it starts
// its informers with ctx and does not wait for them: see HasSynced and
// WaitForSync.
func NewHTTPRouteSource(ctx context.Context, kube k8sclient.Interface, client dynamic.Interface, cfg Config) (*HTTPRouteSource, error) {
	s, err := newRouteSource(ctx, kube, client, HTTPRouteKind(), cfg)
	if err != nil {
		return nil, err
	}
	return &HTTPRouteSource{s}, nil
}

// NewGRPCRouteSource returns a GRPCRoute source; see [NewHTTPRouteSource].
func NewGRPCRouteSource(ctx context.Context, kube k8sclient.Interface, client dynamic.Interface, cfg Config) (*GRPCRouteSource, error) {
	s, err := newRouteSource(ctx, kube, client, GRPCRouteKind(), cfg)
	if err != nil {
		return nil, err
	}
	return &GRPCRouteSource{s}, nil
}

// NewTLSRouteSource returns a TLSRoute source; see [NewHTTPRouteSource].
func NewTLSRouteSource(ctx context.Context, kube k8sclient.Interface, client dynamic.Interface, cfg Config) (*TLSRouteSource, error) {
	s, err := newRouteSource(ctx, kube, client, TLSRouteKind(), cfg)
	if err != nil {
		return nil, err
	}
	return &TLSRouteSource{s}, nil
}

// NewTCPRouteSource returns a TCPRoute source; see [NewHTTPRouteSource].
func NewTCPRouteSource(ctx context.Context, kube k8sclient.Interface, client dynamic.Interface, cfg Config) (*TCPRouteSource, error) {
	s, err := newRouteSource(ctx, kube, client, TCPRouteKind(), cfg)
	if err != nil {
		return nil, err
	}
	return &TCPRouteSource{s}, nil
}

// NewUDPRouteSource returns a UDPRoute source; see [NewHTTPRouteSource].
func NewUDPRouteSource(ctx context.Context, kube k8sclient.Interface, client dynamic.Interface, cfg Config) (*UDPRouteSource, error) {
	s, err := newRouteSource(ctx, kube, client, UDPRouteKind(), cfg)
	if err != nil {
		return nil, err
	}
	return &UDPRouteSource{s}, nil
}
