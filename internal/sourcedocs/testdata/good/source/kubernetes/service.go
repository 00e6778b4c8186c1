package kubernetes

// Service reads Services.
//
//zonesync:source:name=service
//zonesync:source:category=kubernetes
//zonesync:source:description=Services of type LoadBalancer, NodePort, ClusterIP and ExternalName.
//zonesync:source:resources=Service, EndpointSlice, Pod, Node
//zonesync:source:filters=annotation filter, label selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=ServiceConfig
//zonesync:source:unused=Unused
type Service struct{}

// Options are shared.
type Options struct {
	// Namespace is one namespace (--namespace).
	Namespace string
	// Unused is a shared field Service does not read (--unused-flag).
	Unused bool
	// NoFlag names no flag and is left out.
	NoFlag bool
}

// ServiceConfig configures Service.
type ServiceConfig struct {
	Options
	// PublishInternal publishes cluster IPs (--publish-internal-services,
	// or --publish-internal-services again).
	PublishInternal bool
	// hidden is not exported (--hidden).
	hidden bool
}

// Ingress reads Ingresses.
//
//zonesync:source:name=ingress
//zonesync:source:category=kubernetes
//zonesync:source:description=Ingress rules and TLS hosts.
//zonesync:source:resources=Ingress
//zonesync:source:filters=annotation filter, label selector, ingress class
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
type Ingress struct{}
