package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sclient "k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/zonesync/zonesync/internal/kubetest"
	"github.com/zonesync/zonesync/internal/kubetest/kubedrive"
	"github.com/zonesync/zonesync/provider/inmemory"
)

// TestEnvtestWithBuiltBinaries is what docs/kubetest.md tells operator
// authors to do: controller-runtime's envtest, started with the
// kube-apiserver and etcd that `make kubetest-binaries` builds from the
// module proxy instead of those setup-envtest downloads. The example's
// manager runs against it with leader election and publishes a Service.
func TestEnvtestWithBuiltBinaries(t *testing.T) {
	assets, err := filepath.Abs(filepath.Join("..", "..", kubetest.BinDir))
	require.NoError(t, err)
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(assets, bin)); err != nil {
			msg := bin + " not built: run `make kubetest-binaries` at the repository root"
			if os.Getenv(kubetest.RequireEnv) == "1" {
				t.Fatal(msg)
			}
			t.Skip(msg + " (" + kubetest.RequireEnv + "=1 makes this a failure)")
		}
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	restCfg, err := env.Start()
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, env.Stop()) })

	client, err := k8sclient.NewForConfig(restCfg)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	cfg := defaultConfig()
	cfg.metricsAddr = "0" // TestManagerAgainstAPIServer serves on a port of its own
	zone := inmemory.New(inmemory.Options{Zones: []string{cfg.zone}})
	mgrCtx, stop := context.WithCancel(ctx)
	opts := managerOptions(cfg)
	skip := true // TestManagerAgainstAPIServer registers the same controller name in this process
	opts.Controller.SkipNameValidation = &skip
	logger, _ := kubedrive.Logger(t)
	mgr, err := setup(mgrCtx, restCfg, opts, cfg, zone, logger)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mgrCtx) }()
	t.Cleanup(func() {
		stop()
		require.NoError(t, <-done)
	})

	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Annotations: map[string]string{
			"external-dns.alpha.kubernetes.io/hostname": "web." + cfg.zone,
		}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}},
	}
	created, err := client.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{})
	require.NoError(t, err)
	created.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
	_, err = client.CoreV1().Services("default").UpdateStatus(ctx, created, metav1.UpdateOptions{})
	require.NoError(t, err)

	require.Eventually(t, func() bool {
		lease, err := client.CoordinationV1().Leases(cfg.namespace).Get(ctx, opts.LeaderElectionID, metav1.GetOptions{})
		return err == nil && lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != ""
	}, time.Minute, 100*time.Millisecond, "the manager holds its leader election Lease")
	require.Eventually(t, func() bool {
		recs, err := zone.Records(ctx)
		if err != nil {
			return false
		}
		for _, r := range recs {
			if r.DNSName == "web."+cfg.zone && r.RecordType == "A" && len(r.Targets) == 1 && r.Targets[0] == "192.0.2.10" {
				return true
			}
		}
		return false
	}, time.Minute, 100*time.Millisecond, "the Service's record is published")
}
