package kubernetes_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes"
	"github.com/zonesync/zonesync/source/sourcetest"
)

// TestServiceSourceContract runs the source contract checker on a
// ServiceSource over a fake clientset: a change creates a Service, a
// failure gives one an annotation that does not parse.
func TestServiceSourceContract(t *testing.T) {
	lb := func(ns, name, ip string, ann map[string]string) *corev1.Service {
		if ann == nil {
			ann = map[string]string{}
		}
		ann[hostnameKey] = name + ".example.com"
		return svc(ns, name, corev1.ServiceTypeLoadBalancer, ann, lbStatus(corev1.LoadBalancerIngress{IP: ip}))
	}
	client := fake.NewClientset(lb("ns", "web", "192.0.2.1", nil), lb("other", "api", "192.0.2.2", nil))
	src, err := kubernetes.NewServiceSource(t.Context(), client, kubernetes.ServiceConfig{})
	require.NoError(t, err)

	var n atomic.Int32
	opts := sourcetest.Options{
		Timeout: 5 * time.Second,
		// The Kubernetes sources also promise what the optional checks
		// check: a stable order and valid endpoints.
		Deterministic:  true,
		ValidEndpoints: true,
		Change: func(ctx context.Context) error {
			i := n.Add(1)
			_, err := client.CoreV1().Services("ns").Create(ctx, lb("ns", fmt.Sprintf("new-%d", i), "192.0.2.10", nil), metav1.CreateOptions{})
			return err
		},
		Fail: func(ctx context.Context) error {
			bad := lb("ns", "bad", "192.0.2.3", map[string]string{"external-dns.kubernetes.io/ttl": "forever"})
			_, err := client.CoreV1().Services("ns").Create(ctx, bad, metav1.CreateOptions{})
			return err
		},
	}
	sourcetest.TestSource(t, src, opts)

	// The wrappers keep the contract around an informer-backed source too.
	wrapped := source.NewPostProcessor(source.NewDedup(source.NewMulti([]source.Source{src}, source.MultiOptions{})), source.PostProcessorOptions{DefaultTTL: 300})
	opts.Fail = nil // the bad Service is already there
	sourcetest.TestSource(t, wrapped, opts)
}
