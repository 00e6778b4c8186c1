package interop

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	xtypes "sigs.k8s.io/external-dns/source/types"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// The crd source: zonesync's DNSEndpoint source read through the dynamic
// fake, external-dns's through the fakeCluster's loopback API server (its
// CRD source is a controller-runtime cache over a REST config), which
// applies the namespace and the label selector of the list as an API
// server would. Neither side runs the FQDN template.

// crdDiff is the crd source under differential test.
func crdDiff() sourceDiff {
	return sourceDiff{
		Name: xtypes.CRD,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			client, _ := c.DynamicKubernetesClient()
			return kubernetes.NewDNSEndpointSource(ctx, client, kubernetes.DNSEndpointConfig{Options: s.zonesyncOptions(nil)})
		},
		Rules: crdRules(),
	}
}

// crdRules are the known differences of the crd source.
func crdRules() []sourceRule {
	refused := func(d disagreement, cause string) bool {
		return d.Only == externalDNSOnly && d.Failed != nil && len(d.Zonesync) == 0 && strings.Contains(d.Failed.Error(), cause)
	}
	return []sourceRule{{
		Name: "crd-reserved-label-rejects-object",
		Reason: "zonesync refuses a DNSEndpoint with an endpoint whose labels set a key it sets itself (owner, resource, " +
			"ownedRecord, txt-encryption-nonce) and reports it in a PartialError; external-dns publishes the endpoint " +
			"(its resource label overwritten, the others kept)",
		Match: func(d disagreement) bool { return refused(d, "the label is set by zonesync") },
	}, {
		Name: "crd-null-endpoint-rejects-object",
		Reason: "zonesync refuses a DNSEndpoint with a null entry in spec.endpoints and reports it in a PartialError; " +
			"external-dns skips the entry and publishes the others",
		Match: func(d disagreement) bool { return refused(d, "is null") },
	}, sharedNameMergeRule("crd")}
}

// dnsEndpoint returns a DNSEndpoint with the given spec.endpoints.
func dnsEndpoint(m metav1.ObjectMeta, eps ...any) *unstructured.Unstructured {
	return customResource("externaldns.k8s.io/v1alpha1", "DNSEndpoint", m, map[string]any{"spec": map[string]any{"endpoints": eps}})
}

// crdTargets draws the targets of one endpoint of type rt: mostly valid
// ones, sometimes one the type does not allow, none, or a duplicate.
func (g *gen) crdTargets(rt string) []any {
	valid := map[string][]string{
		"A":     {"192.0.2.10", "192.0.2.11", "198.51.100.7"},
		"AAAA":  {"2001:db8::10", "2001:db8::11"},
		"CNAME": {"lb1.example.net", "lb2.example.net."},
		"TXT":   {"hello world", "v=spf1 -all", ""},
		"SRV":   {"10 5 443 svc.example.com.", "0 0 53 ns.example.net."},
		"MX":    {"10 mail.example.com", "20 mx2.example.net"},
		"NS":    {"ns1.example.net"},
		"":      {"192.0.2.10"},
	}
	invalid := map[string][]string{
		"A":     {"lb.example.net", "192.0.2.1.", "2001:db8::1", "300.1.1.1"},
		"AAAA":  {"192.0.2.1", "2001:db8::1."},
		"CNAME": {"bad_target!.example.net", "192.0.2.1"},
		"SRV":   {"10 5 443 svc.example.com", "x y z"},
		"MX":    {"mail.example.com", "70000 mx.example.com"},
	}
	var ts []any
	if g.chance(12) {
		return nil
	}
	n := 1
	if rt != "CNAME" {
		n += g.r.IntN(3)
	}
	for range n {
		if vs := invalid[rt]; len(vs) > 0 && g.chance(10) {
			ts = append(ts, pick(g.r, vs...))
			continue
		}
		ts = append(ts, pick(g.r, valid[rt]...))
	}
	return ts
}

// crdEndpoint draws one spec.endpoints entry of the DNSEndpoint name.
func (g *gen) crdEndpoint(name string, i int) any {
	if g.chance(40) {
		return nil
	}
	rt := pick(g.r, "A", "A", "A", "AAAA", "CNAME", "TXT", "SRV", "MX", "NS")
	if g.chance(30) {
		rt = pick(g.r, "", "a")
	}
	var dnsName string
	switch g.r.IntN(12) {
	case 0:
		dnsName = "*." + name + ".example.com"
	case 1:
		dnsName = name + ".example.com."
	case 2:
		dnsName = strings.ToUpper(name) + ".Example.COM"
	case 3:
		dnsName = "bad_host!" + name + ".example.com"
	case 4:
		dnsName = "_sip._tcp." + name + ".example.com"
	case 5:
		dnsName = ""
	default:
		dnsName = fmt.Sprintf("e%d.%s.example.com", g.r.IntN(i+1), name)
	}
	ep := map[string]any{"dnsName": dnsName, "recordType": rt}
	if ts := g.crdTargets(strings.ToUpper(rt)); ts != nil {
		ep["targets"] = ts
	}
	if g.chance(2) {
		ep["recordTTL"] = pick(g.r, int64(300), int64(60), int64(0), int64(-1), int64(2147483647))
	}
	if g.chance(5) {
		ep["setIdentifier"] = pick(g.r, "s1", "s2")
	}
	if g.chance(4) {
		var ps []any
		for range 1 + g.r.IntN(2) {
			p := pick(g.r,
				[]string{"aws/weight", "10"}, []string{"external-dns.alpha.kubernetes.io/cloudflare-proxied", "true"},
				[]string{"alias", "true"}, []string{"alias", "false"}, []string{"aws/evaluate-target-health", "false"})
			ps = append(ps, map[string]any{"name": p[0], "value": p[1]})
		}
		ep["providerSpecific"] = ps
	}
	if g.chance(4) {
		l := map[string]any{"team": pick(g.r, "a", "b")}
		switch g.r.IntN(10) {
		case 0:
			l["resource"] = "crd/spoofed/x"
		case 1:
			l["owner"] = "someone-else"
		case 2:
			l["bad key!"] = "x"
		}
		ep["labels"] = l
	}
	return ep
}

// dnsEndpoints draws n DNSEndpoints of 0 to 4 endpoints each.
func (g *gen) dnsEndpoints(n int) []runtime.Object {
	var objs []runtime.Object
	for range n {
		m := g.meta("de")
		var eps []any
		for i := range g.r.IntN(5) {
			eps = append(eps, g.crdEndpoint(m.Name, i))
		}
		objs = append(objs, dnsEndpoint(m, eps...))
	}
	return objs
}

func TestCRDSourceAgreement(t *testing.T) {
	agree := 0
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.settings()
			s.FQDNTemplate, s.CombineFQDN = "", false
			agree += countAgree(crdDiff().check(t, g.String(), s, g.dnsEndpoints(200)...))
		})
	}
	if agree == 0 {
		t.Errorf("no record agrees in any run: the generator draws nothing useful")
	}
}

// Hand-written cases, which must agree exactly.
func TestCRDSourceCases(t *testing.T) {
	ep := func(name, rt string, ttl int64, targets ...any) map[string]any {
		e := map[string]any{"dnsName": name, "recordType": rt, "targets": targets}
		if ttl != 0 {
			e["recordTTL"] = ttl
		}
		return e
	}
	meta := func(ns, name string, lbls, anns map[string]string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls, Annotations: anns}
	}
	weighted := ep("w.example.com", "A", 60, "192.0.2.5")
	weighted["setIdentifier"] = "eu"
	weighted["providerSpecific"] = []any{map[string]any{"name": "aws/weight", "value": "10"}}
	weighted["labels"] = map[string]any{"team": "a"}
	objs := []runtime.Object{
		dnsEndpoint(meta("default", "types", map[string]string{"team": "a"}, map[string]string{"dns": "public"}),
			ep("a.example.com", "A", 300, "192.0.2.2", "192.0.2.1"),
			ep("a.example.com", "AAAA", 0, "2001:db8::1"),
			ep("www.example.com", "CNAME", 0, "a.example.com"),
			ep("a.example.com", "TXT", 0, "v=spf1 -all"),
			ep("_sip._tcp.example.com", "SRV", 0, "10 5 5060 sip.example.com."),
			ep("example.com", "MX", 0, "10 mail.example.com"),
			weighted),
		dnsEndpoint(meta("team-a", "other", map[string]string{"team": "b"}, map[string]string{"dns": "private"}),
			ep("b.example.com", "A", 0, "192.0.2.9")),
		dnsEndpoint(meta("team-b", "empty", nil, nil)),
	}
	for _, tc := range []struct {
		name string
		s    sourceSettings
		want int
	}{
		{name: "every record type, TTL, set identifier, properties, labels", want: 8},
		{name: "Namespace", s: sourceSettings{Namespace: "team-a"}, want: 1},
		{name: "LabelSelector", s: sourceSettings{LabelSelector: "team=a"}, want: 7},
		{name: "AnnotationFilter", s: sourceSettings{AnnotationFilter: "dns in (private)"}, want: 1},
		{name: "Namespace and LabelSelector", s: sourceSettings{Namespace: "default", LabelSelector: "team=b"}, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := crdDiff().check(t, "hand-written", tc.s, objs...)
			if len(out.Explained) != 0 || len(out.Zonesync) != tc.want || len(out.ExternalDNS) != tc.want {
				t.Errorf("want full agreement on %d records, got %v and zonesync %v, external-dns %v", tc.want, out.Explained, sortedRecords(out.Zonesync), sortedRecords(out.ExternalDNS))
			}
		})
	}
	t.Run("invalid endpoint refuses the object", func(t *testing.T) {
		out := crdDiff().check(t, "hand-written", sourceSettings{}, dnsEndpoint(meta("default", "bad", nil, nil),
			ep("ok.example.com", "A", 0, "192.0.2.1"), ep("bad.example.com", "A", 0, "lb.example.net")))
		if out.Explained["invalid-endpoint-rejects-object"] != 2 || len(out.Zonesync) != 0 {
			t.Errorf("want zonesync to refuse the object, got %v and %v", out.Explained, sortedRecords(out.Zonesync))
		}
	})
}
