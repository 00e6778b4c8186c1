package interop

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	xsource "sigs.k8s.io/external-dns/source"
	xtypes "sigs.k8s.io/external-dns/source/types"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// The custom resource sources (traefik-proxy, f5-*, kong-tcpingress,
// ambassador-host, gloo-proxy, openshift-route, skipper-routegroup) share
// the helpers below.
//
// Templates: zonesync runs the FQDN template of a source that reads
// unstructured objects over the object's map ({{.metadata.name}}), while
// external-dns runs it over its typed copy ({{.Name}}). The settings hold
// external-dns's text; unstructuredTemplate rewrites it for zonesync, so
// both sides are given the template of the same names.

// unstructuredTemplate returns s with its FQDN template rewritten for a
// zonesync source over unstructured objects: {{.Name}} and {{.Namespace}}
// become {{.metadata.name}} and {{.metadata.namespace}}.
func unstructuredTemplate(s sourceSettings) sourceSettings {
	s.FQDNTemplate = strings.NewReplacer(
		"{{.Name}}", "{{.metadata.name}}",
		"{{.Namespace}}", "{{.metadata.namespace}}",
	).Replace(s.FQDNTemplate)
	return s
}

// zonesyncUnstructuredOptions are the kubernetes.Options of s for a source
// over unstructured objects (template rewritten).
func zonesyncUnstructuredOptions(s sourceSettings) (kubernetes.Options, error) {
	s = unstructuredTemplate(s)
	tmpl, err := s.zonesyncTemplate()
	if err != nil {
		return kubernetes.Options{}, err
	}
	return s.zonesyncOptions(tmpl), nil
}

// externalDNSWith builds external-dns's source name with the Config of s
// changed by set, for the flags sourceSettings does not carry.
func externalDNSWith(name string, set func(*xsource.Config)) func(ctx context.Context, c *fakeCluster, s sourceSettings) (xsource.Source, error) {
	return func(ctx context.Context, c *fakeCluster, s sourceSettings) (xsource.Source, error) {
		cfg, err := s.externalDNSConfig()
		if err != nil {
			return nil, err
		}
		if set != nil {
			set(cfg)
		}
		return xsource.BuildWithConfig(ctx, name, c, cfg)
	}
}

// customResource returns an object of apiVersion and kind with the
// metadata m and the top-level fields (spec, status) given.
func customResource(apiVersion, kind string, m metav1.ObjectMeta, fields map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	for k, v := range fields {
		u.Object[k] = v
	}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(m.Namespace)
	u.SetName(m.Name)
	if len(m.Labels) > 0 {
		u.SetLabels(m.Labels)
	}
	if len(m.Annotations) > 0 {
		u.SetAnnotations(m.Annotations)
	}
	return u
}

// withTarget gives anns a target annotation, under a random prefix, with
// probability 1-1/n when it has none: the sources whose objects carry no
// address of their own need it to publish anything.
func (g *gen) withTarget(anns map[string]string, n int) {
	for _, p := range []string{"external-dns.kubernetes.io/target", "external-dns.alpha.kubernetes.io/target"} {
		if _, ok := anns[p]; ok {
			return
		}
	}
	if !g.chance(n) {
		g.setAnn(anns, "target", g.target(), func() string { return "203.0.113.99" })
	}
}

// traefikDiff is the traefik-proxy source under differential test, with
// --traefik-enable-legacy and --traefik-disable-new as given.
func traefikDiff(enableLegacy, disableNew bool) sourceDiff {
	return sourceDiff{
		Name: xtypes.TraefikProxy,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			opts, err := zonesyncUnstructuredOptions(s)
			if err != nil {
				return nil, err
			}
			client, _ := c.DynamicKubernetesClient()
			return kubernetes.NewTraefikProxySource(ctx, client, kubernetes.TraefikProxyConfig{
				Options: opts, EnableLegacy: enableLegacy, DisableNew: disableNew,
			})
		},
		ExternalDNS: externalDNSWith(xtypes.TraefikProxy, func(cfg *xsource.Config) {
			cfg.TraefikEnableLegacy = enableLegacy
			cfg.TraefikDisableNew = disableNew
		}),
		Rules: traefikRules(),
	}
}

// traefikRules are the known differences of the traefik-proxy source.
func traefikRules() []sourceRule {
	return []sourceRule{{
		Name: "invalid-match-host-rejects-object",
		Reason: "zonesync refuses a Traefik router with a Host/HostSNI/HostHeader value in spec.routes[].match that is " +
			"not a valid DNS name and reports it in a PartialError, publishing nothing for it; external-dns publishes it as it is",
		Match: func(d disagreement) bool {
			return d.Only == externalDNSOnly && d.Failed != nil && len(d.Zonesync) == 0 &&
				strings.Contains(d.Failed.Error(), "spec.routes[")
		},
	}}
}

// traefikMatches are the router rules the generator draws from: host
// matchers of each kind, several values, spacing, a comma inside back
// quotes (skipped by both), the "*" of TLS passthrough, no host at all,
// and an invalid name.
func traefikMatches(name string) []string {
	return []string{
		"Host(`" + name + ".example.com`)",
		"Host(`" + name + ".example.com`, `www." + name + ".example.com`) && PathPrefix(`/api`)",
		"HostSNI(`*`)",
		"HostSNI(`sni-" + name + ".example.com`)",
		"HostHeader(`hdr-" + name + ".example.com`)",
		"Host( `sp-" + name + ".example.com` ) || Host(`or-" + name + ".example.com`)",
		"PathPrefix(`/`)",
		"Host(`a-" + name + ".example.com,b-" + name + ".example.com`)",
		"Host(`Upper-" + name + ".Example.COM`)",
		"Host(`bad_host!" + name + ".example.com`)",
		"Host(`" + name + ".example.com.`)",
		"Host(``)",
	}
}

// traefikRouters draws n Traefik routers of the three kinds under both
// API groups, with spec.routes[].match rules (IngressRoute and
// IngressRouteTCP) and, mostly, a target annotation.
func (g *gen) traefikRouters(n int) []runtime.Object {
	var objs []runtime.Object
	for range n {
		m := g.meta("tr")
		g.withTarget(m.Annotations, 4)
		group := pick(g.r, "traefik.io", "traefik.io", "traefik.containo.us")
		kind := pick(g.r, "IngressRoute", "IngressRoute", "IngressRouteTCP", "IngressRouteUDP")
		fields := map[string]any{"spec": map[string]any{}}
		if kind != "IngressRouteUDP" {
			var routes []any
			matches := traefikMatches(m.Name)
			for range g.r.IntN(3) {
				routes = append(routes, map[string]any{"match": pick(g.r, matches...)})
			}
			if routes != nil {
				fields["spec"] = map[string]any{"routes": routes}
			}
		}
		objs = append(objs, customResource(group+"/v1alpha1", kind, m, fields))
	}
	return objs
}

func TestTraefikProxySourceAgreement(t *testing.T) {
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.settings()
			s.IgnoreHostnameAnnotation = g.chance(5)
			legacy, disableNew := g.chance(2), false
			if legacy {
				disableNew = g.chance(3)
			}
			traefikDiff(legacy, disableNew).check(t, fmt.Sprintf("%v, legacy %v, disable-new %v", g, legacy, disableNew), s, g.traefikRouters(200)...)
		})
	}
}

// Hand-written cases, which must agree exactly.
func TestTraefikProxySourceCases(t *testing.T) {
	router := func(group, kind, name string, anns map[string]string, matches ...string) *unstructured.Unstructured {
		var routes []any
		for _, m := range matches {
			routes = append(routes, map[string]any{"match": m})
		}
		return customResource(group+"/v1alpha1", kind, metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: anns},
			map[string]any{"spec": map[string]any{"routes": routes}})
	}
	target := func(t string) map[string]string { return map[string]string{"external-dns.kubernetes.io/target": t} }
	both := []runtime.Object{
		router("traefik.io", "IngressRoute", "new", target("192.0.2.1"), "Host(`new.example.com`) && PathPrefix(`/x`)"),
		router("traefik.containo.us", "IngressRoute", "old", target("192.0.2.2"), "Host(`old.example.com`)"),
		router("traefik.io", "IngressRouteTCP", "tcp", target("lb.example.net"), "HostSNI(`tcp.example.com`)", "HostSNI(`*`)"),
		router("traefik.containo.us", "IngressRouteTCP", "oldtcp", target("lb.example.net"), "HostSNI(`oldtcp.example.com`)"),
		customResource("traefik.io/v1alpha1", "IngressRouteUDP", metav1.ObjectMeta{Namespace: "default", Name: "udp",
			Annotations: map[string]string{"external-dns.kubernetes.io/target": "192.0.2.3", "external-dns.kubernetes.io/hostname": "udp.example.com"}}, nil),
		customResource("traefik.containo.us/v1alpha1", "IngressRouteUDP", metav1.ObjectMeta{Namespace: "default", Name: "oldudp",
			Annotations: map[string]string{"external-dns.kubernetes.io/target": "192.0.2.4", "external-dns.kubernetes.io/hostname": "oldudp.example.com"}}, nil),
	}
	for _, tc := range []struct {
		name               string
		legacy, disableNew bool
		s                  sourceSettings
		objs               []runtime.Object
		want               int
	}{{
		name: "new API group only", objs: both, want: 3,
	}, {
		name: "both API groups", legacy: true, objs: both, want: 6,
	}, {
		name: "legacy API group only", legacy: true, disableNew: true, objs: both, want: 3,
	}, {
		name: "host matchers and hostname annotation",
		objs: []runtime.Object{router("traefik.io", "IngressRoute", "web",
			map[string]string{"external-dns.kubernetes.io/target": "192.0.2.1,2001:db8::1", "external-dns.kubernetes.io/hostname": "ann.example.com", "external-dns.kubernetes.io/ttl": "60"},
			"Host(`a.example.com`, `b.example.com`) || HostHeader(`c.example.com`)", "Host(`a,b`) && Host(`*`)")},
		want: 8,
	}, {
		name: "IgnoreHostnameAnnotation", s: sourceSettings{IgnoreHostnameAnnotation: true},
		objs: []runtime.Object{router("traefik.io", "IngressRoute", "web",
			map[string]string{"external-dns.kubernetes.io/target": "192.0.2.1", "external-dns.kubernetes.io/hostname": "ann.example.com"}, "Host(`a.example.com`)")},
		want: 1,
	}, {
		name: "no target annotation", objs: []runtime.Object{router("traefik.io", "IngressRoute", "web", nil, "Host(`a.example.com`)")}, want: 0,
	}, {
		name: "FQDN template combined", s: sourceSettings{FQDNTemplate: "{{.Name}}.{{.Namespace}}.tmpl.example.com", CombineFQDN: true},
		objs: []runtime.Object{router("traefik.io", "IngressRoute", "web", target("192.0.2.1"), "Host(`a.example.com`)")},
		want: 1,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			out := traefikDiff(tc.legacy, tc.disableNew).check(t, "hand-written", tc.s, tc.objs...)
			if len(out.Explained) != 0 || len(out.Zonesync) != tc.want {
				t.Errorf("want full agreement on %d records, got %v and %d records: %v", tc.want, out.Explained, len(out.Zonesync), sortedRecords(out.Zonesync))
			}
		})
	}
}
