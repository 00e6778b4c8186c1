package plan

import (
	"hash/maphash"
	"slices"

	"github.com/zonesync/zonesync/endpoint"
)

// Plan compares the records a provider holds (Current) with the records
// sources ask for (Desired) and computes the [Changes] that bring the first
// in line with the second. Fill in the inputs and call [Plan.Calculate].
//
// The zero values of the optional fields are useful: no policies, every name
// in scope, A, AAAA and CNAME managed, no ownership checks (empty OwnerID,
// as with the no-op registry) and the [PerResource] resolver.
type Plan struct {
	// Current holds the records in DNS, as the registry returns them: each
	// with the ownership verdict the registry attached when it read it
	// ([endpoint.Endpoint.Ownership]), which decides whether the plan may
	// change it. A record without one (built by hand, or from a registry
	// that attaches none) is judged by the rule of [endpoint.Owners.Verdict]
	// with OwnerID and OldOwnerID.
	Current []*endpoint.Endpoint
	// Desired holds the records sources ask for.
	Desired []*endpoint.Endpoint
	// Policies filter the changes, in order, after they are calculated.
	Policies []Policy
	// DomainFilter limits the plan to the names it matches; nil matches all.
	DomainFilter endpoint.DomainFilterInterface
	// ManagedRecords lists the record types the plan manages; empty means
	// A, AAAA and CNAME. Types are compared case-insensitively.
	ManagedRecords []string
	// ExcludeRecords lists record types removed from ManagedRecords,
	// compared case-insensitively.
	ExcludeRecords []string
	// OwnerID is the registry's owner id, written as the owner label of
	// every update. Only current records that are ours (see Current) are
	// updated or deleted, and no record is created at a name that holds a
	// record of somebody else (or of nobody). For current records without
	// a verdict, OwnerID and OldOwnerID are the rule's settings: when
	// OwnerID is empty, every such record counts as ours.
	OwnerID string
	// OldOwnerID names a previous owner whose records are taken over. A
	// current record ours under the old owner id (the registry's verdict
	// [endpoint.OwnedByOldOwner], or, without a verdict, an owner label
	// equal to OldOwnerID while OwnerID is set) gets an update that
	// relabels it with OwnerID, even when its data are right.
	OldOwnerID string
	// Resolver chooses between several desired endpoints for one record
	// set; nil means [PerResource].
	Resolver ConflictResolver
	// Protected maps resource keys (values of the resource label,
	// [endpoint.ResourceLabelKey]) to the error that keeps their records
	// from changing: current records whose resource label is a key are
	// neither updated nor deleted, and each change not made is reported
	// with [SkipSourceError]. A Reconciler fills it from a source's
	// partial error, so that an object the source could not read does not
	// lose its records. Nil protects nothing.
	//
	// Protection is keyed on what the records carry: a key that no current
	// record we may change (owned, see OwnerID) carries in its resource
	// label cannot be tied to records — the failed object is new, or its
	// records carry another label, or none — so any record might be one it
	// would have kept. While such a key is present the plan deletes
	// nothing: every delete is reported with [SkipSourceError] and a detail
	// naming the keys. Updates and creates are still made.
	Protected map[string]error
	// Ownable, when set, is asked about every create left after the
	// policies; a create it refuses (non-nil error) is not made and is
	// reported with [SkipUnownable], the error's text as detail. A
	// Reconciler sets it from a registry that can tell which records it
	// could not own (the TXT registry cannot name the ownership record of
	// an apex record without a templated prefix). It must not modify the
	// endpoint.
	Ownable func(ep *endpoint.Endpoint) error
	// Supported, when set, is asked about every valid desired endpoint
	// that enters the plan: an endpoint it refuses (non-nil error) is not
	// planned and is reported with [SkipUnsupported], the error's text as
	// detail, and, as for an invalid endpoint, the records at its name and
	// set identifier are neither updated nor deleted in that cycle. A
	// Reconciler sets it from the guarantees of its provider
	// (provider.Guarantees.Check), so that an endpoint with a set
	// identifier never reaches a provider that drops set identifiers. It
	// must not modify the endpoint.
	Supported func(ep *endpoint.Endpoint) error
	// Validated, when set, is the caller's verdict on the desired
	// endpoints, which it validated already ([endpoint.Endpoint.Validate]):
	// it returns the validation error of a desired endpoint, nil for a
	// valid one, and the planner asks it instead of validating each
	// endpoint a second time. A Reconciler sets it from the validation it
	// runs on every desired endpoint before planning. Nil: the planner
	// validates every desired endpoint itself.
	Validated func(ep *endpoint.Endpoint) error
	// Changes is set by Calculate: the changes to apply, after policies.
	Changes *Changes
	// Owned is set by Calculate: the number of current records the plan
	// may change — of a managed type, matched by the domain filter, not an
	// ownership record, and ours by their ownership verdict — in Total
	// (Zone and PerZone are nil: see [Plan.OwnedIn] for counts per zone).
	// It is what a [SafetyThreshold] judges the changes against.
	Owned Owned
	// owned marks, by index in Current, the records counted in Owned.
	owned []uint64
	// Skipped is set by Calculate: every change not made, with its reason,
	// sorted by (DNSName, SetIdentifier, RecordType).
	Skipped []Skip
	// existing counts, by managed type (existingTypes), the desired
	// endpoints whose record the plan found (see Existing).
	existing      typeCounts
	existingTypes []string
}

// curInfo is what the planner remembers of a current record: the next
// current record in the same slot. Whether it is ours is in planner.owned,
// and whether it is ours under the old owner id is read from its verdict
// when its slot is planned (relabel).
type curInfo struct {
	next int32
}

// desInfo is what the planner remembers of a desired endpoint.
type desInfo struct {
	next int32 // next candidate in the same slot
}

// planner carries the state of one Calculate call.
type planner struct {
	p        *Plan
	owners   endpoint.Owners // who may change current records
	types    []string
	cname    int // index of CNAME in types, or -1
	resolver ConflictResolver
	// builtin: the resolver is PerResource or MergeTargets, which return a
	// single candidate unchanged, so single candidates skip the call.
	builtin bool

	// table is an open-addressing hash table of rows: each entry holds the
	// upper 32 bits of the key's hash and the row index + 1 (0 = empty).
	table   []uint64
	mask    uint64
	seed    maphash.Seed
	rows    []row
	last    int      // row of the last lookup (see rowFor)
	sets    []string // set identifier of each row; nil while all are empty
	extra   []slot   // slots beyond inlineSlots: row r has extra[r*(n-inlineSlots):]
	curInfo []curInfo
	desInfo []desInfo
	// owned marks the current records counted in nOwned (Plan.Owned).
	owned  []uint64
	nOwned int
	// unmanaged maps a name to the one-based index of a current record of
	// an unmanaged type there (ownership records aside); nil while there
	// is none. The plan never changes such a record, but a CNAME cannot
	// be created beside it, nor anything beside one (see blockedAt).
	unmanaged map[string]int32

	// holdDeletes, when not empty, is the detail of every delete held
	// back because a key of Plan.Protected names no current record.
	holdDeletes string
	// existing counts, by type index, the candidates whose slot holds a
	// current record (Plan.Existing).
	existing typeCounts

	scratch []*endpoint.Endpoint
	creates []*endpoint.Endpoint
	updates []updatePair
	deletes []*endpoint.Endpoint
	skipped []Skip
}

type updatePair struct {
	old, new *endpoint.Endpoint
}

// Calculate computes the changes from Current to Desired and returns a new
// Plan: a copy of p with Changes (never nil) and Skipped set. p itself is
// not modified, and neither are the endpoints in Current and Desired:
// endpoints in Create and Delete may be the input endpoints themselves,
// while every UpdateNew endpoint is a new one.
//
// Records are grouped into rows by name in A-label form
// ([endpoint.CanonicalName]: names that are in that form already, as the
// Reconciler gives them, are used as they are) and set identifier, then by record type; see the package documentation
// for the rules applied to each row. Every list in the result is sorted by
// (DNSName, SetIdentifier, RecordType). Calculate runs in time linear in the
// number of records (plus sorting the changes) and allocates little beyond
// the result.
func (p *Plan) Calculate() *Plan {
	pl := newPlanner(p)
	pl.indexCurrent()
	pl.indexDesired()
	pl.holdDeletes = unattributedDetail(p)
	pl.planRows()
	raw := pl.rawChanges()
	changes := raw
	if len(p.Policies) > 0 {
		changes = pl.applyPolicies(raw)
	}
	if p.Ownable != nil && len(changes.Create) > 0 {
		changes = pl.checkOwnable(changes)
	}
	slices.SortFunc(pl.skipped, compareSkips)

	out := *p
	out.Changes = changes
	out.Skipped = pl.skipped
	out.Owned = Owned{Total: pl.nOwned}
	out.owned = pl.owned
	out.existing, out.existingTypes = pl.existing, pl.types
	return &out
}

// Existing returns, for a plan returned by [Plan.Calculate], the number of
// desired endpoints, by record type, whose record (name, set identifier
// and type) the plan found among the current records it manages, whether
// it changes them or not: what external-dns calls verified records. Types
// without any are left out; nil when there is none. The map is new on
// every call.
func (p *Plan) Existing() map[string]int {
	var out map[string]int
	for t, typ := range p.existingTypes {
		if n := p.existing.get(t); n > 0 {
			if out == nil {
				out = map[string]int{}
			}
			out[typ] = n
		}
	}
	return out
}

// typeCounts holds a count per type index without allocating while at
// most len(inline) types are managed.
type typeCounts struct {
	inline [8]int
	more   []int // all counts, when more types are managed
}

func (c *typeCounts) add(t, types, n int) {
	if types <= len(c.inline) {
		c.inline[t] += n
		return
	}
	if c.more == nil {
		c.more = make([]int, types)
	}
	c.more[t] += n
}

func (c *typeCounts) get(t int) int {
	if c.more != nil {
		return c.more[t]
	}
	if t < len(c.inline) {
		return c.inline[t]
	}
	return 0
}

func newPlanner(p *Plan) *planner {
	// With every type excluded the plan manages none: each desired
	// endpoint is reported as unmanaged.
	types, _ := endpoint.ManagedTypes(p.ManagedRecords, p.ExcludeRecords)
	resolver := p.Resolver
	if resolver == nil {
		resolver = PerResource{}
	}
	var builtin bool
	switch resolver.(type) {
	case PerResource, MergeTargets:
		builtin = true
	}
	// Rows usually number about as many as the larger input; the table
	// starts at twice that and doubles when it gets three quarters full.
	expected := max(len(p.Current), len(p.Desired))
	size := 16
	for size < 2*expected {
		size <<= 1
	}
	return &planner{
		p:        p,
		owners:   endpoint.Owners{OwnerID: p.OwnerID, OldOwnerID: p.OldOwnerID},
		types:    types,
		cname:    slices.Index(types, endpoint.RecordTypeCNAME),
		resolver: resolver,
		builtin:  builtin,
		table:    make([]uint64, size),
		mask:     uint64(size - 1),
		seed:     maphash.MakeSeed(),
		rows:     make([]row, 0, expected+min(len(p.Current), len(p.Desired))/8),
		curInfo:  make([]curInfo, len(p.Current)),
		owned:    make([]uint64, (len(p.Current)+63)/64),
		desInfo:  make([]desInfo, len(p.Desired)),
	}
}
