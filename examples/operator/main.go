// Command operator shows zonesync embedded in a controller-runtime manager: a
// controller runs one zonesync cycle whenever zonesync's Service source
// (package source/kubernetes) reports a change, publishing the Services as
// external-dns does (annotation external-dns.kubernetes.io/hostname, or the
// older external-dns.alpha.kubernetes.io/hostname, with the addresses of
// their load balancers). The source's informer factory is started by the
// manager.
//
// After each cycle the controller writes the outcome into the Services it
// publishes (status.go): a DNSReady condition in status.conditions and the
// per-hostname list in the annotation zonesync.example/dns-records, from
// zonesync.Cycle.ResourceStatuses of the Cycle that RunOnce returns: a
// Service whose annotations cannot be read gets DNSReady False with the error.
//
// The manager runs with leader election on, so that of several replicas only
// the leader writes DNS: the controller (and with it every DNS write) starts
// only once the lease is acquired.
//
// To keep the example self-contained, the DNS zone is zonesync's in-memory
// provider; a real operator uses a provider for its DNS service (e.g. the
// webhook client). It needs a cluster (kubeconfig or in-cluster config) to
// run. Its tests use client-go's fake clientset, and kubeapi_test.go runs
// two replicas of the manager against a real kube-apiserver (the root
// module's internal/kubetest, which this module may import since its path
// lies below the root's).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	k8sclient "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// config is what the operator needs to know.
type config struct {
	zone      string // DNS zone managed
	ownerID   string // TXT registry owner id
	namespace string // leader election lease namespace
	resync    time.Duration
}

func defaultConfig() config {
	return config{zone: "example.com", ownerID: "zonesync-operator", namespace: "default", resync: time.Minute}
}

// managerOptions returns the manager options: leader election on, metrics
// server off (the example serves nothing).
func managerOptions(cfg config) manager.Options {
	return manager.Options{
		LeaderElection:          true,
		LeaderElectionID:        "zonesync-operator-dns",
		LeaderElectionNamespace: cfg.namespace,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
	}
}

// newDNSController wires a zonesync Reconciler that reads src and writes to
// a TXT registry over p, and writes the outcome of each cycle into the
// Services through client (see status.go).
func newDNSController(src source.Source, p *inmemory.Provider, client k8sclient.Interface, cfg config, logger logr.Logger) (*dnsController, error) {
	reg, err := txt.New(p, txt.Config{OwnerID: cfg.ownerID})
	if err != nil {
		return nil, fmt.Errorf("creating TXT registry: %w", err)
	}
	return &dnsController{
		dns: &zonesync.Reconciler{
			Source:   src,
			Registry: reg,
			Logger:   logger,
		},
		resync: cfg.resync,
		status: newStatusWriter(client),
	}, nil
}

// setup creates the manager (with opts, normally managerOptions(cfg)) with
// its DNS controller, which keeps zone in step with the Services, and the
// Service source's informers. The source's event handlers live as long as
// ctx. The manager logs through logger.
func setup(ctx context.Context, restCfg *rest.Config, opts manager.Options, cfg config, zone *inmemory.Provider, logger logr.Logger) (manager.Manager, error) {
	opts.Logger = logger
	mgr, err := ctrl.NewManager(restCfg, opts)
	if err != nil {
		return nil, fmt.Errorf("creating manager: %w", err)
	}
	clientset, err := k8sclient.NewForConfig(restCfg)
	if err != nil {
		return nil, fmt.Errorf("creating clientset: %w", err)
	}
	src, factory, err := newServiceSource(clientset, cfg.resync)
	if err != nil {
		return nil, err
	}
	c, err := newDNSController(src, zone, clientset, cfg, logger.WithName("dns"))
	if err != nil {
		return nil, err
	}
	if err := c.setupWithManager(ctx, mgr); err != nil {
		return nil, fmt.Errorf("registering DNS controller: %w", err)
	}
	if err := mgr.Add(manager.RunnableFunc(startInformers(factory))); err != nil {
		return nil, fmt.Errorf("registering the informers: %w", err)
	}
	return mgr, nil
}

func run(ctx context.Context, stderr io.Writer) error {
	logger := funcr.New(func(prefix, args string) { fmt.Fprintln(stderr, prefix, args) }, funcr.Options{})
	ctrl.SetLogger(logger)
	restCfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	cfg := defaultConfig()
	mgr, err := setup(ctx, restCfg, managerOptions(cfg), cfg, inmemory.New(inmemory.Options{Zones: []string{cfg.zone}}), logger)
	if err != nil {
		return err
	}
	return mgr.Start(ctx)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "operator:", err)
		os.Exit(1)
	}
}
