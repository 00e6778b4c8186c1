package kubernetes

// Service reads Services.
// +zonesync:source:name=service
// +zonesync:source:category=kubernetes
// +zonesync:source:description=Services of type LoadBalancer, NodePort, ClusterIP and ExternalName.
// +zonesync:source:resources=Service, EndpointSlice, Pod, Node
// +zonesync:source:filters=annotation filter, label selector
// +zonesync:source:namespaced=true
// +zonesync:source:fqdn-template=true
// +zonesync:source:events=true
type Service struct{}

// Ingress reads Ingresses.
//
//	+zonesync:source:name=ingress
//	+zonesync:source:category=kubernetes
//	+zonesync:source:description=Ingress rules and TLS hosts.
//	+zonesync:source:resources=Ingress
//	+zonesync:source:filters=annotation filter, label selector, ingress class
//	+zonesync:source:namespaced=true
//	+zonesync:source:fqdn-template=true
//	+zonesync:source:events=true
type Ingress struct{}
