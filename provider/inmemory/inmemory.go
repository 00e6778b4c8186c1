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
	// ErrInvalidOptions: [New] was given an invalid zone or initial record.
	ErrInvalidOptions = errors.New("invalid options")
	// ErrInvalidChanges: the change set is malformed (nil endpoint,
	// unpaired updates) or an endpoint fails [endpoint.Endpoint.Validate].
	ErrInvalidChanges = errors.New("invalid changes")
)

// Option configures a [Provider] built by [New].
type Option func(*options)

type options struct {
	zones   []string
	records []*endpoint.Endpoint
	filter  endpoint.DomainFilterInterface
}

// WithZone adds a zone. It may be given several times; duplicates are
// merged. Zone names are put in canonical form ([endpoint.ToALabel]);
// "." is the root zone, which holds every name. An invalid name is reported as
// described in [New].
func WithZone(name string) Option {
	return func(o *options) { o.zones = append(o.zones, name) }
}

// WithRecords adds initial records. They are copied and validated like a
// create in [Provider.ApplyChanges]: each must be valid, fall in a zone and
// appear once. When one does not, the provider holds no initial record and
// reports the problem (see [New]).
func WithRecords(eps ...*endpoint.Endpoint) Option {
	return func(o *options) { o.records = append(o.records, eps...) }
}

// WithDomainFilter sets the filter returned by [Provider.GetDomainFilter].
// By default the filter is built from the zones with
// [provider.DomainFilterFromZones] and follows zones added later with
// [Provider.CreateZone]. The filter only informs callers: ApplyChanges
// accepts any record that falls in a zone.
func WithDomainFilter(f endpoint.DomainFilterInterface) Option {
	return func(o *options) { o.filter = f }
}

// key identifies a stored record set.
type key struct {
	name, recordType, setID string
}

// Provider is a zone-aware DNS provider that keeps records in memory. It is
// the embedded default of zonesync and the reference implementation of the
// [provider.Provider] contract. Create one with [New]; the zero value is not
// usable.
type Provider struct {
	mu         sync.RWMutex
	zones      *provider.ZoneMatcher
	zoneNames  []string // normalised, for rebuilding the matcher
	userFilter endpoint.DomainFilterInterface
	filter     endpoint.DomainFilterInterface

	store store
	err   error // invalid options given to New
}

var _ provider.Provider = (*Provider)(nil)

// New returns a provider with the given zones and records.
//
// New does not fail: when an option is invalid (a zone name that is not a
// DNS name, an initial record that is invalid, outside every zone or
// repeated), the provider reports it from [Provider.Err], and
// [Provider.Records] and [Provider.ApplyChanges] return an error wrapping
// [ErrInvalidOptions] that names the problem, so a mistake in a set-up
// cannot go unnoticed.
func New(opts ...Option) *Provider {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	p := &Provider{store: newStore(len(o.records)), userFilter: o.filter}
	var errs []error
	for _, z := range o.zones {
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
	if len(o.records) > 0 {
		if err := p.apply(&plan.Changes{Create: o.records}); err != nil {
			errs = append(errs, fmt.Errorf("initial records: %w", err))
		}
	}
	if len(errs) > 0 {
		p.err = fmt.Errorf("inmemory: %w: %w", ErrInvalidOptions, errors.Join(errs...))
	}
	return p
}

// Err returns the error of the options given to [New], or nil.
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

// Zones returns the normalised zone names, sorted (the root zone as ".").
// The slice is the caller's.
func (p *Provider) Zones() []string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return slices.Clone(p.zoneNames)
}

var _ provider.ZoneLister = (*Provider)(nil)

// ListZones implements [provider.ZoneLister]: it returns [Provider.Zones],
// or the error of invalid options (see [New]).
func (p *Provider) ListZones(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("inmemory: listing zones: %w", err)
	}
	if p.err != nil {
		return nil, p.err
	}
	return p.Zones(), nil
}

// GetDomainFilter returns the filter set with [WithDomainFilter], or one
// that matches the provider's zones and the names below them.
func (p *Provider) GetDomainFilter() endpoint.DomainFilterInterface {
	p.mu.RLock()
	defer p.mu.RUnlock()
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
// The copies are made in a few bulk allocations (the endpoints, their
// targets, their provider-specific properties and the pointer slice), so
// the cost is linear in the number of records.
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("inmemory: listing records: %w", err)
	}
	if p.err != nil {
		return nil, p.err
	}
	p.mu.RLock()
	snap, clean := p.store.snapshot()
	p.mu.RUnlock()
	if !clean {
		p.mu.Lock()
		p.store.compact()
		snap, _ = p.store.snapshot()
		p.mu.Unlock()
	}
	// A snapshot is never modified once built, so it is copied outside the
	// lock and writers are not held up.
	return snap.copyOut(), nil
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

// op is one validated change.
type op struct {
	del    key                // key to remove, when hasDel
	hasDel bool               // whether the change removes a record
	add    *endpoint.Endpoint // record to insert, or nil
	addKey key                // key of add
}

func (p *Provider) apply(changes *plan.Changes) error {
	n := len(changes.Create) + len(changes.UpdateNew) + len(changes.Delete)
	ops := make([]op, 0, n)
	var errs []error

	p.mu.Lock()
	defer p.mu.Unlock()

	touched := make(map[key]string, n+len(changes.UpdateOld))
	touch := func(k key, what string, ep *endpoint.Endpoint) bool {
		if prev, ok := touched[k]; ok {
			errs = append(errs, fmt.Errorf("inmemory: %s %s: %w (also in %s)", what, ep.Key(), ErrDuplicateChange, prev))
			return false
		}
		touched[k] = what
		return true
	}
	// check validates ep for use as what and returns its key.
	check := func(what string, ep *endpoint.Endpoint, idx int) (key, bool) {
		if ep == nil {
			errs = append(errs, fmt.Errorf("inmemory: %s[%d]: %w: endpoint is nil", what, idx, ErrInvalidChanges))
			return key{}, false
		}
		if err := ep.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("inmemory: %s %s: %w: %w", what, ep.Key(), ErrInvalidChanges, err))
			return key{}, false
		}
		k := key{name: endpoint.ToALabel(ep.DNSName), recordType: ep.RecordType, setID: ep.SetIdentifier}
		if _, ok := p.zones.Zone(k.name); !ok {
			errs = append(errs, fmt.Errorf("inmemory: %s %s: %w (zones: %s)", what, ep.Key(), ErrNoZone, strings.Join(p.zoneNames, ", ")))
			return key{}, false
		}
		return k, true
	}
	exists := p.store.has

	for i, ep := range changes.Create {
		k, ok := check("create", ep, i)
		if !ok || !touch(k, "create", ep) {
			continue
		}
		if exists(k) {
			errs = append(errs, fmt.Errorf("inmemory: create %s: %w", ep.Key(), ErrRecordExists))
			continue
		}
		ops = append(ops, op{add: newEntry(ep, k), addKey: k})
	}
	if len(changes.UpdateOld) != len(changes.UpdateNew) {
		errs = append(errs, fmt.Errorf("inmemory: update: %w: %d old and %d new records",
			ErrInvalidChanges, len(changes.UpdateOld), len(changes.UpdateNew)))
	} else {
		for i, newEp := range changes.UpdateNew {
			oldEp := changes.UpdateOld[i]
			if oldEp == nil {
				errs = append(errs, fmt.Errorf("inmemory: updateOld[%d]: %w: endpoint is nil", i, ErrInvalidChanges))
				continue
			}
			okErr := validateKey(oldEp)
			if okErr != nil {
				errs = append(errs, fmt.Errorf("inmemory: updateOld %s: %w: %w", oldEp.Key(), ErrInvalidChanges, okErr))
			}
			nk, nok := check("update", newEp, i)
			if okErr != nil || !nok {
				continue
			}
			okey := key{name: endpoint.ToALabel(oldEp.DNSName), recordType: oldEp.RecordType, setID: oldEp.SetIdentifier}
			if !touch(okey, "update", oldEp) {
				continue
			}
			if okey != nk && !touch(nk, "update", newEp) {
				continue
			}
			if !exists(okey) {
				errs = append(errs, fmt.Errorf("inmemory: update %s: %w", oldEp.Key(), ErrRecordNotFound))
				continue
			}
			if okey != nk && exists(nk) {
				errs = append(errs, fmt.Errorf("inmemory: update %s renames to %s: %w", oldEp.Key(), newEp.Key(), ErrRecordExists))
				continue
			}
			ops = append(ops, op{del: okey, hasDel: true, add: newEntry(newEp, nk), addKey: nk})
		}
	}
	for i, ep := range changes.Delete {
		if ep == nil {
			errs = append(errs, fmt.Errorf("inmemory: delete[%d]: %w: endpoint is nil", i, ErrInvalidChanges))
			continue
		}
		if err := validateKey(ep); err != nil {
			errs = append(errs, fmt.Errorf("inmemory: delete %s: %w: %w", ep.Key(), ErrInvalidChanges, err))
			continue
		}
		k := key{name: endpoint.ToALabel(ep.DNSName), recordType: ep.RecordType, setID: ep.SetIdentifier}
		if !touch(k, "delete", ep) {
			continue
		}
		if !exists(k) {
			errs = append(errs, fmt.Errorf("inmemory: delete %s: %w", ep.Key(), ErrRecordNotFound))
			continue
		}
		ops = append(ops, op{del: k, hasDel: true})
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}

	for _, o := range ops {
		if o.hasDel {
			p.store.remove(o.del)
		}
		if o.add != nil {
			p.store.add(o.addKey, o.add)
		}
	}
	p.store.maybeCompact()
	return nil
}

// validateKey checks the parts of an endpoint that identify a stored record
// (a valid name and a record type), for Delete and UpdateOld endpoints whose
// targets are not looked at.
func validateKey(ep *endpoint.Endpoint) error {
	if ep == nil {
		return errors.New("endpoint is nil")
	}
	var errs []error
	if err := endpoint.ValidateDNSName(ep.DNSName); err != nil {
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
