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
type Options struct {
	// Name names the provider in log lines and errors, e.g. "aws". [New]
	// sets it from the configuration's Provider field when it is empty;
	// with neither it is "external-dns".
	Name string
}

// Provider is a zonesync [provider.Provider] backed by an external-dns
// provider. It is safe for concurrent use: it makes one call into the
// external-dns provider at a time, as external-dns's controller does.
type Provider struct {
	next xprovider.Provider
	name string

	// call serialises the calls into the external-dns provider: external-dns
	// runs one controller loop and its providers (the in-memory one, zone
	// caches in others) are not written for concurrent calls.
	call sync.Mutex

	mu sync.Mutex
	// spelling maps a name Records put into zonesync's form back to the
	// spelling the external-dns provider used, for the names where the two
	// differ, so that changes to those records reach the provider under
	// the name it knows them by.
	spelling map[string]string
}

var _ provider.Provider = (*Provider)(nil)

// Wrap returns a zonesync provider that reads and writes through the
// external-dns provider p. It panics if p is nil. See the package
// documentation for what the adapter converts and adds.
func Wrap(p xprovider.Provider, opts ...Options) *Provider {
	if p == nil {
		panic("externaldns.Wrap: nil provider")
	}
	name := "external-dns"
	for _, o := range opts {
		if o.Name != "" {
			name = o.Name
		}
	}
	return &Provider{next: p, name: name}
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
	name := cfg.Provider
	for _, o := range opts {
		if o.Name != "" {
			name = o.Name
		}
	}
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
	return Wrap(p, Options{Name: name}), nil
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
	xeps, err := do(p, "Records", func() ([]*xendpoint.Endpoint, error) { return p.next.Records(ctx) })
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
	p.spell(x)
	_, err := do(p, "ApplyChanges", func() (struct{}, error) { return struct{}{}, p.next.ApplyChanges(ctx, x) })
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
	adjusted, err := do(p, "AdjustEndpoints", func() ([]*xendpoint.Endpoint, error) { return p.next.AdjustEndpoints(x) })
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
// Reconciler combines it with its own.
func (p *Provider) GetDomainFilter() endpoint.DomainFilterInterface {
	var f xendpoint.DomainFilterInterface
	_, err := do(p, "GetDomainFilter", func() (struct{}, error) { f = p.next.GetDomainFilter(); return struct{}{}, nil })
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

// do calls f with the provider to itself; see [Provider.call].
func do[T any](p *Provider, method string, f func() (T, error)) (T, error) {
	p.call.Lock()
	defer p.call.Unlock()
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

// canonicalNames puts every name into zonesync's one form (see the Names
// rule in package provider) and returns the names it changed, mapped to
// their former spelling (nil when none changed).
func canonicalNames(eps []*endpoint.Endpoint) map[string]string {
	var changed map[string]string
	for _, ep := range eps {
		c := endpoint.ToALabel(ep.DNSName)
		if c == ep.DNSName {
			continue
		}
		if changed == nil {
			changed = make(map[string]string)
		}
		changed[c] = ep.DNSName
		ep.DNSName = c
	}
	return changed
}

// spell puts the names of a change set into zonesync's form, whatever case
// or trailing dot the caller used, and then gives the records Records
// found under another spelling that spelling back.
func (p *Provider) spell(c *xplan.Changes) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, eps := range [][]*xendpoint.Endpoint{c.Create, c.UpdateOld, c.UpdateNew, c.Delete} {
		for _, ep := range eps {
			ep.DNSName = endpoint.ToALabel(ep.DNSName)
			if s, ok := p.spelling[ep.DNSName]; ok {
				ep.DNSName = s
			}
		}
	}
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
