package kubernetes_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes"
)

func tcpIngress(ns, name string, ann map[string]string, hosts []string, lb ...any) *unstructured.Unstructured {
	var rules []any
	for i, h := range hosts {
		rules = append(rules, map[string]any{"host": h, "port": int64(9000 + i), "backend": map[string]any{"serviceName": "db", "servicePort": int64(5432)}})
	}
	return obj("configuration.konghq.com/v1beta1", "TCPIngress", ns, name, ann, map[string]any{
		"spec":   map[string]any{"rules": rules, "tls": []any{map[string]any{"hosts": []any{"tls-only.example.com"}}}},
		"status": map[string]any{"loadBalancer": map[string]any{"ingress": lb}},
	})
}

func TestKongTCPIngressSource(t *testing.T) {
	lb := func(ip, host string) map[string]any {
		m := map[string]any{}
		if ip != "" {
			m["ip"] = ip
		}
		if host != "" {
			m["hostname"] = host
		}
		return m
	}
	tests := []struct {
		name   string
		cfg    kubernetes.KongTCPIngressConfig
		objs   []*unstructured.Unstructured
		want   []string
		failed []string
	}{
		{
			name: "rule hosts and hostname annotation; tls hosts are not published",
			objs: []*unstructured.Unstructured{
				tcpIngress("db", "pg", map[string]string{hostnameKey: "pg-alias.example.com"}, []string{"pg.example.com", "", "pg.example.com"},
					lb("192.0.2.1", "kong-lb.example.net"), lb("2001:db8::1", "")),
			},
			want: []string{
				"pg-alias.example.com 0 IN A  192.0.2.1 tcpingress/db/pg",
				"pg-alias.example.com 0 IN AAAA  2001:db8::1 tcpingress/db/pg",
				"pg-alias.example.com 0 IN CNAME  kong-lb.example.net tcpingress/db/pg",
				"pg.example.com 0 IN A  192.0.2.1 tcpingress/db/pg",
				"pg.example.com 0 IN AAAA  2001:db8::1 tcpingress/db/pg",
				"pg.example.com 0 IN CNAME  kong-lb.example.net tcpingress/db/pg",
			},
		},
		{
			name: "IgnoreHostnameAnnotation drops the annotation's names and keeps the rule hosts",
			cfg:  kubernetes.KongTCPIngressConfig{Options: kubernetes.Options{IgnoreHostnameAnnotation: true}},
			objs: []*unstructured.Unstructured{
				tcpIngress("db", "pg", map[string]string{hostnameKey: "pg-alias.example.com"}, []string{"pg.example.com"}, lb("192.0.2.1", "")),
			},
			want: []string{"pg.example.com 0 IN A  192.0.2.1 tcpingress/db/pg"},
		},
		{
			name: "target annotation, ttl, provider-specific; no status; other controller",
			objs: []*unstructured.Unstructured{
				tcpIngress("db", "annotated", map[string]string{
					"external-dns.kubernetes.io/target":     "192.0.2.50",
					"external-dns.kubernetes.io/ttl":        "90",
					"external-dns.kubernetes.io/aws-weight": "10",
				}, []string{"a.example.com"}, lb("192.0.2.1", "")),
				tcpIngress("db", "pending", nil, []string{"pending.example.com"}),
				tcpIngress("db", "theirs", map[string]string{"external-dns.kubernetes.io/controller": "x"}, []string{"theirs.example.com"}, lb("192.0.2.1", "")),
			},
			want: []string{"a.example.com 90 IN A  192.0.2.50 [{aws/weight 10}] tcpingress/db/annotated"},
		},
		{
			name: "label selector and template",
			cfg: kubernetes.KongTCPIngressConfig{Options: kubernetes.Options{
				LabelSelector: "expose",
				FQDNTemplate:  fqdn.MustTemplate("{{.metadata.name}}.{{.metadata.namespace}}.tcp.example.com"),
			}},
			objs: []*unstructured.Unstructured{
				withLabels(tcpIngress("db", "ruleless", nil, nil, lb("192.0.2.2", "")), "expose", ""),
				withLabels(tcpIngress("db", "ruled", nil, []string{"ruled.example.com"}, lb("192.0.2.3", "")), "expose", ""),
				tcpIngress("db", "hidden", nil, []string{"hidden.example.com"}, lb("192.0.2.4", "")),
			},
			want: []string{
				"ruled.example.com 0 IN A  192.0.2.3 tcpingress/db/ruled",
				"ruleless.db.tcp.example.com 0 IN A  192.0.2.2 tcpingress/db/ruleless",
			},
		},
		{
			name: "malformed",
			objs: []*unstructured.Unstructured{
				tcpIngress("db", "bad-host", nil, []string{"under_score..example.com"}, lb("192.0.2.1", "")),
				tcpIngress("db", "bad-lb", nil, []string{"b.example.com"}, "192.0.2.1"),
				tcpIngress("db", "bad-target", nil, []string{"c.example.com"}, lb("", "bad target")),
				obj("configuration.konghq.com/v1beta1", "TCPIngress", "db", "rules-not-list", nil, map[string]any{"spec": map[string]any{"rules": "x"}}),
				tcpIngress("db", "ok", nil, []string{"ok.example.com"}, lb("192.0.2.9", "")),
			},
			want:   []string{"ok.example.com 0 IN A  192.0.2.9 tcpingress/db/ok"},
			failed: []string{"tcpingress/db/bad-host", "tcpingress/db/bad-lb", "tcpingress/db/bad-target", "tcpingress/db/rules-not-list"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src, err := kubernetes.NewKongTCPIngressSource(ctx, crdClient(t, tt.objs...), tt.cfg)
			require.NoError(t, err)
			started(t, ctx, src)
			eps, err := src.Endpoints(ctx)
			assert.Equal(t, tt.failed, failedKeys(t, err))
			if tt.failed != nil {
				var pe *source.PartialError
				require.ErrorAs(t, err, &pe)
				assert.EqualError(t, pe.Failed["tcpingress/db/bad-lb"], "TCPIngress db/bad-lb: status.loadBalancer.ingress[0] is not an object")
			}
			if tt.want == nil {
				tt.want = []string{}
			}
			assert.Equal(t, tt.want, render(eps))
		})
	}
}
