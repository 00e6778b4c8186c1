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

// f5VirtualServerDiff and f5TransportServerDiff are the F5 CIS sources
// under differential test.
func f5VirtualServerDiff() sourceDiff {
	return sourceDiff{
		Name: xtypes.F5VirtualServer,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			opts, err := zonesyncUnstructuredOptions(s)
			if err != nil {
				return nil, err
			}
			client, _ := c.DynamicKubernetesClient()
			return kubernetes.NewF5VirtualServerSource(ctx, client, kubernetes.F5VirtualServerConfig{Options: opts})
		},
		Rules: f5Rules(),
	}
}

func f5TransportServerDiff() sourceDiff {
	return sourceDiff{
		Name: xtypes.F5TransportServer,
		Zonesync: func(ctx context.Context, c *fakeCluster, s sourceSettings) (source.Source, error) {
			opts, err := zonesyncUnstructuredOptions(s)
			if err != nil {
				return nil, err
			}
			client, _ := c.DynamicKubernetesClient()
			return kubernetes.NewF5TransportServerSource(ctx, client, kubernetes.F5TransportServerConfig{Options: opts})
		},
		Rules: f5Rules(),
	}
}

// f5Rules are the known differences of the F5 sources.
func f5Rules() []sourceRule {
	return []sourceRule{{
		Name: "f5-invalid-spec-host-rejects-object",
		Reason: "zonesync refuses an F5 VirtualServer or TransportServer whose spec.host or spec.hostAliases entry is not " +
			"a valid DNS name and reports it in a PartialError, publishing nothing for it; external-dns publishes it as it is",
		Match: func(d disagreement) bool {
			return d.Only == externalDNSOnly && d.Failed != nil && len(d.Zonesync) == 0 &&
				strings.Contains(d.Failed.Error(), "spec.")
		},
	}, {
		Name: "f5-empty-host",
		Reason: "an F5 server without spec.host gives external-dns a record with an empty name (merged with every other " +
			"such record of the source); zonesync publishes no record for the missing host",
		Match: func(d disagreement) bool {
			return d.Only == externalDNSOnly && d.Record.Name == ""
		},
	}}
}

// f5Servers draws n VirtualServers or TransportServers: spec.host (some
// empty or invalid), host aliases (VirtualServer), spec.virtualServerAddress,
// status.vsAddress (unset, empty, "None" in any case, or an address).
func (g *gen) f5Servers(kind string, n int) []runtime.Object {
	var objs []runtime.Object
	for range n {
		m := g.meta("f5")
		spec := map[string]any{}
		if !g.chance(6) {
			spec["host"] = g.hostname(m.Name)
		}
		if kind == "VirtualServer" && g.chance(2) {
			var aliases []any
			for range 1 + g.r.IntN(2) {
				aliases = append(aliases, pick(g.r, "alias-"+m.Name+".example.com", "", "www."+m.Name+".example.com", "bad_alias!"+m.Name+".example.com"))
			}
			spec["hostAliases"] = aliases
		}
		if g.chance(2) {
			spec["virtualServerAddress"] = pick(g.r, "192.0.2.20", "2001:db8::20", "vs.example.net")
		}
		fields := map[string]any{"spec": spec}
		switch g.r.IntN(6) {
		case 0:
		case 1:
			fields["status"] = map[string]any{"vsAddress": pick(g.r, "", "None", "none", "NONE")}
		default:
			fields["status"] = map[string]any{"vsAddress": pick(g.r, "192.0.2.30", "2001:db8::30"), "status": pick(g.r, "Ok", "Failed")}
		}
		objs = append(objs, customResource("cis.f5.com/v1", kind, m, fields))
	}
	return objs
}

func TestF5VirtualServerSourceAgreement(t *testing.T) {
	sd := f5VirtualServerDiff()
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.settings()
			sd.check(t, g.String(), s, g.f5Servers("VirtualServer", 200)...)
		})
	}
}

func TestF5TransportServerSourceAgreement(t *testing.T) {
	sd := f5TransportServerDiff()
	for _, seed := range sourceSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := newGen(seed)
			s := g.settings()
			sd.check(t, g.String(), s, g.f5Servers("TransportServer", 200)...)
		})
	}
}

// Hand-written cases, which must agree exactly.
func TestF5SourceCases(t *testing.T) {
	server := func(kind string, anns map[string]string, spec map[string]any, vsAddress any) *unstructured.Unstructured {
		fields := map[string]any{"spec": spec}
		if vsAddress != nil {
			fields["status"] = map[string]any{"vsAddress": vsAddress}
		}
		return customResource("cis.f5.com/v1", kind, metav1.ObjectMeta{Namespace: "default", Name: "web", Annotations: anns}, fields)
	}
	host := map[string]any{"host": "web.example.com", "hostAliases": []any{"alias.example.com", ""}}
	withVSA := map[string]any{"host": "web.example.com", "hostAliases": []any{"alias.example.com"}, "virtualServerAddress": "192.0.2.5"}
	for _, tc := range []struct {
		name string
		sd   sourceDiff
		s    sourceSettings
		objs []runtime.Object
		want int
	}{
		{name: "VirtualServer without vsAddress", sd: f5VirtualServerDiff(), objs: []runtime.Object{server("VirtualServer", nil, withVSA, nil)}, want: 0},
		{name: "VirtualServer with empty vsAddress", sd: f5VirtualServerDiff(), objs: []runtime.Object{server("VirtualServer", nil, withVSA, "")}, want: 0},
		{name: "VirtualServer with vsAddress None", sd: f5VirtualServerDiff(), objs: []runtime.Object{server("VirtualServer", nil, withVSA, "None")}, want: 0},
		{name: "VirtualServer with vsAddress", sd: f5VirtualServerDiff(), objs: []runtime.Object{server("VirtualServer", nil, host, "192.0.2.9")}, want: 2},
		{name: "VirtualServer virtualServerAddress wins over vsAddress", sd: f5VirtualServerDiff(), objs: []runtime.Object{server("VirtualServer", nil, withVSA, "192.0.2.9")}, want: 2},
		{name: "VirtualServer target annotation and TTL", sd: f5VirtualServerDiff(),
			objs: []runtime.Object{server("VirtualServer", map[string]string{"external-dns.kubernetes.io/target": "lb.example.net", "external-dns.kubernetes.io/ttl": "120",
				"external-dns.kubernetes.io/hostname": "ignored.example.com", "external-dns.kubernetes.io/set-identifier": "ignored"}, withVSA, "192.0.2.9")}, want: 2},
		{name: "TransportServer with vsAddress", sd: f5TransportServerDiff(), objs: []runtime.Object{server("TransportServer", nil, map[string]any{"host": "tcp.example.com"}, "2001:db8::9")}, want: 1},
		{name: "TransportServer with vsAddress none", sd: f5TransportServerDiff(), objs: []runtime.Object{server("TransportServer", nil, map[string]any{"host": "tcp.example.com", "virtualServerAddress": "192.0.2.5"}, "none")}, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.sd.check(t, "hand-written", tc.s, tc.objs...)
			if len(out.Explained) != 0 || len(out.Zonesync) != tc.want {
				t.Errorf("want full agreement on %d records, got %v and %d records: %v", tc.want, out.Explained, len(out.Zonesync), sortedRecords(out.Zonesync))
			}
		})
	}
}
