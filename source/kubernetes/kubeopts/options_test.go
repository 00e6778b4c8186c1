package kubeopts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// TestTemplateEndpoints checks the template passes external-dns runs for
// sources whose template names take their targets from the target
// template only (its ApplyTemplates).
func TestTemplateEndpoints(t *testing.T) {
	ref := source.ObjectRef{Kind: "Proxy", Namespace: "ns", Name: "p"}
	meta := source.EndpointMeta{TTL: 30, Resource: "proxy/ns/p"}
	data := map[string]any{"name": "p", "ip": "192.0.2.1"}
	existing := func() []*endpoint.Endpoint {
		return source.EndpointsForHostname("spec.example.com", []string{"192.0.2.9"}, meta)
	}
	render := func(eps []*endpoint.Endpoint) []string {
		var out []string
		for _, ep := range eps {
			out = append(out, ep.String())
		}
		return out
	}
	names := fqdn.MustTemplate("{{.name}}.tmpl.example.com")
	targets := fqdn.MustTemplate("{{.ip}},lb.example.net")
	pairs := fqdn.MustTemplate("{{.name}}.pair.example.com:2001:db8::1")
	tests := []struct {
		name     string
		opts     kubeopts.Options
		existing bool
		want     []string
	}{
		{"no templates", kubeopts.Options{}, true, []string{"spec.example.com 30 IN A  192.0.2.9"}},
		{"FQDN template without target template gives nothing", kubeopts.Options{FQDNTemplate: names}, false, nil},
		{"FQDN and target templates", kubeopts.Options{FQDNTemplate: names, TargetTemplate: targets}, false,
			[]string{"p.tmpl.example.com 30 IN A  192.0.2.1", "p.tmpl.example.com 30 IN CNAME  lb.example.net"}},
		{"source endpoints win", kubeopts.Options{FQDNTemplate: names, TargetTemplate: targets, FQDNTargetTemplate: pairs}, true,
			[]string{"spec.example.com 30 IN A  192.0.2.9"}},
		{"pairs win over the FQDN template", kubeopts.Options{FQDNTemplate: names, TargetTemplate: targets, FQDNTargetTemplate: pairs}, false,
			[]string{"p.pair.example.com 0 IN AAAA  2001:db8::1"}},
		{"combine: all of them", kubeopts.Options{CombineFQDN: true, FQDNTemplate: names, TargetTemplate: targets, FQDNTargetTemplate: pairs}, true,
			[]string{"spec.example.com 30 IN A  192.0.2.9", "p.pair.example.com 0 IN AAAA  2001:db8::1",
				"p.tmpl.example.com 30 IN A  192.0.2.1", "p.tmpl.example.com 30 IN CNAME  lb.example.net"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var eps []*endpoint.Endpoint
			if tt.existing {
				eps = existing()
			}
			got, err := tt.opts.TemplateEndpoints(eps, ref, data, meta)
			require.NoError(t, err)
			assert.Equal(t, tt.want, render(got))
			for _, ep := range got {
				v, _ := ep.Labels.Get(endpoint.ResourceLabelKey)
				assert.Equal(t, "proxy/ns/p", v)
			}
		})
	}
}

func TestOptionsHostnamesAndWithSource(t *testing.T) {
	ref := source.ObjectRef{Kind: "Thing", Namespace: "ns", Name: "t"}
	ann := annotations.Values{Hostnames: []string{"ann.example.com"}}
	o := kubeopts.Options{FQDNTemplate: fqdn.MustTemplate(`{{if isSource "node"}}node.example.com{{else}}other.example.com{{end}}`)}
	got, err := o.Hostnames(ann, ref, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"ann.example.com"}, got)

	o.IgnoreHostnameAnnotation = true
	got, err = o.Hostnames(ann, ref, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"other.example.com"}, got, "unbound: isSource is false")

	bound, err := o.WithSource("node")
	require.NoError(t, err)
	got, err = bound.Hostnames(ann, ref, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"node.example.com"}, got)
	got, err = o.Hostnames(ann, ref, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"other.example.com"}, got, "WithSource leaves o unchanged")
}
