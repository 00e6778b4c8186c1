package kubernetes_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// TestDynamicSourcesSharedOptions checks the options every source shares
// on the sources over the dynamic client.
func TestDynamicSourcesSharedOptions(t *testing.T) {
	lbStatusMap := map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.5"}}}}
	proxy := obj("projectcontour.io/v1", "HTTPProxy", "ns", "p", map[string]string{hostnameKey: "ann.example.com"}, map[string]any{
		"spec": map[string]any{"virtualhost": map[string]any{"fqdn": "app.example.com"}}, "status": lbStatusMap,
	})
	bare := obj("projectcontour.io/v1", "HTTPProxy", "ns", "bare", map[string]string{hostnameKey: "bare.example.com"}, map[string]any{"status": lbStatusMap})
	gw := obj("networking.istio.io/v1", "Gateway", "ns", "gw", map[string]string{hostnameKey: "ann.example.com", "external-dns.kubernetes.io/target": "192.0.2.7"}, map[string]any{
		"spec": map[string]any{"servers": []any{map[string]any{"hosts": []any{"ns/gw.example.com"}}}},
	})
	widget := func(name string, ann map[string]string) *unstructured.Unstructured {
		return obj("example.com/v1", "Widget", "ns", name, ann, map[string]any{
			"status": map[string]any{"ip": "192.0.2.9", "v6": "2001:db8::9"},
		})
	}
	w1 := widget("w1", map[string]string{hostnameKey: "ann.example.com"})
	w2 := widget("w2", nil)
	pairs := fqdn.MustTemplate(`{{.metadata.name}}.pairs.example.com:{{.status.v6}}`)
	names := fqdn.MustTemplate(`{{.metadata.name}}.tmpl.example.com`)
	targets := fqdn.MustTemplate(`{{.status.ip}},{{.status.v6}}`)

	tests := []struct {
		name string
		make func(ctx context.Context) (syncer, error)
		want []string
	}{
		{
			name: "contour: hostname annotation ignored, spec fqdn kept",
			make: func(ctx context.Context) (syncer, error) {
				return kubernetes.NewHTTPProxySource(ctx, dynClient(proxy, bare), kubernetes.HTTPProxyConfig{Options: kubernetes.Options{IgnoreHostnameAnnotation: true}})
			},
			want: []string{"app.example.com 0 IN A  192.0.2.5 HTTPProxy/ns/p"},
		},
		{
			name: "contour: isSource bound; template names the proxy without names",
			make: func(ctx context.Context) (syncer, error) {
				return kubernetes.NewHTTPProxySource(ctx, dynClient(bare), kubernetes.HTTPProxyConfig{Options: kubernetes.Options{IgnoreHostnameAnnotation: true,
					FQDNTemplate: fqdn.MustTemplate(`{{if isSource "contour-httpproxy"}}{{.metadata.name}}.contour.example.com{{end}}`)}})
			},
			want: []string{"bare.contour.example.com 0 IN A  192.0.2.5 HTTPProxy/ns/bare"},
		},
		{
			name: "istio gateway: hostname annotation ignored, server hosts kept, target annotation still read",
			make: func(ctx context.Context) (syncer, error) {
				return kubernetes.NewIstioGatewaySource(ctx, fake.NewClientset(), dynClient(gw), kubernetes.IstioGatewayConfig{Options: kubernetes.Options{IgnoreHostnameAnnotation: true}})
			},
			want: []string{"gw.example.com 0 IN A  192.0.2.7 gateway/ns/gw"},
		},
		{
			name: "unstructured: hostname annotation ignored; template names get the target template's targets (IPv6 too)",
			make: func(ctx context.Context) (syncer, error) {
				return kubernetes.NewUnstructuredSource(ctx, dynClient(w1), kubernetes.UnstructuredConfig{GVR: widgetGVR,
					Options: kubernetes.Options{IgnoreHostnameAnnotation: true, FQDNTemplate: names, TargetTemplate: targets}})
			},
			want: []string{
				"w1.tmpl.example.com 0 IN A  192.0.2.9 widget/ns/w1",
				"w1.tmpl.example.com 0 IN AAAA  2001:db8::9 widget/ns/w1",
			},
		},
		{
			name: "unstructured: fqdn target pairs for objects without records, before the FQDN template",
			make: func(ctx context.Context) (syncer, error) {
				return kubernetes.NewUnstructuredSource(ctx, dynClient(w1, w2), kubernetes.UnstructuredConfig{GVR: widgetGVR,
					Options: kubernetes.Options{FQDNTemplate: names, TargetTemplate: targets, FQDNTargetTemplate: pairs}})
			},
			want: []string{
				"ann.example.com 0 IN A  192.0.2.9 widget/ns/w1",
				"ann.example.com 0 IN AAAA  2001:db8::9 widget/ns/w1",
				"w2.pairs.example.com 0 IN AAAA  2001:db8::9 widget/ns/w2",
			},
		},
		{
			name: "unstructured: combine runs every pass",
			make: func(ctx context.Context) (syncer, error) {
				return kubernetes.NewUnstructuredSource(ctx, dynClient(w1), kubernetes.UnstructuredConfig{GVR: widgetGVR,
					Options: kubernetes.Options{CombineFQDN: true, FQDNTemplate: names, TargetTemplate: fqdn.MustTemplate(`{{.status.ip}}`), FQDNTargetTemplate: pairs}})
			},
			want: []string{
				"ann.example.com 0 IN A  192.0.2.9 widget/ns/w1",
				"w1.pairs.example.com 0 IN AAAA  2001:db8::9 widget/ns/w1",
				"w1.tmpl.example.com 0 IN A  192.0.2.9 widget/ns/w1",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src, err := tt.make(ctx)
			require.NoError(t, err)
			started(t, ctx, src)
			eps, err := src.Endpoints(ctx)
			require.NoError(t, err)
			assert.Equal(t, tt.want, render(eps))
		})
	}
}
