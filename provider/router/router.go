package router

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// ErrInvalidOptions is wrapped by the error of [New] for routes or options
// that cannot work; the error names the route and the field.
var ErrInvalidOptions = errors.New("router: invalid options")

// ErrZoneConflict is wrapped by the error for a zone that two routes
// claim: from [New] when both declare it, from every call when a listing
// route lists a zone another route serves. The error names the zone and
// both routes. Which provider should hold the zone is the user's
// decision, never guessed.
var ErrZoneConflict = errors.New("zone claimed by two routes")

// ErrNoRoute is wrapped by the error for changes to names that no route's
// zone holds. The error names them.
var ErrNoRoute = errors.New("no route holds the name")

// Route sends the records of some zones to one provider.
type Route struct {
	// Name identifies the route in errors and logs ("route53-prod",
	// "bind-internal"). Required and unique among the routes.
	Name string
	// Provider holds the route's zones. Required. It may be wrapped
	// (provider/cache, provider/batch, ...).
	Provider provider.Provider
	// Zones are the zones the route serves (any case, trailing dot or
	// not, Unicode or A-labels). Empty: the zones Provider lists
	// ([provider.ZonesOf]), asked at each call that needs them; the
	// provider must then list zones. Declared zones are taken as they
	// are: the provider may hold more, which the router neither reads
	// nor writes.
	Zones []string
}

// Options configures a [Router]. The zero value gives the defaults.
type Options struct {
	// Concurrency bounds the routes read or written at the same time.
	// Zero: every route at once. Negative: invalid.
	Concurrency int
}

// Router is a provider over several providers, each serving the zones of
// its [Route]. Create it with [New]. It is safe for concurrent use.
type Router struct {
	routes []route
	limit  int
	static *table // the routing table when every route declares its zones

	mu   sync.Mutex
	last *table // the last table built (for ZoneGuarantees and the domain filter)
}

var (
	_ provider.Provider              = (*Router)(nil)
	_ provider.ZoneLister            = (*Router)(nil)
	_ provider.GuaranteeDeclarer     = (*Router)(nil)
	_ provider.ZoneGuaranteeDeclarer = (*Router)(nil)
	_ provider.FreshReader           = (*Router)(nil)
)

type route struct {
	name  string
	p     provider.Provider
	zones []string // canonical, sorted; nil: listed
}

// table routes zones to routes.
type table struct {
	matcher *provider.ZoneMatcher
	owner   map[string]int  // zone -> route index
	zones   [][]string      // per route, sorted
	leaf    map[string]bool // zones with no other zone below them
}

// New returns a router over routes. It refuses (with an error wrapping
// [ErrInvalidOptions] that names the route and field) no routes, a route
// without a name, with a name another route has, without a provider, with
// a blank zone, or without zones whose provider does not list zones, a
// zone two routes declare ([ErrZoneConflict] too), and a negative
// Concurrency. It does no I/O: routes that list their zones are asked at
// the first call that needs them.
func New(routes []Route, opts Options) (*Router, error) {
	if len(routes) == 0 {
		return nil, fmt.Errorf("%w: no routes", ErrInvalidOptions)
	}
	if opts.Concurrency < 0 {
		return nil, fmt.Errorf("%w: Concurrency %d is negative", ErrInvalidOptions, opts.Concurrency)
	}
	r := &Router{limit: opts.Concurrency}
	names := map[string]bool{}
	static := true
	for i, rt := range routes {
		name := strings.TrimSpace(rt.Name)
		switch {
		case name == "":
			return nil, fmt.Errorf("%w: routes[%d].Name is empty", ErrInvalidOptions, i)
		case names[name]:
			return nil, fmt.Errorf("%w: routes[%d].Name %q is the name of another route", ErrInvalidOptions, i, name)
		case rt.Provider == nil:
			return nil, fmt.Errorf("%w: route %q: Provider is nil", ErrInvalidOptions, name)
		}
		names[name] = true
		var zones []string
		for _, z := range rt.Zones {
			if strings.TrimSpace(z) == "" {
				return nil, fmt.Errorf("%w: route %q: Zones holds a blank zone (the root zone is \".\")", ErrInvalidOptions, name)
			}
			zones = append(zones, zoneName(z))
		}
		if len(zones) == 0 {
			static = false
			if _, ok := provider.As[provider.ZoneLister](rt.Provider); !ok {
				return nil, fmt.Errorf("%w: route %q: Zones is empty and the provider (%T) does not list zones", ErrInvalidOptions, name, rt.Provider)
			}
		}
		slices.Sort(zones)
		r.routes = append(r.routes, route{name: name, p: rt.Provider, zones: slices.Compact(zones)})
	}
	if static {
		zones := make([][]string, len(r.routes))
		for i, rt := range r.routes {
			zones[i] = rt.zones
		}
		t, err := r.newTable(zones)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
		}
		r.static, r.last = t, t
	}
	return r, nil
}

// zoneName returns z in the form of [provider.ZoneMatcher]'s zones.
func zoneName(z string) string {
	n := endpoint.CanonicalName(strings.TrimRight(strings.TrimSpace(z), "."))
	if n == "" {
		return "."
	}
	return n
}

// newTable builds the routing table of the routes' zones, refusing a zone
// claimed twice.
func (r *Router) newTable(zones [][]string) (*table, error) {
	t := &table{owner: map[string]int{}, zones: zones}
	var all []string
	for i, zs := range zones {
		for _, z := range zs {
			if j, ok := t.owner[z]; ok && j != i {
				return nil, fmt.Errorf("zone %s: %w: %q and %q", z, ErrZoneConflict, r.routes[j].name, r.routes[i].name)
			}
			t.owner[z] = i
			all = append(all, z)
		}
	}
	t.matcher = provider.NewZoneMatcher(all...)
	t.leaf = make(map[string]bool, len(t.owner))
	for z := range t.owner {
		if z != "." {
			t.leaf[z] = true
		}
	}
	for z := range t.owner {
		for p := z; ; {
			i := strings.IndexByte(p, '.')
			if i < 0 {
				break
			}
			p = p[i+1:]
			if t.leaf[p] {
				t.leaf[p] = false
			}
		}
	}
	return t, nil
}

// under reports whether name, in canonical form, is zone or below it.
func under(name, zone string) bool {
	return name == zone || len(name) > len(zone) && strings.HasSuffix(name, zone) && name[len(name)-len(zone)-1] == '.'
}

// table returns the routing table: the static one, or one built from the
// zones the listing routes list now.
func (r *Router) table(ctx context.Context) (*table, error) {
	if r.static != nil {
		return r.static, nil
	}
	zones := make([][]string, len(r.routes))
	err := r.each(ctx, func(ctx context.Context, i int) error {
		rt := r.routes[i]
		if rt.zones != nil {
			zones[i] = rt.zones
			return nil
		}
		listed, ok, err := provider.ZonesOf(ctx, rt.p)
		if err != nil {
			return fmt.Errorf("route %s: %w", rt.name, err)
		}
		if !ok {
			return fmt.Errorf("route %s: declares no zones and its provider does not list zones: %w", rt.name, provider.ErrZonesUnsupported)
		}
		listed = slices.Clone(listed)
		slices.Sort(listed)
		zones[i] = listed
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("router: listing zones: %w", err)
	}
	t, err := r.newTable(zones)
	if err != nil {
		return nil, fmt.Errorf("router: %w", err)
	}
	r.mu.Lock()
	r.last = t
	r.mu.Unlock()
	return t, nil
}

// lastTable returns the last routing table built, or nil.
func (r *Router) lastTable() *table {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// each calls fn for every route index, at most Concurrency at once, and
// returns the errors joined in route order. Every call is made (one
// route's failure does not stop the others).
func (r *Router) each(ctx context.Context, fn func(ctx context.Context, i int) error) error {
	errs := make([]error, len(r.routes))
	var g errgroup.Group
	if r.limit > 0 {
		g.SetLimit(r.limit)
	}
	for i := range r.routes {
		g.Go(func() error {
			errs[i] = fn(ctx, i)
			return nil
		})
	}
	_ = g.Wait()
	return errors.Join(errs...)
}

// routeOf returns the index of the route holding name, or -1.
func (t *table) routeOf(name string) int {
	z, ok := t.matcher.Zone(name)
	if !ok {
		return -1
	}
	return t.owner[z]
}

// ListZones returns the zones of every route, sorted, in the form of
// [provider.ZoneMatcher]'s zones. A route's failure to list fails the
// call (the error names the route), as does a zone two routes claim.
func (r *Router) ListZones(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("router: %w", err)
	}
	t, err := r.table(ctx)
	if err != nil {
		return nil, err
	}
	return t.matcher.Zones(), nil
}

// Records reads every route (at most Options.Concurrency at once) and
// returns the union, sorted: from each route, the records whose most
// specific zone is one of that route's, so that a provider holding more
// than its route's zones, or a parent zone's records at a delegated
// sub-zone's names, add nothing. It fails when any route fails: a partial
// view of the current records would let a plan create or delete on a
// wrong basis. The error names each failed route and its zones, and is
// soft when a route's error is.
func (r *Router) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return r.read(ctx, func(ctx context.Context, p provider.Provider) ([]*endpoint.Endpoint, error) {
		return p.Records(ctx)
	})
}

// FreshRecords is [Router.Records] through [provider.FreshRecords] of each
// route: past any records cache a route's provider has, and through
// Records for a route without one.
func (r *Router) FreshRecords(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return r.read(ctx, provider.FreshRecords)
}

func (r *Router) read(ctx context.Context, records func(context.Context, provider.Provider) ([]*endpoint.Endpoint, error)) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("router: %w", err)
	}
	t, err := r.table(ctx)
	if err != nil {
		return nil, err
	}
	parts := make([][]*endpoint.Endpoint, len(r.routes))
	err = r.each(ctx, func(ctx context.Context, i int) error {
		recs, err := records(ctx, r.routes[i].p)
		if err != nil {
			return fmt.Errorf("route %s (zones %s): %w", r.routes[i].name, strings.Join(t.zones[i], ", "), err)
		}
		// Records come in runs of one zone: a name under the last zone
		// kept, when no zone lies below it, is the route's without
		// asking the matcher again.
		kept, last := recs[:0], ""
		for _, ep := range recs {
			if ep == nil {
				continue
			}
			if last != "" && under(ep.DNSName, last) {
				kept = append(kept, ep)
				continue
			}
			if z, ok := t.matcher.Zone(ep.DNSName); ok && t.owner[z] == i {
				kept = append(kept, ep)
				if t.leaf[z] {
					last = z
				}
			}
		}
		clear(recs[len(kept):])
		parts[i] = kept
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("router: reading records: %w", err)
	}
	return merge(parts), nil
}

// merge merges lists sorted by [endpoint.Compare] into one sorted list.
func merge(parts [][]*endpoint.Endpoint) []*endpoint.Endpoint {
	n, nonEmpty, last := 0, 0, -1
	for i, p := range parts {
		n += len(p)
		if len(p) > 0 {
			nonEmpty++
			last = i
		}
	}
	switch nonEmpty {
	case 0:
		return []*endpoint.Endpoint{}
	case 1:
		return parts[last]
	}
	out := make([]*endpoint.Endpoint, 0, n)
	heads := make([]int, len(parts))
	for len(out) < n {
		// The list with the smallest head, and the smallest head of the
		// others: the first list's records up to that one go out in a
		// run, one comparison each.
		best, second := -1, -1
		for i, p := range parts {
			if heads[i] == len(p) {
				continue
			}
			switch {
			case best < 0 || endpoint.Compare(p[heads[i]], parts[best][heads[best]]) < 0:
				best, second = i, best
			case second < 0 || endpoint.Compare(p[heads[i]], parts[second][heads[second]]) < 0:
				second = i
			}
		}
		p := parts[best]
		if second < 0 {
			out = append(out, p[heads[best]:]...)
			heads[best] = len(p)
			continue
		}
		limit := parts[second][heads[second]]
		for heads[best] < len(p) && endpoint.Compare(p[heads[best]], limit) <= 0 {
			out = append(out, p[heads[best]])
			heads[best]++
		}
	}
	return out
}

// ApplyChanges splits changes by zone ([provider.SplitByZone]: a record
// with its ownership TXT, in the record's most specific zone) and sends
// each zone's part to the provider of its route, one call per zone, the
// zones of a route in order and the routes at most Options.Concurrency at
// once. A zone that fails does not stop the others: every failure is a
// [*provider.ZoneError] naming its zone (and the route), joined in zone
// order, so [provider.FailedZones] gives exactly the zones not applied.
// Changes to names no route holds are refused, as a ZoneError for the
// zone "" wrapping [ErrNoRoute] and naming them; the rest is applied.
// When the routing table cannot be built (a route fails to list its
// zones) nothing is applied.
func (r *Router) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("router: %w", err)
	}
	if changes == nil || len(changes.Create)+len(changes.UpdateNew)+len(changes.UpdateOld)+len(changes.Delete) == 0 {
		return nil
	}
	t, err := r.table(ctx)
	if err != nil {
		return err
	}
	names, parts := provider.SplitByZone(changes, t.matcher)
	perRoute := make([][]string, len(r.routes))
	zoneErrs := make(map[string]error, len(names))
	for _, z := range names {
		if z == "" {
			zoneErrs[z] = &provider.ZoneError{Zone: z, Err: unrouted(parts[z])}
			continue
		}
		i := t.owner[z]
		perRoute[i] = append(perRoute[i], z)
	}
	var mu sync.Mutex
	_ = r.each(ctx, func(ctx context.Context, i int) error {
		for _, z := range perRoute[i] {
			err := ctx.Err()
			if err == nil {
				err = r.routes[i].p.ApplyChanges(ctx, parts[z])
			}
			if err != nil {
				mu.Lock()
				zoneErrs[z] = &provider.ZoneError{Zone: z, Err: fmt.Errorf("route %s: %w", r.routes[i].name, err)}
				mu.Unlock()
			}
		}
		return nil
	})
	var errs []error
	for _, z := range names {
		if err := zoneErrs[z]; err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// maxNamed caps the names an [ErrNoRoute] error lists.
const maxNamed = 10

// unrouted returns the error for changes no route holds, naming their
// records.
func unrouted(c *plan.Changes) error {
	var keys []string
	add := func(eps []*endpoint.Endpoint) {
		for _, ep := range eps {
			if ep != nil {
				keys = append(keys, ep.Key().String())
			}
		}
	}
	add(c.Create)
	add(c.UpdateNew)
	add(c.Delete)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	more := ""
	if len(keys) > maxNamed {
		more = fmt.Sprintf(" and %d more", len(keys)-maxNamed)
		keys = keys[:maxNamed]
	}
	return fmt.Errorf("%w: %s%s", ErrNoRoute, strings.Join(keys, ", "), more)
}

// AdjustEndpoints gives each route's provider the endpoints of its zones
// (by their most specific zone) and returns what they return. When every
// provider returns as many endpoints as it was given, each result takes
// the place of its input, so the order is kept; otherwise the results
// follow in route order. Endpoints no route holds are returned unchanged:
// the router's domain filter leaves them out of a plan, and ApplyChanges
// refuses them. A provider's error fails the call and names the route.
func (r *Router) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	if len(eps) == 0 {
		return eps, nil
	}
	t, err := r.table(ctx)
	if err != nil {
		return nil, err
	}
	idx := make([][]int, len(r.routes))
	given := make([][]*endpoint.Endpoint, len(r.routes))
	var rest []int
	for j, ep := range eps {
		i := -1
		if ep != nil {
			name, _ := provider.GroupKey(ep)
			i = t.routeOf(name)
		}
		if i < 0 {
			rest = append(rest, j)
			continue
		}
		idx[i] = append(idx[i], j)
		given[i] = append(given[i], ep)
	}
	got := make([][]*endpoint.Endpoint, len(r.routes))
	err = r.each(ctx, func(ctx context.Context, i int) error {
		if len(given[i]) == 0 {
			return nil
		}
		out, err := r.routes[i].p.AdjustEndpoints(ctx, given[i])
		if err != nil {
			return fmt.Errorf("route %s: %w", r.routes[i].name, err)
		}
		got[i] = out
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("router: adjusting endpoints: %w", err)
	}
	same := true
	for i := range got {
		same = same && len(got[i]) == len(given[i])
	}
	out := make([]*endpoint.Endpoint, 0, len(eps))
	if same {
		out = out[:len(eps)]
		for i := range got {
			for k, j := range idx[i] {
				out[j] = got[i][k]
			}
		}
		for _, j := range rest {
			out[j] = eps[j]
		}
		return out, nil
	}
	for i := range got {
		out = append(out, got[i]...)
	}
	for _, j := range rest {
		out = append(out, eps[j])
	}
	return out, nil
}

// GetDomainFilter returns a filter that matches a name when a route holds
// it (by its most specific zone) and that route's provider's filter
// matches it. The routes' zones are those of the last routing table
// built; before any call built one, the zones are listed without a
// deadline, and if that fails the filter matches a name that any route's
// provider's filter matches. The filter is not an *endpoint.DomainFilter:
// served through provider/webhook, it is sent as the empty (match-all)
// filter, and the router still refuses unrouted names in ApplyChanges.
func (r *Router) GetDomainFilter() endpoint.DomainFilterInterface {
	t := r.lastTable()
	if t == nil {
		t, _ = r.table(context.Background())
	}
	f := &Filter{table: t, filters: make([]endpoint.DomainFilterInterface, len(r.routes))}
	for i, rt := range r.routes {
		f.filters[i] = rt.p.GetDomainFilter()
	}
	return f
}

// Filter is the domain filter of a [Router] ([Router.GetDomainFilter]).
type Filter struct {
	table   *table
	filters []endpoint.DomainFilterInterface
}

// Match reports whether the router manages name: a route holds it and its
// provider's filter matches it.
func (f *Filter) Match(name string) bool {
	if f.table == nil {
		for _, pf := range f.filters {
			if pf == nil || pf.Match(name) {
				return true
			}
		}
		return false
	}
	i := f.table.routeOf(name)
	if i < 0 {
		return false
	}
	return f.filters[i] == nil || f.filters[i].Match(name)
}

// Guarantees returns the weakest combination of the routes' guarantees,
// true of every zone: creates fail on existing records only if they do on
// every route, set identifiers are kept only if every route keeps them,
// and the record types and provider-specific properties are those every
// route that declares a list keeps (a route that declares none adds no
// restriction; nil when no route declares any). It is what a caller that
// does not ask per name sees; the core asks per name
// ([provider.GuaranteesByName], through [Router.ZoneGuarantees]).
func (r *Router) Guarantees() provider.Guarantees {
	gs := make([]provider.Guarantees, len(r.routes))
	for i, rt := range r.routes {
		gs[i] = provider.GuaranteesOf(rt.p)
	}
	return weakest(gs)
}

// ZoneGuarantees returns, for every zone of the last routing table built
// (the routes' declared zones, or those listed at the last call that
// listed them), the guarantees of its route's provider
// ([provider.GuaranteesOf]). Before any table was built it returns nil, and
// every name has the weakest guarantees ([Router.Guarantees]).
func (r *Router) ZoneGuarantees() map[string]provider.Guarantees {
	t := r.lastTable()
	if t == nil {
		return nil
	}
	per := make([]provider.Guarantees, len(r.routes))
	for i, rt := range r.routes {
		per[i] = provider.GuaranteesOf(rt.p)
	}
	out := make(map[string]provider.Guarantees, len(t.owner))
	for z, i := range t.owner {
		out[z] = per[i].Clone()
	}
	return out
}

// weakest combines guarantees into those true of all.
func weakest(gs []provider.Guarantees) provider.Guarantees {
	out := provider.Guarantees{CreateFailsIfExists: true, KeepsSetIdentifiers: true}
	var types, props [][]string
	for _, g := range gs {
		out.CreateFailsIfExists = out.CreateFailsIfExists && g.CreateFailsIfExists
		out.KeepsSetIdentifiers = out.KeepsSetIdentifiers && g.KeepsSetIdentifiers
		if g.RecordTypes != nil {
			types = append(types, g.RecordTypes)
		}
		if g.ProviderSpecific != nil {
			props = append(props, g.ProviderSpecific)
		}
	}
	if len(gs) == 0 {
		return provider.Guarantees{}
	}
	out.RecordTypes = intersect(types, func(list []string, t string) bool {
		return slices.ContainsFunc(list, func(x string) bool { return strings.EqualFold(x, t) })
	}, strings.ToUpper)
	out.ProviderSpecific = intersect(props, keeps, func(s string) string { return s })
	return out
}

// intersect returns the entries of the lists that every list has (by
// has), normalised by norm, sorted and without duplicates; nil for no
// lists.
func intersect(lists [][]string, has func(list []string, entry string) bool, norm func(string) string) []string {
	if len(lists) == 0 {
		return nil
	}
	out := []string{}
	for _, list := range lists {
		for _, e := range list {
			all := true
			for _, other := range lists {
				all = all && has(other, e)
			}
			if all {
				out = append(out, norm(e))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// keeps reports whether a ProviderSpecific list keeps the property or
// prefix name, as [provider.Guarantees.Check] reads the list: an entry
// equal to it, or an entry ending in "/" that it starts with.
func keeps(list []string, name string) bool {
	for _, k := range list {
		if k == name || strings.HasSuffix(k, "/") && strings.HasPrefix(name, k) {
			return true
		}
	}
	return false
}
