// Command operator shows zonesync embedded in a controller-runtime manager: a
// controller runs one zonesync cycle whenever zonesync's Service source
// (package source/kubernetes) reports a change, publishing the Services as
// external-dns does (annotation external-dns.kubernetes.io/hostname, or the
// older external-dns.alpha.kubernetes.io/hostname, with the addresses of
// their load balancers). The source's informer factory is started by the
// manager.
//
// Each cycle also feeds an inventory (package inventory, inventory.go) of
// every record with its Service, its cycle outcome and its group (the
// value of the Service's "team" label), which the manager's metrics server
// serves as a page and as JSON at /inventory (http://localhost:8080/inventory
// by default; ?format=json for JSON).
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
	"github.com/zonesync/zonesync/inventory"
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
	// metricsAddr is the address of the manager's metrics server, which
	// also serves the inventory page at /inventory; "0" turns both off.
	metricsAddr string
	// groupLabel is the Service label whose value is the group of its
	// records in the inventory.
	groupLabel string
}

func defaultConfig() config {
	return config{
		zone: "example.com", ownerID: "zonesync-operator", namespace: "default", resync: time.Minute,
		metricsAddr: ":8080", groupLabel: "team",
	}
}

// managerOptions returns the manager options: leader election on, the
// metrics server on cfg.metricsAddr (it serves the inventory too, see
// setup).
func managerOptions(cfg config) manager.Options {
	return manager.Options{
		LeaderElection:          true,
		LeaderElectionID:        "zonesync-operator-dns",
		LeaderElectionNamespace: cfg.namespace,
		Metrics:                 metricsserver.Options{BindAddress: cfg.metricsAddr},
	}
}

// newDNSController wires a zonesync Reconciler that reads src and writes to
// a TXT registry over p, and writes the outcome of each cycle into the
// Services through client (see status.go) and, when inv is not nil, into
// the inventory (inventory.go).
func newDNSController(src source.Source, p *inmemory.Provider, client k8sclient.Interface, cfg config, logger logr.Logger, inv *inventory.Inventory) (*dnsController, error) {
	reg, err := txt.New(p, txt.Config{OwnerID: cfg.ownerID})
	if err != nil {
		return nil, fmt.Errorf("creating TXT registry: %w", err)
	}
	rec := &zonesync.Reconciler{
		Source:   src,
		Registry: reg,
		Logger:   logger,
	}
	if inv != nil {
		rec.Observer = inv
	}
	return &dnsController{
		dns:    rec,
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
	inv, err := newInventory(factory.Core().V1().Services().Lister(), cfg)
	if err != nil {
		return nil, err
	}
	c, err := newDNSController(src, zone, clientset, cfg, logger.WithName("dns"), inv)
	if err != nil {
		return nil, err
	}
	if err := serveInventory(mgr, inv); err != nil {
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
