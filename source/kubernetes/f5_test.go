package kubernetes_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic/dynamicinformer"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes"
)

// f5Server returns an F5 VirtualServer or TransportServer.
func f5Server(kind, name string, ann, labels map[string]string, spec map[string]any, vsAddress string) *unstructured.Unstructured {
	u := obj("cis.f5.com/v1", kind, "f5", name, ann, map[string]any{"spec": spec})
	if vsAddress != "" {
		u.Object["status"] = map[string]any{"vsAddress": vsAddress, "status": "Ok"}
	}
	u.SetLabels(labels)
	return u
}

func TestF5Sources(t *testing.T) {
	vs := func(name string, ann map[string]string, spec map[string]any, vsAddress string) *unstructured.Unstructured {
		return f5Server("VirtualServer", name, ann, map[string]string{"app": name}, spec, vsAddress)
	}
	objs := []*unstructured.Unstructured{
		vs("annotated", map[string]string{targetKey: "edge.example.net"}, map[string]any{"host": "ann.example.com", "virtualServerAddress": "192.0.2.1"}, "192.0.2.1"),
		vs("spec-address", map[string]string{"external-dns.kubernetes.io/ttl": "600"}, map[string]any{"host": "spec.example.com", "virtualServerAddress": "192.0.2.2"}, "192.0.2.99"),
		vs("status-address", nil, map[string]any{"host": "status.example.com"}, "192.0.2.3"),
		vs("aliases", map[string]string{
			// Not read on F5 objects:
			"external-dns.kubernetes.io/aws-weight": "10", "external-dns.kubernetes.io/set-identifier": "s", hostnameKey: "ignored.example.com",
		}, map[string]any{"host": "main.example.com", "hostAliases": []any{"alias.example.com", "", "main.example.com"}, "virtualServerAddress": "2001:db8::4"}, "2001:db8::4"),
		vs("no-address", nil, map[string]any{"host": "pending.example.com", "virtualServerAddress": "192.0.2.5"}, ""),
		vs("address-none", nil, map[string]any{"host": "none.example.com", "virtualServerAddress": "192.0.2.6"}, "NONE"),
		vs("no-host", nil, map[string]any{"virtualServerAddress": "192.0.2.7"}, "192.0.2.7"),
		vs("foreign", map[string]string{"external-dns.kubernetes.io/controller": "other"}, map[string]any{"host": "foreign.example.com"}, "192.0.2.8"),
		vs("bad-ttl", map[string]string{"external-dns.kubernetes.io/ttl": "-1"}, map[string]any{"host": "ttl.example.com"}, "192.0.2.9"),
		vs("bad-host", nil, map[string]any{"host": "bad_host..example.com"}, "192.0.2.9"),
		vs("bad-aliases", nil, map[string]any{"host": "x.example.com", "hostAliases": "y.example.com"}, "192.0.2.9"),
		f5Server("TransportServer", "tcp", nil, nil, map[string]any{"host": "tcp.example.com", "hostAliases": []any{"not-read.example.com"}, "virtualServerAddress": "192.0.2.10"}, "192.0.2.10"),
		f5Server("TransportServer", "tcp-pending", nil, nil, map[string]any{"host": "tcp-pending.example.com"}, "None"),
		f5Server("TransportServer", "tcp-bad", map[string]string{targetKey: "bad..target"}, nil, map[string]any{"host": "tcp-bad.example.com"}, "192.0.2.11"),
	}
	virtualServers := []string{
		"alias.example.com 0 IN AAAA  2001:db8::4 f5-virtualserver/f5/aliases",
		"ann.example.com 0 IN CNAME  edge.example.net f5-virtualserver/f5/annotated",
		"main.example.com 0 IN AAAA  2001:db8::4 f5-virtualserver/f5/aliases",
		"spec.example.com 600 IN A  192.0.2.2 f5-virtualserver/f5/spec-address",
		"status.example.com 0 IN A  192.0.2.3 f5-virtualserver/f5/status-address",
	}
	type newFunc func(ctx context.Context, opts kubernetes.Options) (syncer, error)
	newVS := func(ctx context.Context, opts kubernetes.Options) (syncer, error) {
		return kubernetes.NewF5VirtualServerSource(ctx, crd2Client(objs...), kubernetes.F5VirtualServerConfig{Options: opts})
	}
	newTS := func(ctx context.Context, opts kubernetes.Options) (syncer, error) {
		return kubernetes.NewF5TransportServerSource(ctx, crd2Client(objs...), kubernetes.F5TransportServerConfig{Options: opts})
	}
	tests := []struct {
		name   string
		make   newFunc
		opts   kubernetes.Options
		str    string
		want   []string
		failed map[string]string
	}{
		{
			name: "virtual servers", make: newVS, str: "f5-virtualserver", want: virtualServers,
			failed: map[string]string{
				"f5-virtualserver/f5/bad-ttl":     "VirtualServer f5/bad-ttl: annotation external-dns.kubernetes.io/ttl",
				"f5-virtualserver/f5/bad-host":    "VirtualServer f5/bad-host: spec.host",
				"f5-virtualserver/f5/bad-aliases": "VirtualServer f5/bad-aliases: spec.hostAliases",
			},
		},
		{
			name: "label selector", make: newVS, str: "f5-virtualserver", opts: kubernetes.Options{LabelSelector: "app in (aliases, address-none)"},
			want: []string{
				"alias.example.com 0 IN AAAA  2001:db8::4 f5-virtualserver/f5/aliases",
				"main.example.com 0 IN AAAA  2001:db8::4 f5-virtualserver/f5/aliases",
			},
		},
		{
			name: "annotation filter", make: newVS, str: "f5-virtualserver", opts: kubernetes.Options{AnnotationFilter: "external-dns.kubernetes.io/ttl=600"},
			want: []string{"spec.example.com 600 IN A  192.0.2.2 f5-virtualserver/f5/spec-address"},
		},
		{
			// As external-dns: template names point at the target
			// template's targets, also for a server without an address.
			name: "templates for servers without host or address", make: newVS, str: "f5-virtualserver",
			opts: kubernetes.Options{LabelSelector: "app in (no-host, no-address)",
				FQDNTemplate:   fqdn.MustTemplate("{{.metadata.name}}.tmpl.example.com"),
				TargetTemplate: fqdn.MustTemplate("lb.example.net")},
			want: []string{
				"no-address.tmpl.example.com 0 IN CNAME  lb.example.net f5-virtualserver/f5/no-address",
				"no-host.tmpl.example.com 0 IN CNAME  lb.example.net f5-virtualserver/f5/no-host",
			},
		},
		{
			name: "an FQDN template without a target template gives no records", make: newVS, str: "f5-virtualserver",
			opts: kubernetes.Options{LabelSelector: "app in (no-host, no-address)", FQDNTemplate: fqdn.MustTemplate("{{.metadata.name}}.tmpl.example.com")},
			want: []string{},
		},
		{
			name: "fqdn-target template", make: newVS, str: "f5-virtualserver",
			opts: kubernetes.Options{LabelSelector: "app in (no-host, no-address)", FQDNTargetTemplate: fqdn.MustTemplate("{{.metadata.name}}.pair.example.com:192.0.2.77")},
			want: []string{
				"no-address.pair.example.com 0 IN A  192.0.2.77 f5-virtualserver/f5/no-address",
				"no-host.pair.example.com 0 IN A  192.0.2.77 f5-virtualserver/f5/no-host",
			},
		},
		{
			name: "transport servers", make: newTS, str: "f5-transportserver",
			want:   []string{"tcp.example.com 0 IN A  192.0.2.10 f5-transportserver/f5/tcp"},
			failed: map[string]string{"f5-transportserver/f5/tcp-bad": "TransportServer f5/tcp-bad: annotation external-dns.kubernetes.io/target"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src, err := tt.make(ctx, tt.opts)
			require.NoError(t, err)
			assert.Equal(t, tt.str, src.(fmt.Stringer).String())
			started(t, ctx, src)
			eps, err := src.Endpoints(ctx)
			if len(tt.failed) == 0 {
				require.NoError(t, err)
			} else {
				var pe *source.PartialError
				require.ErrorAs(t, err, &pe)
				assert.ElementsMatch(t, keys(tt.failed), keys(pe.Failed))
				for k, msg := range tt.failed {
					assert.ErrorContains(t, pe.Failed[k], msg)
				}
			}
			assert.Equal(t, tt.want, render(eps))
		})
	}
	_, err := kubernetes.NewF5VirtualServerSource(context.Background(), crd2Client(), kubernetes.F5VirtualServerConfig{Options: kubernetes.Options{AnnotationFilter: "=("}})
	require.ErrorContains(t, err, "f5-virtualserver source: annotation filter")
}

// TestF5SourceBecomesReady: a VirtualServer is published once CIS writes
// its address into the status.
func TestF5SourceBecomesReady(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pending := f5Server("VirtualServer", "web", nil, nil, map[string]any{"host": "web.example.com"}, "")
	dyn := crd2Client(pending)
	factory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	src, err := kubernetes.NewF5VirtualServerSource(ctx, dyn, kubernetes.F5VirtualServerConfig{DynamicFactory: factory})
	require.NoError(t, err)
	assert.False(t, src.HasSynced())
	calls := make(chan struct{}, 16)
	src.AddEventHandler(ctx, func() {
		select {
		case calls <- struct{}{}:
		default:
		}
	})
	factory.Start(ctx.Done())
	require.NoError(t, src.WaitForSync(ctx))
	eps, err := src.Endpoints(ctx)
	require.NoError(t, err)
	assert.Empty(t, eps)

	ready := pending.DeepCopy()
	ready.Object["status"] = map[string]any{"vsAddress": "192.0.2.20", "status": "Ok"}
	ready.SetResourceVersion("2")
	_, err = dyn.Resource(kubernetes.F5VirtualServerGVR).Namespace("f5").Update(ctx, ready, metav1.UpdateOptions{})
	require.NoError(t, err)
	<-calls
	eventually(t, func() bool {
		eps, err := src.Endpoints(ctx)
		return err == nil && assert.ObjectsAreEqual([]string{"web.example.com 0 IN A  192.0.2.20 f5-virtualserver/f5/web"}, render(eps))
	})
}
