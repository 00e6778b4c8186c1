package inmemory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// Errors returned (wrapped, naming the record or zone) by the provider.
var (
	// ErrZoneExists: CreateZone was asked for a zone that exists.
	ErrZoneExists = errors.New("zone already exists")
	// ErrNoZone: a record does not fall in any zone of the provider.
	ErrNoZone = errors.New("record is not in any zone")
	// ErrRecordExists: a create names a record that exists.
	ErrRecordExists = errors.New("record already exists")
	// ErrRecordNotFound: an update or delete names a record that does not
	// exist.
	ErrRecordNotFound = errors.New("record not found")
	// ErrDuplicateChange: one change set touches a record more than once.
	ErrDuplicateChange = errors.New("record changed more than once in one change set")
	// ErrInvalidOptions: [New] was given an invalid zone or initial
	// record, or more than one [Options].
	ErrInvalidOptions = errors.New("invalid options")
	// ErrInvalidChanges: the change set is malformed (nil endpoint,
	// unpaired updates) or an endpoint fails [endpoint.Endpoint.Validate].
	ErrInvalidChanges = errors.New("invalid changes")
)

// Option is another name of [Options], the name under which the API of
// zonesync's first release lists New's parameter.
type Option = Options

// Options configures a [Provider] built by [New]. The zero value is a
// provider without zones (add them with [Provider.CreateZone]).
type Options struct {
	// Zones are the zones the provider holds; duplicates are merged. Zone
	// names are put in canonical form ([endpoint.ToALabel]); "."
	// is the root zone, which holds every name. An invalid name is
	// reported as described in [New].
	Zones []string
	// Records are the records the provider starts with. They are copied
	// and validated like a create in [Provider.ApplyChanges]: each must be
	// valid, fall in a zone and appear once. When one does not, the
	// provider holds no initial record and reports the problem (see
	// [New]).
	Records []*endpoint.Endpoint
	// DomainFilter, when set, is the filter returned by
	// [Provider.GetDomainFilter]. By default the filter is built from the
	// zones with [provider.DomainFilterFromZones] and follows zones added
	// later with [Provider.CreateZone]. The filter only informs callers:
	// ApplyChanges accepts any record that falls in a zone.
	DomainFilter endpoint.DomainFilterInterface
}

// Provider is a zone-aware DNS provider that keeps records in memory. It is
// the embedded default of zonesync and the reference implementation of the
// [provider.Provider] contract. Create one with [New]; the zero value is not
// usable.
type Provider struct {
	mu         sync.Mutex
	zones      *provider.ZoneMatcher
	zoneNames  []string // normalised, for rebuilding the matcher
	userFilter endpoint.DomainFilterInterface
	filter     endpoint.DomainFilterInterface

	store store
	err   error // invalid options given to New
}

var _ provider.Provider = (*Provider)(nil)

// New returns a provider with the zones and records of opts, which is
// zero or one [Options]: inmemory.New() is a provider without zones,
// inmemory.New(opts) the usual form. The parameter is variadic only so
// that the first reads well; more than one Options is an error.
//
// The signature of New is part of zonesync's fixed API, so it cannot return
// an error as the other constructors of the module do (New(…, Options)
// (*T, error)). It checks everything a constructor would — each zone name
// is a DNS name, each initial record is valid, falls in a zone and appears
// once — and reports what it refuses from [Provider.Err], which takes the
// place of the constructor's error:
//
//	p := inmemory.New(inmemory.Options{Zones: zones, Records: initial})
//	if err := p.Err(); err != nil {
//		return err // wraps ErrInvalidOptions, names each zone or record at fault
//	}
//
// A provider built from invalid options holds no initial record, and every
// Records, ListZones and ApplyChanges call returns that same error, so a
// mistake in a set-up cannot go unnoticed even when Err is not called.
func New(opts ...Options) *Provider {
	var o Options
	var errs []error
	switch len(opts) {
	case 0:
	case 1:
		o = opts[0]
	default:
		errs = append(errs, fmt.Errorf("New takes at most one Options, got %d: put the zones, records and filter in one", len(opts)))
	}
	p := &Provider{store: newStore(len(o.Records)), userFilter: o.DomainFilter}
	for _, z := range o.Zones {
		n := normalizeZone(z)
		if err := validateZone(n); err != nil {
			errs = append(errs, fmt.Errorf("zone %q: %w", z, err))
			continue
		}
		if !slices.Contains(p.zoneNames, n) {
			p.zoneNames = append(p.zoneNames, n)
		}
	}
	p.rebuildZones()
	if len(o.Records) > 0 {
		if err := p.apply(&plan.Changes{Create: o.Records}); err != nil {
			errs = append(errs, fmt.Errorf("initial records: %w", err))
		}
	}
	if len(errs) > 0 {
		p.err = fmt.Errorf("inmemory: %w: %w", ErrInvalidOptions, errors.Join(errs...))
	}
	return p
}

// Err returns the error of the options given to [New] (wrapping
// [ErrInvalidOptions]), or nil: what New would return as its error if its
// signature allowed one. Check it right after New.
func (p *Provider) Err() error {
	return p.err
}

func validateZone(n string) error {
	if n == "." {
		return nil
	}
	return endpoint.ValidateDNSName(n)
}

func normalizeZone(name string) string {
	n := endpoint.ToALabel(strings.TrimSpace(name))
	if n == "" {
		return "."
	}
	return n
}

// rebuildZones recomputes the matcher and default filter; p.mu must be held
// for writing (or p not yet shared).
func (p *Provider) rebuildZones() {
	slices.Sort(p.zoneNames)
	p.zones = provider.NewZoneMatcher(p.zoneNames...)
	if p.userFilter != nil {
		p.filter = p.userFilter
	} else {
		p.filter = provider.DomainFilterFromZones(p.zoneNames)
	}
}

// CreateZone adds a zone. Adding a zone that exists (compared after
// normalisation) returns an error wrapping [ErrZoneExists]; an invalid name
// is an error too.
func (p *Provider) CreateZone(name string) error {
	n := normalizeZone(name)
	if err := validateZone(n); err != nil {
		return fmt.Errorf("inmemory: creating zone %q: %w", name, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if slices.Contains(p.zoneNames, n) {
		return fmt.Errorf("inmemory: creating zone %q: %w", n, ErrZoneExists)
	}
	p.zoneNames = append(p.zoneNames, n)
	p.rebuildZones()
	return nil
}

// zoneList returns the normalised zone names, sorted (the root zone as
// "."). The slice is the caller's.
func (p *Provider) zoneList() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.zoneNames)
}

var _ provider.ZoneLister = (*Provider)(nil)

var _ provider.GuaranteeDeclarer = (*Provider)(nil)

// Guarantees implements [provider.GuaranteeDeclarer]: a create of a record
// set that exists fails (the whole change set is refused), set identifiers
// are kept, and every record type and provider-specific property is stored
// as given.
func (p *Provider) Guarantees() provider.Guarantees {
	return provider.Guarantees{CreateFailsIfExists: true, KeepsSetIdentifiers: true}
}

// ListZones implements [provider.ZoneLister]: it returns the normalised
// zone names, sorted (the root zone as "."), or the error of invalid
// options (see [New]).
func (p *Provider) ListZones(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("inmemory: listing zones: %w", err)
	}
	if p.err != nil {
		return nil, p.err
	}
	return p.zoneList(), nil
}

// GetDomainFilter returns [Options.DomainFilter], or one
// that matches the provider's zones and the names below them.
func (p *Provider) GetDomainFilter() endpoint.DomainFilterInterface {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.filter
}

// AdjustEndpoints returns eps unchanged: the provider stores every record
// type and property it is given (except [endpoint.ProviderSpecificForceUpdate]).
func (p *Provider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return eps, nil
}

// Records returns deep copies of every stored record, sorted by (DNSName,
// SetIdentifier, RecordType). Labels are never set. The slice, endpoints
// and their targets are the caller's; appending to one endpoint's Targets
// cannot overwrite another's.
//
// The records changed since the last call are merged into the sorted
// snapshot (see store), and the copies are made outside the lock, in a few
// bulk allocations, so the cost is linear in the number of records and
// writers are not held up.
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("inmemory: listing records: %w", err)
	}
	if p.err != nil {
		return nil, p.err
	}
	p.mu.Lock()
	snap := p.store.read()
	p.mu.Unlock()
	return snap.copyOut(), nil
}

var _ provider.RecordVisitor = (*Provider)(nil)

// VisitRecords implements [provider.RecordVisitor]: it calls visit for
// every stored record, in the order of [Provider.Records], under the same
// rules (it reads the same snapshot, taken under the lock and walked
// outside it). ep is one scratch endpoint, with one scratch Targets and
// ProviderSpecific slice, refilled for each record; its strings are the
// store's, which are never modified, so they may be kept. Labels are never
// set.
func (p *Provider) VisitRecords(ctx context.Context, visit func(ep *endpoint.Endpoint) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("inmemory: listing records: %w", err)
	}
	if p.err != nil {
		return p.err
	}
	p.mu.Lock()
	snap := p.store.read()
	p.mu.Unlock()
	return snap.visit(visit)
}

// ApplyChanges validates the whole change set and then applies it; a change
// set that fails validation changes nothing (the provider is atomic per
// call). Validation fails, with an error naming the record, when
//
//   - an endpoint is nil or fails [endpoint.Endpoint.Validate]
//     ([ErrInvalidChanges]);
//   - UpdateOld and UpdateNew differ in length ([ErrInvalidChanges]);
//   - a record is in no zone ([ErrNoZone]);
//   - a created record exists ([ErrRecordExists]);
//   - an updated (UpdateOld) or deleted record does not exist
//     ([ErrRecordNotFound]);
//   - a record is touched twice in the change set ([ErrDuplicateChange]);
//     an update pair counts once.
//
// Records are matched by key only (normalised name, type, set identifier):
// the targets and TTL of a Delete or UpdateOld endpoint need not equal the
// stored ones. An update pair whose two keys differ renames the record: the
// old key must exist and the new one must not. Labels are not stored and
// [endpoint.ProviderSpecificForceUpdate] is dropped. Changes is not
// modified and no reference to it is kept.
//
// All validation errors of the call are reported together (errors.Join).
// The cost is linear in the size of the change set; the sort that keeps
// Records ordered is deferred to the next Records call.
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("inmemory: applying changes: %w", err)
	}
	if p.err != nil {
		return p.err
	}
	if changes == nil {
		return nil
	}
	return p.apply(changes)
}

// apply validates changes and, when they are all valid, applies them.
func (p *Provider) apply(changes *plan.Changes) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	v := &validation{
		p:         p,
		touched:   make(map[key]string, len(changes.Create)+len(changes.UpdateOld)+len(changes.UpdateNew)+len(changes.Delete)),
		removals:  make([]key, 0, len(changes.UpdateOld)+len(changes.Delete)),
		additions: make([]*endpoint.Endpoint, 0, len(changes.Create)+len(changes.UpdateNew)),
	}
	v.creates(changes.Create)
	v.updates(changes.UpdateOld, changes.UpdateNew)
	v.deletes(changes.Delete)
	if len(v.errs) > 0 {
		return errors.Join(v.errs...)
	}
	for _, k := range v.removals {
		p.store.remove(k)
	}
	for _, e := range v.additions {
		p.store.put(e)
	}
	p.store.trim()
	return nil
}

// validation checks one change set against the stored records (p.mu
// held) and collects what it removes and adds, or every error found.
type validation struct {
	p         *Provider
	touched   map[key]string // keys changed so far, by which change
	removals  []key
	additions []*endpoint.Endpoint
	errs      []error
}

func (v *validation) fail(format string, args ...any) {
	v.errs = append(v.errs, fmt.Errorf("inmemory: "+format, args...))
}

// touch records that the change what touches k, and fails when another
// change of the set touched it already.
func (v *validation) touch(k key, what string, ep *endpoint.Endpoint) bool {
	if prev, ok := v.touched[k]; ok {
		v.fail("%s %s: %w (also in %s)", what, ep.Key(), ErrDuplicateChange, prev)
		return false
	}
	v.touched[k] = what
	return true
}

// record validates ep, a record to store as what, and returns its key.
func (v *validation) record(what string, ep *endpoint.Endpoint, i int) (key, bool) {
	if ep == nil {
		v.fail("%s[%d]: %w: endpoint is nil", what, i, ErrInvalidChanges)
		return key{}, false
	}
	if err := ep.Validate(); err != nil {
		v.fail("%s %s: %w: %w", what, ep.Key(), ErrInvalidChanges, err)
		return key{}, false
	}
	k := storedKey(ep)
	if _, ok := v.p.zones.Zone(k.name); !ok {
		v.fail("%s %s: %w (zones: %s)", what, ep.Key(), ErrNoZone, strings.Join(v.p.zoneNames, ", "))
		return key{}, false
	}
	return k, true
}

// existing validates ep, naming a stored record to change as what (its
// targets are not looked at), and returns its key.
func (v *validation) existing(what string, ep *endpoint.Endpoint, i int) (key, bool) {
	if ep == nil {
		v.fail("%s[%d]: %w: endpoint is nil", what, i, ErrInvalidChanges)
		return key{}, false
	}
	if err := validateKey(ep); err != nil {
		v.fail("%s %s: %w: %w", what, ep.Key(), ErrInvalidChanges, err)
		return key{}, false
	}
	return storedKey(ep), true
}

func (v *validation) creates(eps []*endpoint.Endpoint) {
	for i, ep := range eps {
		k, ok := v.record("create", ep, i)
		if !ok || !v.touch(k, "create", ep) {
			continue
		}
		if v.p.store.has(k) {
			v.fail("create %s: %w", ep.Key(), ErrRecordExists)
			continue
		}
		v.additions = append(v.additions, newEntry(ep, k))
	}
}

// updates validates update pairs; a pair whose keys differ renames the
// record: the old key must exist and the new one must not.
func (v *validation) updates(olds, news []*endpoint.Endpoint) {
	if len(olds) != len(news) {
		v.fail("update: %w: %d old and %d new records", ErrInvalidChanges, len(olds), len(news))
		return
	}
	for i, newEp := range news {
		ok, okOld := v.existing("updateOld", olds[i], i)
		nk, okNew := v.record("update", newEp, i)
		if !okOld || !okNew || !v.touch(ok, "update", olds[i]) || (ok != nk && !v.touch(nk, "update", newEp)) {
			continue
		}
		switch {
		case !v.p.store.has(ok):
			v.fail("update %s: %w", olds[i].Key(), ErrRecordNotFound)
		case ok != nk && v.p.store.has(nk):
			v.fail("update %s renames to %s: %w", olds[i].Key(), newEp.Key(), ErrRecordExists)
		default:
			v.removals = append(v.removals, ok)
			v.additions = append(v.additions, newEntry(newEp, nk))
		}
	}
}

func (v *validation) deletes(eps []*endpoint.Endpoint) {
	for i, ep := range eps {
		k, ok := v.existing("delete", ep, i)
		if !ok || !v.touch(k, "delete", ep) {
			continue
		}
		if !v.p.store.has(k) {
			v.fail("delete %s: %w", ep.Key(), ErrRecordNotFound)
			continue
		}
		v.removals = append(v.removals, k)
	}
}

// storedKey returns the key ep is stored under.
func storedKey(ep *endpoint.Endpoint) key {
	return key{name: endpoint.CanonicalName(ep.DNSName), recordType: ep.RecordType, setID: ep.SetIdentifier}
}

// validateKey checks the parts of an endpoint that identify a stored record
// (a valid name and a record type), for Delete and UpdateOld endpoints whose
// targets are not looked at.
func validateKey(ep *endpoint.Endpoint) error {
	if ep == nil {
		return errors.New("endpoint is nil")
	}
	var errs []error
	if err := endpoint.ValidateRecordName(ep.RecordType, ep.DNSName); err != nil {
		errs = append(errs, err)
	}
	if ep.RecordType == "" {
		errs = append(errs, errors.New("record type is empty"))
	}
	return errors.Join(errs...)
}

// newEntry copies what a DNS server stores of ep: normalised name, type,
// set identifier, TTL, targets and provider-specific properties other than
// txt/force-update.
func newEntry(ep *endpoint.Endpoint, k key) *endpoint.Endpoint {
	e := &endpoint.Endpoint{
		DNSName:       k.name,
		RecordType:    k.recordType,
		SetIdentifier: k.setID,
		RecordTTL:     ep.RecordTTL,
		Targets:       slices.Clone(ep.Targets),
	}
	for _, prop := range ep.ProviderSpecific {
		if prop.Name == endpoint.ProviderSpecificForceUpdate {
			continue
		}
		e.ProviderSpecific = append(e.ProviderSpecific, prop)
	}
	return e
}
