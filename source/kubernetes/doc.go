// Package kubernetes holds the sources that read Kubernetes objects
// through client-go informers, as external-dns v0.23's sources of the same
// names do:
//
//   - core and networking kinds: [ServiceSource], [IngressSource],
//     [NodeSource], [PodSource];
//   - external-dns's own kind: [DNSEndpointSource];
//   - custom resources of ingress controllers and meshes, read with the
//     dynamic client as unstructured objects (no Istio, Contour, OpenShift,
//     Traefik, ... module is imported): [IstioGatewaySource],
//     [IstioVirtualServiceSource], [HTTPProxySource] (Contour),
//     [OpenShiftRouteSource], [AmbassadorHostSource],
//     [KongTCPIngressSource], [SkipperRouteGroupSource],
//     [TraefikProxySource], [GlooProxySource], [F5VirtualServerSource],
//     [F5TransportServerSource];
//   - [UnstructuredSource] for any resource.
//
// docs/sources.md lists each with its options and the external-dns flag
// each option stands for; docs/compatibility.md lists where one differs.
//
// Every source reads the external-dns annotations through
// [annotations.Config], gets host names from annotations and an
// optional [fqdn.Template], selects objects with an annotation filter
// and a label selector (an index on the informer), can be limited to one
// namespace, and labels each endpoint with the resource key of its object
// ("service/ns/name"). A bad object (an annotation that does not parse, a
// template that fails) is reported in a [*source.PartialError] and never
// hides the endpoints of the others; a Reconciler keeps its records.
//
// # Informers
//
// A constructor builds its own informer factory (scoped to the namespace),
// sets transforms that drop managedFields, the last-applied annotation and
// the annotations the source does not read, adds its index, and starts the
// factory with the constructor's ctx. It does not wait for the caches:
// HasSynced reports false until they have synced (a Reconciler returns
// zonesync.ErrSourceNotReady meanwhile), and WaitForSync blocks until then.
//
// A list or watch that fails — refused by RBAC, a custom resource whose
// CRD is not installed — is retried by client-go with a backoff and never
// ends the source. Its informers report each failure through the logger of
// the constructor's ctx (with the keys "source" and "resource"; see
// [informers.Track]), and when WaitForSync gives up it names the
// resources that have not synced and their last errors, for example
//
//	informers: waiting for caches to sync: context deadline exceeded; not synced:
//	services: failed to list *v1.Service: services is forbidden: User "dns"
//	cannot list resource "services" in API group "" in the namespace "web"
//	(the client's user needs the list and watch verbs on services); ...
//
// A server that cannot be reached is retried inside client-go without a
// report: the error then only names the resources.
//
// Programs that already have a factory pass it in the config (Factory or
// DynamicFactory). The source then sets no transform, since the informers
// are shared with the rest of the program, does not start the factory,
// and leaves the informers' error handlers to the program. The order is the one of package informers: construct every
// source (they add their indexes), register handlers, then start the
// factory.
//
// # Permissions
//
// Each source lists and watches what its doc marker's resources name (the
// Resources column of docs/sources.md): the Service source Services,
// discovery.k8s.io EndpointSlices, Pods and Nodes; the Istio sources
// Gateways, Services and Ingresses cluster-wide (gateway Services live in
// their own namespace), and so on. The DNSEndpoint source also updates
// dnsendpoints/status; the writer of package
// [github.com/zonesync/zonesync/source/kubernetes/conditions], which
// reports each cycle's outcome in the status.conditions of DNSEndpoints or
// of any custom resource, gets and updates the status subresource.
package kubernetes
