// Package gatewayapi holds the sources that read Gateway API routes
// (gateway.networking.k8s.io): [HTTPRouteSource], [GRPCRouteSource],
// [TLSRouteSource], [TCPRouteSource] and [UDPRouteSource]. They share one
// implementation and behave as external-dns's gateway-* sources:
//
//   - A route's names are its spec.hostnames, then its hostname
//     annotation, then the FQDN template (when there is no name yet or
//     CombineFQDN is set); a route without spec.hostnames also takes the
//     hostname of each listener it attaches to. The
//     gateway-hostname-source annotation narrows this: "annotation-only"
//     uses the hostname annotation alone, "defined-hosts-only" the spec
//     and template alone.
//   - Each name is intersected with the hostname of every listener the
//     route attaches to: an empty hostname matches anything, a wildcard
//     "*.example.com" matches the names below example.com but not
//     example.com itself, and the more specific of two matching names is
//     published.
//   - A route attaches to a listener through a status.parents entry whose
//     Accepted condition is True, whose parentRef is also in
//     spec.parentRefs and names a selected Gateway, and whose sectionName
//     and port (when given) name the listener; the listener must speak the
//     route's protocol (HTTPS counts as HTTP; TCPRoutes also attach to TLS
//     listeners) and its allowedRoutes must admit the route's namespace
//     (Same, All, or a Selector over the Namespace's labels) and kind.
//   - The targets are the Gateway's status.addresses (IP addresses give A
//     and AAAA records, host names CNAME records), replaced by the target
//     annotation of the route when it has one, else of the Gateway.
//   - With Config.GatewayListenerSets (external-dns's
//     --gateway-listener-sets) a parentRef may also name a ListenerSet
//     (gateway.networking.k8s.io/v1, kind ListenerSet). The route then
//     attaches to the ListenerSet's listeners, by the rules above, with
//     sectionName naming one of them and "Same" in allowedRoutes meaning
//     the ListenerSet's namespace; the Gateway's own listeners do not take
//     part. The ListenerSet counts only when its status says Accepted, its
//     spec.parentRef names a selected Gateway (in its own namespace unless
//     it gives one) whose spec.allowedListeners admit the ListenerSet's
//     namespace (None when absent, Same, All or a Selector), and only its
//     listeners whose status entry says Accepted are used. The targets are
//     the parent Gateway's, the ListenerSet's target annotation coming
//     between the route's and the Gateway's. ListenerSets are selected by
//     the route annotation filter (not the label selector) and the
//     controller annotation. Without the option a ListenerSet parent gives
//     nothing.
//   - Endpoints carry the resource label "httproute/namespace/name" (the
//     lower-case kind), as external-dns writes it, and the ttl,
//     set-identifier and provider-specific annotations of the route.
//     Endpoints of several routes for one name, type, set identifier and
//     TTL are merged into one (CNAMEs only when their targets are equal),
//     labelled with the first route in namespace/name order.
//
// Routes are selected with the shared [kubeopts.Options] (namespace,
// annotation filter, label selector, through an informer index), Gateways
// with GatewayName, GatewayNamespace and GatewayLabelSelector (GatewayName
// is compared with the name of a ListenerSet's parent Gateway). A route
// whose annotations, template, fields, or Gateway or ListenerSet target
// annotation cannot be used is reported in a [*source.PartialError] under
// its resource key and never hides the others.
//
// # Clients and informers
//
// The sources read routes, Gateways and ListenerSets with the dynamic
// client and unstructured objects, so the sigs.k8s.io/gateway-api module
// is not linked (its current release needs a newer Go and client-go than
// this module). The fields read are converted into small local structs; a
// source keeps the converted routes between calls while their
// resourceVersion is unchanged. The informer life cycle (own or shared
// factories, transforms, HasSynced and WaitForSync) is the one of package
// kubernetes. Constructors take a clientset for the Namespace informer
// (allowedRoutes and allowedListeners selectors) and a dynamic client; with Config.Factory and
// Config.DynamicFactory set, either may be nil.
//
// # Permissions
//
// list and watch on the route resource and on gateways
// (gateway.networking.k8s.io), in the configured namespaces, and on
// namespaces, cluster-wide; with GatewayListenerSets also on listenersets
// (gateway.networking.k8s.io), cluster-wide.
//
// # Not supported
//
// The experimental XListenerSet (gateway.networking.x-k8s.io) is not read,
// as in external-dns v0.23, and there is no equivalent of
// --ignore-hostname-annotation.
package gatewayapi
