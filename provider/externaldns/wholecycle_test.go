package externaldns_test

// Whole cycles over one external-dns provider: zonesync's Reconciler (its
// Service and Ingress sources over a fake Kubernetes clientset, its TXT
// registry, its planner and policy) and external-dns's controller cycle
// (external-dns's TXT registry, planner and policy) over the same provider
// and the same objects, configured by one set of external-dns flags. Tests
// of a cloud stand-in (Route 53 on moto, and others) use it to run "create,
// converge, delete, switch over" cycles:
//
//	cfg := parseFlags(t, "--provider=aws", "--domain-filter=example.com",
//		"--registry=txt", "--txt-owner-id=prod", "--txt-prefix=edns-", "--policy=sync")
//	p, err := externaldns.New(ctx, aws.New, cfg, xendpoint.NewDomainFilter(cfg.DomainFilter))
//	kube := newKube(svc, ing)                      // k8s.io/client-go/kubernetes/fake
//	wc := newWholeCycle(t, kube, cfg, p)           // wc.ZonesyncProvider = cache.New(p, …) to wrap
//	changes, err := wc.RunZonesync(ctx)            // one zonesync.Reconciler.RunOnce: *plan.Changes
//	xchanges, err := wc.RunExternalDNS(ctx)        // one external-dns controller cycle: *xplan.Changes
//	wc.ZonesyncDesired(ctx), wc.ExternalDNSRecords(ctx) ...
//
// The flags used: --txt-owner-id, --txt-owner-old, --txt-prefix,
// --txt-suffix, --txt-wildcard-replacement, --managed-record-types,
// --exclude-record-types, --policy (default sync), --domain-filter, --exclude-domains,
// --namespace. Both sides read the objects afresh every cycle (new
// informers, synced before the cycle), so a change to the clientset shows
// in the next cycle without waiting.
//
// external-dns's controller package (sigs.k8s.io/external-dns/controller)
// and its source package cannot be compiled in this module: the controller
// package imports provider/factory, which imports the civo and exoscale
// providers whose SDK modules the module proxy refuses (403), and the
// source package imports github.com/openshift/api, refused too (the interop
// module builds it against a stand-in). RunExternalDNS therefore makes the
// calls controller.Controller.RunOnce of v0.23 makes, in its order, with
// external-dns's own registry, planner and policies: Records of its TXT
// registry, the records put in the context under
// provider.RecordsContextKey, the source's endpoints, AdjustEndpoints,
// plan.Plan{Policies, Current, Desired, DomainFilter (the controller's
// filter AND the registry's), ManagedRecords, ExcludeRecords, OwnerID,
// OldOwnerID}.Calculate, and ApplyChanges when the plan has changes. Its
// source is zonesync's Service and Ingress sources converted with
// ToExternalDNS: that the two projects' sources agree on the same objects
// is the interop module's differential source tests.

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"
	xplan "sigs.k8s.io/external-dns/plan"
	xprovider "sigs.k8s.io/external-dns/provider"
	xregistry "sigs.k8s.io/external-dns/registry"
	xtxt "sigs.k8s.io/external-dns/registry/txt"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/policy"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
	k8s "github.com/zonesync/zonesync/source/kubernetes"
)

// parseFlags is externaldns.ParseFlags that fails the test on error.
func parseFlags(t testing.TB, args ...string) *xconfig.Config {
	t.Helper()
	cfg, err := externaldns.ParseFlags(args)
	require.NoError(t, err, "flags %q", args)
	return cfg
}

// newKube returns a fake clientset holding objs (Services, Ingresses,
// and whatever they need).
func newKube(objs ...runtime.Object) *kubefake.Clientset {
	return kubefake.NewClientset(objs...)
}

// wholeCycle runs zonesync's and external-dns's cycles over one provider
// and one cluster; see the comment at the top of the file. Set the
// exported fields before the first cycle.
type wholeCycle struct {
	// Kube holds the Services and Ingresses both sides read.
	Kube kubernetes.Interface
	// Config is the external-dns configuration of the deployment: the
	// provider's and both registries' settings come from it.
	Config *xconfig.Config
	// Provider is the external-dns provider, wrapped; external-dns's side
	// uses Provider.ExternalDNS().
	Provider *externaldns.Provider
	// ZonesyncProvider is what zonesync's registry writes through; nil
	// means Provider. Set it to wrap Provider (provider/cache, say).
	ZonesyncProvider provider.Provider

	reconciler *zonesync.Reconciler
	xreg       xregistry.Registry
}

// newWholeCycle returns the cycles of the deployment cfg describes, over
// the objects of kube and the provider p.
func newWholeCycle(t testing.TB, kube kubernetes.Interface, cfg *xconfig.Config, p *externaldns.Provider) *wholeCycle {
	t.Helper()
	require.NotNil(t, p)
	return &wholeCycle{Kube: kube, Config: cfg, Provider: p}
}

// sources builds zonesync's Service and Ingress sources over the
// clientset, combined as the external-dns binary combines its sources
// (multi, then dedup), and waits until their informers have synced. They
// stop when ctx ends.
func (w *wholeCycle) sources(ctx context.Context) (source.Source, error) {
	opts := k8s.Options{Namespace: w.Config.Namespace}
	svc, err := k8s.NewServiceSource(ctx, w.Kube, k8s.ServiceConfig{Options: opts})
	if err != nil {
		return nil, fmt.Errorf("service source: %w", err)
	}
	ing, err := k8s.NewIngressSource(ctx, w.Kube, k8s.IngressConfig{Options: opts})
	if err != nil {
		return nil, fmt.Errorf("ingress source: %w", err)
	}
	if err := svc.WaitForSync(ctx); err != nil {
		return nil, fmt.Errorf("service source: %w", err)
	}
	if err := ing.WaitForSync(ctx); err != nil {
		return nil, fmt.Errorf("ingress source: %w", err)
	}
	return source.NewDedup(source.NewMulti([]source.Source{svc, ing}, source.MultiOptions{})), nil
}

// policy is the --policy of the deployment; without the flag, "sync"
// (external-dns's binary requires the flag; its usual value).
func (w *wholeCycle) policy() string {
	if w.Config.Policy == "" {
		return "sync"
	}
	return w.Config.Policy
}

// Reconciler returns zonesync's Reconciler of the deployment, built on
// first use: the TXT registry with the flags' ownership settings over
// ZonesyncProvider, the flags' policy and domain filter. Its Source is
// replaced by fresh sources at every RunZonesync.
func (w *wholeCycle) Reconciler() (*zonesync.Reconciler, error) {
	if w.reconciler != nil {
		return w.reconciler, nil
	}
	cfg := w.Config
	p := w.ZonesyncProvider
	if p == nil {
		p = w.Provider
	}
	reg, err := txt.New(p, txt.Config{
		OwnerID:             cfg.TXTOwnerID,
		OldOwnerID:          cfg.TXTOwnerOld,
		Prefix:              cfg.TXTPrefix,
		Suffix:              cfg.TXTSuffix,
		WildcardReplacement: cfg.TXTWildcardReplacement,
		ManagedRecordTypes:  cfg.ManagedDNSRecordTypes,
		ExcludeRecordTypes:  cfg.ExcludeDNSRecordTypes,
	})
	if err != nil {
		return nil, fmt.Errorf("zonesync's TXT registry: %w", err)
	}
	pol, err := policy.ByName(w.policy())
	if err != nil {
		return nil, fmt.Errorf("--policy: %w", err)
	}
	w.reconciler = &zonesync.Reconciler{
		Registry:     reg,
		Policy:       pol,
		DomainFilter: endpoint.NewDomainFilterWithExclusions(cfg.DomainFilter, cfg.DomainExclude),
	}
	return w.reconciler, nil
}

// RunZonesync runs one cycle of zonesync's Reconciler over the objects as
// they are now and returns the changes it applied.
func (w *wholeCycle) RunZonesync(ctx context.Context) (*plan.Changes, error) {
	r, err := w.Reconciler()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the sources' informers
	src, err := w.sources(ctx)
	if err != nil {
		return nil, err
	}
	r.Source = src
	c, err := r.RunOnce(ctx)
	return c.Changes, err
}

// ZonesyncDesired returns the endpoints zonesync's sources yield for the
// objects as they are now.
func (w *wholeCycle) ZonesyncDesired(ctx context.Context) ([]*endpoint.Endpoint, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	src, err := w.sources(ctx)
	if err != nil {
		return nil, err
	}
	return src.Endpoints(ctx)
}

// externalDNSRegistry returns external-dns's TXT registry of the
// deployment over the external-dns provider, built on first use.
func (w *wholeCycle) externalDNSRegistry() (xregistry.Registry, error) {
	if w.xreg != nil {
		return w.xreg, nil
	}
	reg, err := xtxt.New(w.Config, w.Provider.ExternalDNS())
	if err != nil {
		return nil, fmt.Errorf("external-dns's TXT registry: %w", err)
	}
	w.xreg = reg
	return reg, nil
}

// ExternalDNSRecords returns what external-dns's TXT registry reads: the
// records with the ownership labels it found.
func (w *wholeCycle) ExternalDNSRecords(ctx context.Context) ([]*xendpoint.Endpoint, error) {
	reg, err := w.externalDNSRegistry()
	if err != nil {
		return nil, err
	}
	return reg.Records(ctx)
}

// RunExternalDNS runs one cycle of external-dns's controller, as
// controller.Controller.RunOnce of v0.23 does it (see the comment at the
// top of the file), over the objects as they are now, and returns the
// changes it planned; they were applied when err is nil.
func (w *wholeCycle) RunExternalDNS(ctx context.Context) (*xplan.Changes, error) {
	cfg := w.Config
	reg, err := w.externalDNSRegistry()
	if err != nil {
		return nil, err
	}
	pol, ok := xplan.Policies[w.policy()]
	if !ok {
		return nil, fmt.Errorf("--policy %q: not one of external-dns's policies", w.policy())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	src, err := w.sources(ctx)
	if err != nil {
		return nil, err
	}

	current, err := reg.Records(ctx)
	if err != nil {
		return nil, fmt.Errorf("external-dns: reading the registry: %w", err)
	}
	ctx = context.WithValue(ctx, xprovider.RecordsContextKey, current)
	eps, err := src.Endpoints(ctx)
	if err != nil {
		return nil, fmt.Errorf("external-dns: reading the sources: %w", err)
	}
	desired, err := reg.AdjustEndpoints(externaldns.ToExternalDNS(eps))
	if err != nil {
		return nil, fmt.Errorf("external-dns: adjusting endpoints: %w", err)
	}
	p := (&xplan.Plan{
		Policies:       []xplan.Policy{pol},
		Current:        current,
		Desired:        desired,
		DomainFilter:   xendpoint.MatchAllDomainFilters{xendpoint.NewDomainFilterWithExclusions(cfg.DomainFilter, cfg.DomainExclude), reg.GetDomainFilter()},
		ManagedRecords: cfg.ManagedDNSRecordTypes,
		ExcludeRecords: cfg.ExcludeDNSRecordTypes,
		OwnerID:        reg.OwnerID(),
		OldOwnerID:     cfg.TXTOwnerOld,
	}).Calculate()
	if p.Changes.HasChanges() {
		if err := reg.ApplyChanges(ctx, p.Changes); err != nil {
			return p.Changes, fmt.Errorf("external-dns: applying changes: %w", err)
		}
	}
	return p.Changes, nil
}

// describeX renders external-dns's changes for a failure message.
func describeX(c *xplan.Changes) string {
	if c == nil {
		return "<nil>"
	}
	return fmt.Sprintf("create %v, update old %v new %v, delete %v", c.Create, c.UpdateOld, c.UpdateNew, c.Delete)
}
