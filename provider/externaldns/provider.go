package externaldns

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"
	xplan "sigs.k8s.io/external-dns/plan"
	xprovider "sigs.k8s.io/external-dns/provider"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// Constructor is the constructor every in-tree external-dns provider
// package has, such as aws.New, google.New, azure.New or cloudflare.New.
type Constructor func(ctx context.Context, cfg *xconfig.Config, domainFilter *xendpoint.DomainFilter) (xprovider.Provider, error)

// Options configures [Wrap] and [New]. The zero value is ready to use.
// When several are given, each field is taken from the last one that sets
// it.
type Options struct {
	// Name names the provider in log lines and errors, e.g. "aws". [New]
	// sets it from the configuration's Provider field when it is empty;
	// with neither it is "external-dns". A name [KnownGuarantees] knows
	// also selects the guarantees the provider declares.
	Name string
	// Guarantees, when not nil, is what the provider declares it
	// guarantees ([Provider.Guarantees]) instead of the table's entry for
	// its name: for a provider the table does not know, or one configured
	// so that the entry does not hold. It is copied.
	Guarantees *provider.Guarantees
	// Zones, when not nil, are the zones [Provider.ListZones] returns
	// instead of asking the provider: for a provider the adapter cannot
	// ask (see ListZones), so that the safety threshold still applies per
	// zone. They are copied.
	Zones []string
}

// merge returns the options opts set, each field from the last option
// that sets it.
func merge(opts []Options) Options {
	var o Options
	for _, x := range opts {
		if x.Name != "" {
			o.Name = x.Name
		}
		if x.Guarantees != nil {
			o.Guarantees = x.Guarantees
		}
		if x.Zones != nil {
			o.Zones = x.Zones
		}
	}
	return o
}

// Provider is a zonesync [provider.Provider] backed by an external-dns
// provider. It is safe for concurrent use: it makes one call into the
// external-dns provider at a time, as external-dns's controller does.
type Provider struct {
	next       xprovider.Provider
	name       string
	guarantees provider.Guarantees
	zones      zoneListing

	// turn is a one-slot semaphore that serialises the calls into the
	// external-dns provider: external-dns runs one controller loop, and
	// its providers (the in-memory one, zone caches in others) are not
	// written for concurrent calls. A call waits for its turn only as
	// long as its context allows, so a provider call that ignores its
	// context delays the others but does not hold them past their
	// deadlines.
	turn chan struct{}

	mu sync.Mutex
	// spelling remembers, for the records the last Records call found
	// spelled otherwise than zonesync's form, how the provider spelled
	// them, so that changes to those records reach the provider under the
	// name it knows them by (see [spellings]).
	spelling spellings
}

var _ provider.Provider = (*Provider)(nil)

// Wrap returns a zonesync provider that reads and writes through the
// external-dns provider p. It panics if p is nil. See the package
// documentation for what the adapter converts and adds.
//
// The provider declares the guarantees of [KnownGuarantees] for its name
// (none for a name the table does not know, nor for the default name),
// or [Options.Guarantees]; it lists zones as [Provider.ListZones] says.
func Wrap(p xprovider.Provider, opts ...Options) *Provider {
	if p == nil {
		panic("externaldns.Wrap: nil provider")
	}
	return wrap(p, merge(opts), nil)
}

// wrap adapts p with the merged options o; cfg is the configuration [New]
// constructed it from, or nil.
func wrap(p xprovider.Provider, o Options, cfg *xconfig.Config) *Provider {
	name := o.Name
	if name == "" {
		name = "external-dns"
	}
	return &Provider{
		next:       p,
		name:       name,
		guarantees: guaranteesFor(o.Name, o.Guarantees),
		zones:      zoneListingFor(p, o.Zones, cfg),
		turn:       make(chan struct{}, 1),
	}
}

// New constructs an external-dns provider with its constructor and wraps
// it. cfg holds the settings the provider's flags would fill (nil means
// [xconfig.NewConfig]); start from [ParseFlags] to get the flags' defaults.
// filter is the provider's domain filter (nil matches every name).
//
// external-dns's own binary can put a records cache in front of any
// provider (--provider-cache-time); New refuses a configuration that asks
// for it, because that cache registers package-level metrics: put
// zonesync's provider/cache in front of the returned provider instead.
func New(ctx context.Context, ctor Constructor, cfg *xconfig.Config, filter *xendpoint.DomainFilter, opts ...Options) (*Provider, error) {
	if ctor == nil {
		return nil, errors.New("externaldns.New: nil constructor")
	}
	if cfg == nil {
		cfg = xconfig.NewConfig()
	}
	if filter == nil {
		filter = &xendpoint.DomainFilter{}
	}
	o := merge(opts)
	if o.Name == "" {
		o.Name = cfg.Provider
	}
	name := o.Name
	if name == "" {
		name = "external-dns"
	}
	if cfg.ProviderCacheTime > 0 {
		return nil, fmt.Errorf("external-dns %s provider: ProviderCacheTime is %s: external-dns's records cache is not supported here, wrap the provider in zonesync's provider/cache instead", name, cfg.ProviderCacheTime)
	}
	p, err := safeCall(name, "New", func() (xprovider.Provider, error) { return ctor(ctx, cfg, filter) })
	if err != nil {
		return nil, fmt.Errorf("external-dns %s provider: %w", name, err)
	}
	if p == nil {
		return nil, fmt.Errorf("external-dns %s provider: the constructor returned no provider and no error", name)
	}
	return wrap(p, o, cfg), nil
}

// ExternalDNS returns the wrapped external-dns provider.
func (p *Provider) ExternalDNS() xprovider.Provider { return p.next }

// Name returns the name the provider is logged and reported under.
func (p *Provider) Name() string { return p.name }

// Records returns the external-dns provider's records in zonesync's form:
// names as lower-case A-labels without a trailing dot, sorted by
// [endpoint.Compare], each a copy the caller owns.
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, p.fail(ctx, "Records", start, err)
	}
	xeps, err := do(ctx, p, "Records", func() ([]*xendpoint.Endpoint, error) { return p.next.Records(ctx) })
	if err != nil {
		return nil, p.fail(ctx, "Records", start, err)
	}
	eps := FromExternalDNS(xeps)
	spelling := canonicalNames(eps)
	p.mu.Lock()
	p.spelling = spelling
	p.mu.Unlock()
	if !slices.IsSortedFunc(eps, endpoint.Compare) {
		slices.SortFunc(eps, endpoint.Compare)
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("external-dns provider read records",
		"provider", p.name, "records", len(eps), "duration", time.Since(start))
	return eps, nil
}

// ApplyChanges converts the changes and applies them through the
// external-dns provider. The changes are not modified.
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return p.fail(ctx, "ApplyChanges", start, err)
	}
	x := ChangesToExternalDNS(changes)
	p.mu.Lock()
	spelling := p.spelling
	p.mu.Unlock()
	spelling.spell(x)
	var err error
	if first := deletesFirst(x); first != nil {
		// A name that loses a record and gains one of another type (an A
		// replaced by a CNAME): external-dns's providers send creates
		// before deletes (pdns in separate requests), and the service
		// refuses the create while the old record stands, at every cycle.
		// The deletes go in a call of their own, before the rest.
		_, err = do(ctx, p, "ApplyChanges", func() (struct{}, error) { return struct{}{}, p.next.ApplyChanges(ctx, first) })
		if err == nil {
			x.Delete = nil
		}
	}
	if err == nil {
		_, err = do(ctx, p, "ApplyChanges", func() (struct{}, error) { return struct{}{}, p.next.ApplyChanges(ctx, x) })
	}
	if err != nil {
		return p.fail(ctx, "ApplyChanges", start, err,
			"create", len(x.Create), "update", len(x.UpdateNew), "delete", len(x.Delete))
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("external-dns provider applied changes",
		"provider", p.name, "create", len(x.Create), "update", len(x.UpdateNew), "delete", len(x.Delete),
		"duration", time.Since(start))
	return nil
}

// AdjustEndpoints lets the external-dns provider adjust copies of the
// desired endpoints, then does what external-dns's binary does after every
// provider's adjustment: an A record with alias=A or an AAAA record with
// alias=AAAA gets alias=true. The endpoints given are not modified.
func (p *Provider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, p.fail(ctx, "AdjustEndpoints", start, err)
	}
	x := ToExternalDNS(eps)
	adjusted, err := do(ctx, p, "AdjustEndpoints", func() ([]*xendpoint.Endpoint, error) { return p.next.AdjustEndpoints(x) })
	if err != nil {
		return nil, p.fail(ctx, "AdjustEndpoints", start, err, "endpoints", len(eps))
	}
	normaliseAlias(adjusted)
	out := FromExternalDNS(adjusted)
	canonicalNames(out)
	logr.FromContextOrDiscard(ctx).V(1).Info("external-dns provider adjusted endpoints",
		"provider", p.name, "in", len(eps), "out", len(out), "duration", time.Since(start))
	return out, nil
}

// GetDomainFilter returns the external-dns provider's domain filter; the
// Reconciler combines it with its own. It has no context: it waits for the
// provider's previous call as long as that takes.
func (p *Provider) GetDomainFilter() endpoint.DomainFilterInterface {
	var f xendpoint.DomainFilterInterface
	_, err := do(context.Background(), p, "GetDomainFilter", func() (struct{}, error) { f = p.next.GetDomainFilter(); return struct{}{}, nil })
	if err != nil || f == nil {
		return &endpoint.DomainFilter{}
	}
	return f
}

// fail logs a failed call and returns its error, naming the provider and
// the method. An external-dns soft error (errors.Is with
// xprovider.SoftError) becomes a zonesync [provider.SoftError], which the
// Reconciler retries at its next cycle; the original error stays in the
// chain.
func (p *Provider) fail(ctx context.Context, method string, start time.Time, err error, kv ...any) error {
	soft := errors.Is(err, xprovider.SoftError)
	err = fmt.Errorf("external-dns %s provider: %s: %w", p.name, method, err)
	if soft {
		err = provider.NewSoftError(err)
	}
	kv = append([]any{"provider", p.name, "method", method, "soft", soft, "duration", time.Since(start)}, kv...)
	logr.FromContextOrDiscard(ctx).Error(err, "external-dns provider call failed", kv...)
	return err
}

// PanicError is returned when an external-dns provider panics in a call:
// the adapter recovers, so that one provider's bug on an odd record fails
// the cycle instead of the program.
type PanicError struct {
	// Provider and Method name the call that panicked.
	Provider, Method string
	// Value is what the provider panicked with.
	Value any
	// Stack is the goroutine's stack at the panic.
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("external-dns %s provider panicked in %s: %v", e.Provider, e.Method, e.Value)
}

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// do calls f when it is the provider's turn (see [Provider.turn]),
// recovering a panic. When ctx ends before then, it returns an error
// wrapping ctx.Err() without calling f.
func do[T any](ctx context.Context, p *Provider, method string, f func() (T, error)) (T, error) {
	select {
	case p.turn <- struct{}{}: // free: taken without looking at ctx
	default:
		select {
		case p.turn <- struct{}{}:
		case <-ctx.Done():
			var zero T
			return zero, fmt.Errorf("waiting for the provider's previous call to end: %w", ctx.Err())
		}
	}
	defer func() { <-p.turn }()
	return safeCall(p.name, method, f)
}

func safeCall[T any](name, method string, f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Provider: name, Method: method, Value: r, Stack: debug.Stack()}
		}
	}()
	return f()
}

// normaliseAlias does what external-dns's provider factory does after a
// provider's AdjustEndpoints.
func normaliseAlias(eps []*xendpoint.Endpoint) {
	for _, ep := range eps {
		if ep == nil {
			continue
		}
		alias := ep.GetAliasProperty()
		if (ep.RecordType == xendpoint.RecordTypeA && alias == xendpoint.AliasA) ||
			(ep.RecordType == xendpoint.RecordTypeAAAA && alias == xendpoint.AliasAAAA) {
			ep.SetProviderSpecificProperty(xendpoint.ProviderSpecificAlias, string(xendpoint.AliasTrue))
		}
	}
}

// deletesFirst returns the deletes of c as a change set of their own when a
// delete and a create of c share a name (in any case, with or without a
// trailing dot), and nil otherwise: such a change set is applied in two
// calls, the deletes first.
func deletesFirst(c *xplan.Changes) *xplan.Changes {
	if len(c.Delete) == 0 || len(c.Create) == 0 {
		return nil
	}
	deleted := make(map[string]bool, len(c.Delete))
	for _, ep := range c.Delete {
		if ep != nil {
			deleted[endpoint.CanonicalName(ep.DNSName)] = true
		}
	}
	for _, ep := range c.Create {
		if ep != nil && deleted[endpoint.CanonicalName(ep.DNSName)] {
			return &xplan.Changes{Delete: c.Delete}
		}
	}
	return nil
}
