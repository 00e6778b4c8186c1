package main

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

// Annotations read from Services: the keys external-dns uses, under its
// current prefix (v0.22+) or the older alpha prefix, so Services annotated
// for any external-dns release work unchanged.
const (
	hostnameAnnotation = "hostname"
	ttlAnnotation      = "ttl"
)

// Annotation prefixes, tried in this order: the first key present wins.
const (
	currentPrefix = "external-dns.kubernetes.io/"
	alphaPrefix   = "external-dns.alpha.kubernetes.io/"
)

// annotation returns the value of the annotation name under the first
// prefix that has it, and the full key found.
func annotation(svc *corev1.Service, name string) (key, value string, ok bool) {
	for _, prefix := range [...]string{currentPrefix, alphaPrefix} {
		if v, found := svc.Annotations[prefix+name]; found {
			return prefix + name, v, true
		}
	}
	return "", "", false
}

// serviceSource is a [source.Source] over the Services of a controller-runtime
// client (in a manager, the cache). A Service annotated with hostnames gets,
// for each hostname, an A record with the IPv4 addresses, an AAAA record with
// the IPv6 addresses and a CNAME with the host name of its load balancer
// status (a CNAME only when there are no addresses).
type serviceSource struct {
	reader    client.Reader
	namespace string // "" = all namespaces
}

var _ source.Source = (*serviceSource)(nil)

// Endpoints lists the Services and returns their endpoints, sorted. A
// Service whose annotations are invalid is left out and named in a
// *source.PartialError returned with the endpoints of the others; the
// Reconciler then keeps that Service's records as they are.
func (s *serviceSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	var list corev1.ServiceList
	if err := s.reader.List(ctx, &list, client.InNamespace(s.namespace)); err != nil {
		return nil, fmt.Errorf("listing services: %w", err)
	}
	var eps []*endpoint.Endpoint
	var failed *source.PartialError
	for i := range list.Items {
		svc := &list.Items[i]
		svcEps, err := serviceEndpoints(svc)
		if err != nil {
			// One bad Service must neither block the others nor lose its
			// records: report it by its resource key and go on.
			failed = failed.Add(resourceKey(svc), err)
			continue
		}
		eps = append(eps, svcEps...)
	}
	slices.SortFunc(eps, func(a, b *endpoint.Endpoint) int {
		return cmp.Or(
			endpoint.Compare(a, b),
			cmp.Compare(a.Labels[endpoint.ResourceLabelKey], b.Labels[endpoint.ResourceLabelKey]),
		)
	})
	if eps == nil {
		eps = []*endpoint.Endpoint{}
	}
	return eps, failed.OrNil()
}

// resourceKey is the value of the resource label of a Service's endpoints.
func resourceKey(svc *corev1.Service) string {
	return "service/" + svc.Namespace + "/" + svc.Name
}

// AddEventHandler does nothing: in a manager, the controller's watch on
// Services triggers the cycles.
func (*serviceSource) AddEventHandler(context.Context, func()) {}

// serviceEndpoints builds the endpoints of one Service.
func serviceEndpoints(svc *corev1.Service) ([]*endpoint.Endpoint, error) {
	hostnameKey, hostnames, _ := annotation(svc, hostnameAnnotation)
	if hostnames == "" || svc.DeletionTimestamp != nil {
		return nil, nil
	}
	ref := resourceKey(svc)
	var ttl endpoint.TTL
	if ttlKey, v, ok := annotation(svc, ttlAnnotation); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 || n > 2147483647 {
			return nil, fmt.Errorf("service %s/%s: annotation %s: invalid TTL %q", svc.Namespace, svc.Name, ttlKey, v)
		}
		ttl = endpoint.TTL(n)
	}
	var v4, v6, hosts []string
	for _, ing := range svc.Status.LoadBalancer.Ingress {
		if ing.IP != "" {
			addr, err := netip.ParseAddr(ing.IP)
			if err != nil {
				return nil, fmt.Errorf("service %s/%s: load balancer ingress IP %q: %w", svc.Namespace, svc.Name, ing.IP, err)
			}
			if addr.Is4() {
				v4 = append(v4, addr.String())
			} else {
				v6 = append(v6, addr.String())
			}
		}
		if ing.Hostname != "" {
			hosts = append(hosts, ing.Hostname)
		}
	}
	var eps []*endpoint.Endpoint
	for _, h := range strings.Split(hostnames, ",") {
		h = strings.TrimSuffix(strings.TrimSpace(h), ".")
		if h == "" {
			continue
		}
		if err := endpoint.ValidateDNSName(h); err != nil {
			return nil, fmt.Errorf("service %s/%s: annotation %s: %w", svc.Namespace, svc.Name, hostnameKey, err)
		}
		add := func(recordType string, targets []string) {
			if len(targets) > 0 {
				eps = append(eps, endpoint.NewEndpointWithTTL(h, recordType, ttl, targets...).WithLabel(endpoint.ResourceLabelKey, ref))
			}
		}
		add(endpoint.RecordTypeA, v4)
		add(endpoint.RecordTypeAAAA, v6)
		if len(v4) == 0 && len(v6) == 0 && len(hosts) > 0 {
			add(endpoint.RecordTypeCNAME, hosts[:1])
		}
	}
	return eps, nil
}
