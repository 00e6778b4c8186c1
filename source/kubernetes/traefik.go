package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// Resources of the Traefik routers: under traefik.io (Traefik v2.10 and
// later) and under the legacy traefik.containo.us group (Traefik v2 only).
var (
	TraefikIngressRouteGVR          = schema.GroupVersionResource{Group: "traefik.io", Version: "v1alpha1", Resource: "ingressroutes"}
	TraefikIngressRouteTCPGVR       = schema.GroupVersionResource{Group: "traefik.io", Version: "v1alpha1", Resource: "ingressroutetcps"}
	TraefikIngressRouteUDPGVR       = schema.GroupVersionResource{Group: "traefik.io", Version: "v1alpha1", Resource: "ingressrouteudps"}
	TraefikLegacyIngressRouteGVR    = schema.GroupVersionResource{Group: "traefik.containo.us", Version: "v1alpha1", Resource: "ingressroutes"}
	TraefikLegacyIngressRouteTCPGVR = schema.GroupVersionResource{Group: "traefik.containo.us", Version: "v1alpha1", Resource: "ingressroutetcps"}
	TraefikLegacyIngressRouteUDPGVR = schema.GroupVersionResource{Group: "traefik.containo.us", Version: "v1alpha1", Resource: "ingressrouteudps"}
)

// TraefikProxyConfig configures a [TraefikProxySource]. The zero value
// reads the three router kinds under traefik.io only, as external-dns
// does by default.
type TraefikProxyConfig struct {
	kubeopts.Options
	// EnableLegacy also reads the routers under traefik.containo.us
	// (external-dns's --traefik-enable-legacy).
	EnableLegacy bool
	// DisableNew stops reading the routers under traefik.io
	// (--traefik-disable-new). Setting it without EnableLegacy leaves
	// nothing to read and is refused.
	DisableNew bool
	// DynamicFactory: see [ServiceConfig.Factory].
	DynamicFactory dynamicinformer.DynamicSharedInformerFactory
}

// TraefikProxySource publishes Traefik routers: IngressRoute,
// IngressRouteTCP and IngressRouteUDP (traefik.io/v1alpha1 and, when
// enabled, traefik.containo.us/v1alpha1). Host names are those of the
// Host, HostHeader and HostSNI matchers of spec.routes[].match (IngressRoute
// and IngressRouteTCP; "*" skipped) and of the hostname annotation. Targets
// come from the target annotation only: Traefik routers carry no address,
// so a router without it gives no endpoints. Endpoints carry the resource
// label "ingressroute/⟨namespace⟩/⟨name⟩" (ingressroutetcp,
// ingressrouteudp), whatever the API group.
//
//zonesync:source:name=traefik-proxy
//zonesync:source:category=kubernetes
//zonesync:source:description=Traefik IngressRoute, IngressRouteTCP and IngressRouteUDP: rule hosts pointing at the target annotation.
//zonesync:source:resources=ingressroutes.traefik.io,ingressroutetcps.traefik.io,ingressrouteudps.traefik.io (and traefik.containo.us when enabled)
//zonesync:source:filters=annotation-filter,label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=TraefikProxyConfig
type TraefikProxySource struct {
	cfg       TraefikProxyConfig
	resources []traefikResource
	inf       informerSet
}

// traefikResource is one router resource the source reads.
type traefikResource struct {
	*dynamicResource
	kind   string // IngressRoute, IngressRouteTCP or IngressRouteUDP
	routes bool   // whether spec.routes[].match holds host matchers
}

var (
	_ source.Source = (*TraefikProxySource)(nil)
	_ source.Syncer = (*TraefikProxySource)(nil)
)

// NewTraefikProxySource returns a Traefik router source; see
// [NewServiceSource] for the informer life cycle.
func NewTraefikProxySource(ctx context.Context, client dynamic.Interface, cfg TraefikProxyConfig) (*TraefikProxySource, error) {
	var err error
	if cfg.Options, err = cfg.WithSource("traefik-proxy"); err != nil {
		return nil, err
	}
	if cfg.DisableNew && !cfg.EnableLegacy {
		return nil, errors.New("traefik-proxy source: DisableNew without EnableLegacy reads no resource")
	}
	type want struct {
		gvr    schema.GroupVersionResource
		kind   string
		routes bool
		on     bool
	}
	// The order of external-dns: each kind under the new group, then
	// under the legacy one.
	wants := []want{
		{TraefikIngressRouteGVR, "IngressRoute", true, !cfg.DisableNew},
		{TraefikLegacyIngressRouteGVR, "IngressRoute", true, cfg.EnableLegacy},
		{TraefikIngressRouteTCPGVR, "IngressRouteTCP", true, !cfg.DisableNew},
		{TraefikLegacyIngressRouteTCPGVR, "IngressRouteTCP", true, cfg.EnableLegacy},
		{TraefikIngressRouteUDPGVR, "IngressRouteUDP", false, !cfg.DisableNew},
		{TraefikLegacyIngressRouteUDPGVR, "IngressRouteUDP", false, cfg.EnableLegacy},
	}
	s := &TraefikProxySource{cfg: cfg}
	var starts []func(context.Context)
	for _, w := range wants {
		if !w.on {
			continue
		}
		res, start, err := newDynamicResource(ctx, client, cfg.DynamicFactory, cfg.Options, "traefik-proxy", w.gvr)
		if err != nil {
			return nil, err
		}
		s.resources = append(s.resources, traefikResource{dynamicResource: res, kind: w.kind, routes: w.routes})
		s.inf = append(s.inf, res.informer)
		if start != nil {
			starts = append(starts, start)
		}
	}
	for _, start := range starts {
		start(ctx)
	}
	return s, nil
}

// String returns "traefik-proxy".
func (s *TraefikProxySource) String() string { return "traefik-proxy" }

// Endpoints returns the endpoints of the selected routers: IngressRoutes
// first, then IngressRouteTCPs, then IngressRouteUDPs, each kind under
// traefik.io before traefik.containo.us and sorted by namespace and name.
func (s *TraefikProxySource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var eps []*endpoint.Endpoint
	var failed *source.PartialError
	for _, r := range s.resources {
		objs, err := r.list()
		if err != nil {
			return nil, fmt.Errorf("traefik-proxy source: %s: %w", r.gvr, err)
		}
		got, err := endpointsOf(objs, func(u *unstructured.Unstructured) (source.ObjectRef, bool) {
			// The kind of the resource read, not the object's, names it:
			// the resource label is "ingressroute/ns/name" as external-dns
			// writes it.
			return source.ObjectRef{Kind: r.kind, Namespace: u.GetNamespace(), Name: u.GetName()}, true
		}, func(ref source.ObjectRef, u *unstructured.Unstructured) ([]*endpoint.Endpoint, error) {
			return s.routerEndpoints(ref, u, r.routes)
		})
		eps = append(eps, got...)
		var pe *source.PartialError
		if errors.As(err, &pe) {
			for key, cause := range pe.Failed {
				failed = failed.Add(key, cause)
			}
		} else if err != nil {
			return nil, err
		}
	}
	return eps, failed.OrNil()
}

func (s *TraefikProxySource) routerEndpoints(ref source.ObjectRef, u *unstructured.Unstructured, routes bool) ([]*endpoint.Endpoint, error) {
	ann, err := s.cfg.Annotations.Parse(ref, u.GetAnnotations())
	if err != nil {
		return nil, err
	}
	if ann.Skip {
		return nil, nil
	}
	names := slices.Clone(s.cfg.AnnotatedHostnames(ann))
	if routes {
		hosts, err := traefikRouteHosts(ref, u.Object)
		if err != nil {
			return nil, err
		}
		names = append(names, hosts...)
	}
	slices.Sort(names)
	meta := ann.EndpointMeta(ref)
	eps := source.EndpointsForHostnames(slices.Compact(names), ann.Targets, meta)
	return s.cfg.TemplateEndpoints(eps, ref, u.Object, meta)
}

// traefikRouteHosts returns the host names of the matchers of
// spec.routes[].match of the router obj, checked as DNS names.
func traefikRouteHosts(ref source.ObjectRef, obj map[string]any) ([]string, error) {
	routes, _, err := unstructured.NestedSlice(obj, "spec", "routes")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.routes: %w", ref, err)
	}
	var hosts []string
	for i, route := range routes {
		m, ok := route.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: spec.routes[%d] is not an object", ref, i)
		}
		match, _, err := unstructured.NestedString(m, "match")
		if err != nil {
			return nil, fmt.Errorf("%s: spec.routes[%d].match: %w", ref, i, err)
		}
		for _, h := range traefikRuleHosts(match) {
			if err := checkHost(ref, fmt.Sprintf("spec.routes[%d].match host %q", i, h), h); err != nil {
				return nil, err
			}
			hosts = append(hosts, h)
		}
	}
	return hosts, nil
}

// traefikRuleHosts returns the host names a Traefik rule matches on, read
// as external-dns reads them: every Host, HostHeader or HostSNI call whose
// arguments are back-quoted strings, e.g. Host(`a.example.com`,
// `b.example.com`) && PathPrefix(`/api`). The argument list runs from the
// back quote after "(" to the first back quote followed by ")" (spaces
// allowed around both) on the same line; each back-quoted value in it
// that holds no comma is a host, except "*". Values are not trimmed or
// checked: the caller checks them as DNS names. The scan is linear in the
// rule's length whatever it holds.
func traefikRuleHosts(rule string) []string {
	var hosts []string
	sc := ruleScanner{rule: rule, closeFrom: -1, newlineFrom: -1}
	for pos := 0; pos < len(rule); {
		i := strings.Index(rule[pos:], "Host")
		if i < 0 {
			break
		}
		start := pos + i
		end, ok := sc.matchCall(start)
		if !ok {
			pos = start + 1
			continue
		}
		hosts = appendQuoted(hosts, rule[start:end])
		pos = end
	}
	return hosts
}

// ruleScanner finds the ends of host matcher calls in a rule. Queries
// come with increasing positions, so the last answer of each kind is kept
// and reused while it is still ahead: every byte of the rule is looked at
// a bounded number of times.
type ruleScanner struct {
	rule string
	// closeFrom and closeAt: the last nextClose query and its answer;
	// closeFrom is -1 before the first.
	closeFrom, closeAt int
	// newlineFrom and newlineAt: the same for nextNewline.
	newlineFrom, newlineAt int
}

// isSpace reports whether c is white space as RE2's \s: tab, newline,
// form feed, carriage return, space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// skipSpace returns the first position at or after p that is not space.
func (sc *ruleScanner) skipSpace(p int) int {
	for p < len(sc.rule) && isSpace(sc.rule[p]) {
		p++
	}
	return p
}

// matchCall returns the end of the matcher call starting at start (which
// holds "Host"), or false when there is none there.
func (sc *ruleScanner) matchCall(start int) (int, bool) {
	p := start + len("Host")
	switch rest := sc.rule[p:]; {
	case strings.HasPrefix(rest, "SNI"):
		p += len("SNI")
	case strings.HasPrefix(rest, "Header"):
		p += len("Header")
	}
	p = sc.skipSpace(p)
	if p >= len(sc.rule) || sc.rule[p] != '(' {
		return 0, false
	}
	p = sc.skipSpace(p + 1)
	if p >= len(sc.rule) || sc.rule[p] != '`' {
		return 0, false
	}
	// The argument list may not span lines.
	k := sc.nextClose(p + 1)
	if k < 0 || sc.nextNewline(p+1) < k {
		return 0, false
	}
	return sc.skipSpace(k+1) + 1, true
}

// nextClose returns the first position at or after p holding a back
// quote followed by optional space and ")", or -1.
func (sc *ruleScanner) nextClose(p int) int {
	if sc.closeFrom >= 0 && sc.closeFrom <= p && (sc.closeAt < 0 || sc.closeAt >= p) {
		return sc.closeAt
	}
	sc.closeFrom, sc.closeAt = p, -1
	for k := p; k < len(sc.rule); k++ {
		if sc.rule[k] != '`' {
			continue
		}
		if q := sc.skipSpace(k + 1); q < len(sc.rule) && sc.rule[q] == ')' {
			sc.closeAt = k
			break
		}
	}
	return sc.closeAt
}

// nextNewline returns the first position at or after p holding a newline,
// or len(rule).
func (sc *ruleScanner) nextNewline(p int) int {
	if sc.newlineFrom >= 0 && sc.newlineFrom <= p && sc.newlineAt >= p {
		return sc.newlineAt
	}
	sc.newlineFrom, sc.newlineAt = p, len(sc.rule)
	if i := strings.IndexByte(sc.rule[p:], '\n'); i >= 0 {
		sc.newlineAt = p + i
	}
	return sc.newlineAt
}

// appendQuoted appends to hosts the back-quoted values of call that are
// not empty, hold no comma and are not "*".
func appendQuoted(hosts []string, call string) []string {
	for a := 0; a < len(call); {
		i := strings.IndexByte(call[a:], '`')
		if i < 0 {
			break
		}
		a += i
		n := strings.IndexAny(call[a+1:], ",`")
		if n <= 0 || call[a+1+n] != '`' {
			a++
			continue
		}
		if v := call[a+1 : a+1+n]; v != "*" {
			hosts = append(hosts, v)
		}
		a += n + 2
	}
	return hosts
}

// HasSynced reports whether the source's informers have synced; until
// then its Endpoints would be incomplete.
func (s *TraefikProxySource) HasSynced() bool { return s.inf.HasSynced() }

// WaitForSync blocks until the source's informers have synced or ctx is
// done; it returns an error wrapping ctx's cause then.
func (s *TraefikProxySource) WaitForSync(ctx context.Context) error { return s.inf.WaitForSync(ctx) }

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of the objects the source reads, until ctx is done.
func (s *TraefikProxySource) AddEventHandler(ctx context.Context, handler func()) {
	s.inf.AddEventHandler(ctx, handler)
}
