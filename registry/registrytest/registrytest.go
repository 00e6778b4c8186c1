package registrytest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/contractkit"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/registry"
)

// Rule names, as they appear in every [Violation] and in the rule table
// of the package documentation.
const (
	RuleOwnerIDStable              = "OwnerIDStable"
	RuleForeignRecordsNotOwned     = "ForeignRecordsNotOwned"
	RuleOrphanOwnershipNotLent     = "OrphanOwnershipNotLent"
	RuleForeignChangesRefused      = "ForeignChangesRefused"
	RuleOwnershipTravelsWithRecord = "OwnershipTravelsWithRecord"
	RuleSliceOwnership             = "SliceOwnership"
	RuleAdjustEndpoints            = "AdjustEndpoints"
	RuleSortedRecords              = "SortedRecords"
	RuleOwnershipVerdict           = "OwnershipVerdict"

	// RulePerZoneErrors is an optional check, run only when
	// [Options.PerZone] declares what it checks.
	RulePerZoneErrors = "PerZoneErrors"
	// RuleSharedContributions, RuleSharedLeave and RuleSharedForeignNotJoined
	// are optional checks, run only when [Options.Shared] is declared.
	RuleSharedContributions    = "SharedContributions"
	RuleSharedLeave            = "SharedLeave"
	RuleSharedForeignNotJoined = "SharedForeignNotJoined"
)

// The zones of the in-memory provider every rule runs over. Records are
// created in zoneA; PerZoneErrors also uses zoneB. Violations name them.
const (
	zoneA = "zone-a.example"
	zoneB = "zone-b.example"
)

// otherOwnerID is the owner id of the second registry the checker builds
// over the same provider, whose records must not pass for the checked
// registry's.
const otherOwnerID = "registrytest-other-owner"

// NewRegistry builds the registry under test over p, writing ownerID as its
// owner. The checker calls it several times per rule, over the same
// provider and with different owner ids; a registry that keeps no
// ownership ignores ownerID.
type NewRegistry func(p provider.Provider, ownerID string) (registry.Registry, error)

// Options configures [CheckRegistry] and [TestRegistry]: how the registry
// under test legitimately differs from one that keeps ownership in the
// provider, and what it declares beyond the contract. The zero value
// checks a registry that records ownership in the provider.
type Options struct {
	// OwnerID is the owner id of the registry under test (default
	// "registrytest-owner").
	OwnerID string
	// NoOwnership declares a registry that records no ownership and
	// reports OwnerID "" (registry/noop): see the package documentation
	// for what the ownership rules check instead.
	NoOwnership bool
	// OwnershipOutsideProvider declares a registry that keeps its
	// ownership data somewhere else than in the provider (registry/crd
	// keeps it in Kubernetes objects): OwnershipTravelsWithRecord then
	// requires that a create writes nothing to the provider beside the
	// record, instead of ownership data. The NewRegistry function gives
	// every registry of one provider the same store.
	OwnershipOutsideProvider bool
	// PerZone declares that the registry applies a change set one zone
	// per provider call when the provider lists its zones, so that a
	// zone that fails does not stop the others, and that its error names
	// each failed zone with a [provider.ZoneError] (registry/txt and
	// registry/crd do). The Registry contract does not ask for it; the
	// optional check PerZoneErrors runs only when it is declared.
	PerZone bool
	// Shared declares that the registries NewRegistry builds publish
	// record sets in shared mode, for every name of the zones it uses
	// (registry/txt with [github.com/zonesync/zonesync/registry/txt.SharedConfig]):
	// several owners contribute to one record set. The optional checks
	// SharedContributions, SharedLeave and SharedForeignNotJoined run only
	// when it is declared.
	Shared bool
}

// Violation is one breach of the registry contract found by
// [CheckRegistry]: the rule broken (Rule...), the call that misbehaved
// (Op), the record concerned (Record, name/type), what was wrong (Msg) and
// the registry's error (Err). Its text is "Rule: Op record: Msg: Err". The
// three contract kits (providertest, registrytest, sourcetest) share this
// one type.
type Violation = contractkit.Violation

type rule struct {
	name  string
	check func(*session)
}

// rules lists the rules of the contract, in the order they run.
func rules() []rule {
	return []rule{
		{RuleOwnerIDStable, checkOwnerIDStable},
		{RuleForeignRecordsNotOwned, checkForeignRecordsNotOwned},
		{RuleOrphanOwnershipNotLent, checkOrphanOwnershipNotLent},
		{RuleForeignChangesRefused, checkForeignChangesRefused},
		{RuleOwnershipTravelsWithRecord, checkOwnershipTravelsWithRecord},
		{RuleSliceOwnership, checkSliceOwnership},
		{RuleAdjustEndpoints, checkAdjustEndpoints},
		{RuleSortedRecords, checkSortedRecords},
		{RuleOwnershipVerdict, checkOwnershipVerdict},
	}
}

// optional lists the checks of what a registry may declare beyond the
// contract, each run only when o declares it.
func optional(o Options) []rule {
	var out []rule
	if o.PerZone {
		out = append(out, rule{RulePerZoneErrors, checkPerZoneErrors})
	}
	if o.Shared {
		out = append(out, rule{RuleSharedContributions, checkSharedContributions},
			rule{RuleSharedLeave, checkSharedLeave},
			rule{RuleSharedForeignNotJoined, checkSharedForeignNotJoined})
	}
	return out
}

// CheckRegistry runs every rule of the registry contract (see the package
// documentation), and the optional checks opts declares, against
// registries built by newRegistry, each rule over a fresh in-memory
// provider holding the zones "zone-a.example" and "zone-b.example". It
// returns all violations joined with errors.Join (each a [*Violation]), or
// nil. It stops early only when ctx is done, adding ctx's error.
func CheckRegistry(ctx context.Context, newRegistry NewRegistry, opts Options) error {
	f := check(ctx, newRegistry, opts)
	return f.Err()
}

// TestRegistry runs [CheckRegistry] and reports each violation with
// t.Error, so that one run shows every problem.
func TestRegistry(t testing.TB, newRegistry NewRegistry, opts Options) {
	t.Helper()
	f := check(t.Context(), newRegistry, opts)
	f.Report(t)
}

func check(ctx context.Context, newRegistry NewRegistry, opts Options) *contractkit.Findings {
	f := &contractkit.Findings{}
	if newRegistry == nil {
		f.Violations = append(f.Violations, errors.New("registrytest: NewRegistry is nil"))
		return f
	}
	if opts.OwnerID == "" {
		opts.OwnerID = "registrytest-owner"
	}
	for _, r := range append(rules(), optional(opts)...) {
		if err := ctx.Err(); err != nil {
			f.Violations = append(f.Violations, fmt.Errorf("registrytest: CheckRegistry stopped before %s: %w", r.name, err))
			break
		}
		f.Violations = append(f.Violations, runRule(ctx, newRegistry, opts, r)...)
	}
	return f
}

func runRule(ctx context.Context, newRegistry NewRegistry, o Options, r rule) []error {
	raw := inmemory.New(inmemory.Options{Zones: []string{zoneA, zoneB}})
	s := &session{ctx: ctx, rule: r.name, opts: o, newRegistry: newRegistry, raw: raw}
	s.p = providertest.Intercept(raw, providertest.Funcs{ApplyChanges: s.applyOrFail})
	r.check(s)
	return s.errs
}

// session is the state of one rule's run.
type session struct {
	ctx         context.Context
	rule        string
	opts        Options
	newRegistry NewRegistry
	raw         *inmemory.Provider // the provider, read and written behind the registry's back
	p           provider.Provider  // raw as the registries see it: fails the changes of failZone
	failZone    string
	errs        []error
}

// applyOrFail fails changes that touch failZone, and applies the others.
func (s *session) applyOrFail(ctx context.Context, next provider.Provider, c *plan.Changes) error {
	if s.failZone != "" {
		for _, list := range [][]*endpoint.Endpoint{c.Create, c.UpdateOld, c.UpdateNew, c.Delete} {
			for _, e := range list {
				if inZone(e.DNSName, s.failZone) {
					return fmt.Errorf("zone %s: %w", s.failZone, providertest.ErrInjected)
				}
			}
		}
	}
	return next.ApplyChanges(ctx, c)
}

func inZone(name, zone string) bool {
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	return name == zone || strings.HasSuffix(name, "."+zone)
}

func (s *session) fail(op, record, msg string, err error) {
	s.errs = append(s.errs, &Violation{Rule: s.rule, Op: op, Record: record, Msg: msg, Err: err})
}

// registry builds a registry over the session's provider.
func (s *session) registry(ownerID string) (registry.Registry, bool) {
	reg, err := s.newRegistry(s.p, ownerID)
	if err == nil && reg == nil {
		err = errors.New("NewRegistry returned nil")
	}
	if err != nil {
		s.fail("NewRegistry", "", fmt.Sprintf("owner %q", ownerID), err)
		return nil, false
	}
	return reg, true
}

// readRegistry builds a registry of the owner being checked and reads it
// once, as a caller does before its first ApplyChanges.
func (s *session) readRegistry() (registry.Registry, bool) {
	reg, ok := s.registry(s.opts.OwnerID)
	if !ok {
		return nil, false
	}
	if _, ok := s.records(reg, "New"); !ok {
		return nil, false
	}
	return reg, true
}

// records reads reg; after says what came before, for the message.
func (s *session) records(reg registry.Registry, after string) ([]*endpoint.Endpoint, bool) {
	recs, err := reg.Records(s.ctx)
	if err != nil {
		s.fail("Records", "", "failed after "+after, err)
		return nil, false
	}
	return recs, true
}

// apply applies c through reg and reports a failure.
func (s *session) apply(reg registry.Registry, op string, c *plan.Changes, subject *endpoint.Endpoint) bool {
	if err := reg.ApplyChanges(s.ctx, c); err != nil {
		s.fail("ApplyChanges("+op+")", keyOf(subject), "failed", err)
		return false
	}
	return true
}

// rawRecords reads the provider directly.
func (s *session) rawRecords() ([]*endpoint.Endpoint, bool) {
	recs, err := s.raw.Records(s.ctx)
	if err != nil {
		s.fail("provider Records", "", "the in-memory provider failed", err)
		return nil, false
	}
	return recs, true
}

// write applies c to the provider directly, as somebody else would.
func (s *session) write(c *plan.Changes) bool {
	if err := s.raw.ApplyChanges(s.ctx, c); err != nil {
		s.fail("provider ApplyChanges", "", "writing behind the registry's back failed", err)
		return false
	}
	return true
}

// seedForeign writes the records no registry of ours may own: one written
// to the provider directly and one created through the registry of
// otherOwnerID. It returns both.
func (s *session) seedForeign() ([]*endpoint.Endpoint, bool) {
	plain := ep("plain."+zoneA, "192.0.2.1")
	if !s.write(&plan.Changes{Create: []*endpoint.Endpoint{plain}}) {
		return nil, false
	}
	other, ok := s.registry(otherOwnerID)
	if !ok {
		return nil, false
	}
	theirs := ep("theirs."+zoneA, "192.0.2.2")
	if _, ok := s.records(other, "building the other owner's registry"); !ok {
		return nil, false
	}
	if !s.apply(other, "create by the other owner", &plan.Changes{Create: []*endpoint.Endpoint{theirs}}, theirs) {
		return nil, false
	}
	return []*endpoint.Endpoint{plain, theirs}, true
}

// ownerOf returns the owner label of e, and whether it has one.
func ownerOf(e *endpoint.Endpoint) (string, bool) {
	return e.Labels.Get(endpoint.OwnerLabelKey)
}

// ep returns an A record in canonical form with TTL 300.
func ep(name string, targets ...string) *endpoint.Endpoint {
	return endpoint.NewEndpointWithTTL(name, endpoint.RecordTypeA, 300, targets...)
}

func keyOf(e *endpoint.Endpoint) string {
	if e == nil {
		return ""
	}
	return e.Key().String()
}

// find returns the record of recs with the key of want.
func find(recs []*endpoint.Endpoint, want *endpoint.Endpoint) (*endpoint.Endpoint, bool) {
	k := want.Key()
	for _, r := range recs {
		if r != nil && r.Key() == k {
			return r, true
		}
	}
	return nil, false
}

// sameRecords reports whether a and b hold equal records in the same order.
func sameRecords(a, b []*endpoint.Endpoint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

// hidden returns the provider records that reg does not report as records:
// its ownership data.
func (s *session) hidden(reg registry.Registry, after string) ([]*endpoint.Endpoint, bool) {
	recs, ok := s.records(reg, after)
	if !ok {
		return nil, false
	}
	raw, ok := s.rawRecords()
	if !ok {
		return nil, false
	}
	var out []*endpoint.Endpoint
	for _, r := range raw {
		if _, ok := find(recs, r); !ok {
			out = append(out, r)
		}
	}
	return out, true
}
