package kubernetes_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"

	"github.com/zonesync/zonesync/source/kubernetes"
)

// TestDNSEndpointGenerations: Generations reports every DNSEndpoint the
// last Endpoints call selected, those the source could not read and those
// without endpoints included, at the generation read; nothing before the
// first call; and a copy each time.
func TestDNSEndpointGenerations(t *testing.T) {
	good := dnsEndpoint("ns", "good", 3, map[string]any{"dnsName": "a.example.com", "recordType": "A", "targets": []any{"192.0.2.1"}})
	bad := dnsEndpoint("ns", "bad", 2, map[string]any{"dnsName": "b.example.com", "recordType": "A", "targets": []any{"not-an-ip"}})
	empty := dnsEndpoint("ns", "empty", 1)
	other := dnsEndpoint("other", "good", 5, map[string]any{"dnsName": "c.example.com", "recordType": "A", "targets": []any{"192.0.2.3"}})
	labelled := dnsEndpoint("ns", "labelled", 4)
	labelled.SetLabels(map[string]string{"dns": "off"})

	tests := []struct {
		name string
		cfg  kubernetes.DNSEndpointConfig
		want map[string]int64
	}{
		{"all", kubernetes.DNSEndpointConfig{}, map[string]int64{
			"crd/ns/good": 3, "crd/ns/bad": 2, "crd/ns/empty": 1, "crd/other/good": 5, "crd/ns/labelled": 4,
		}},
		{"one namespace", kubernetes.DNSEndpointConfig{Options: kubernetes.Options{Namespace: "ns"}}, map[string]int64{
			"crd/ns/good": 3, "crd/ns/bad": 2, "crd/ns/empty": 1, "crd/ns/labelled": 4,
		}},
		{"label selector", kubernetes.DNSEndpointConfig{Options: kubernetes.Options{LabelSelector: "dns!=off"}}, map[string]int64{
			"crd/ns/good": 3, "crd/ns/bad": 2, "crd/ns/empty": 1, "crd/other/good": 5,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src, err := kubernetes.NewDNSEndpointSource(ctx, dynClient(good.DeepCopy(), bad.DeepCopy(), empty.DeepCopy(), other.DeepCopy(), labelled.DeepCopy()), tt.cfg)
			require.NoError(t, err)
			started(t, ctx, src)
			assert.Nil(t, src.Generations(), "before the first Endpoints call")

			_, err = src.Endpoints(ctx)
			require.Error(t, err, "ns/bad cannot be read")
			got := src.Generations()
			assert.Equal(t, tt.want, got)
			got["crd/ns/good"] = 99
			assert.Equal(t, tt.want, src.Generations(), "the map is the caller's")
			assert.Equal(t, kubernetes.DNSEndpointGVR, src.GVR())
		})
	}

	copyGVR := schema.GroupVersionResource{Group: "dns.example.com", Version: "v1", Resource: "dnsendpoints"}
	factory := dynamicinformer.NewDynamicSharedInformerFactory(dynClient(), 0) // never started
	src, err := kubernetes.NewDNSEndpointSource(t.Context(), dynClient(), kubernetes.DNSEndpointConfig{GVR: copyGVR, DynamicFactory: factory})
	require.NoError(t, err)
	assert.Equal(t, copyGVR, src.GVR())
}
