package plan

import (
	"fmt"
	"hash/maphash"
	"math/bits"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// Policy filters a calculated set of changes, for example to drop deletes.
// Apply must not modify its argument (the lists or the endpoints in them)
// and returns the changes to keep; it may return its argument unchanged.
// A change whose endpoint is absent from the returned lists is reported in
// [Plan.Skipped] with [SkipPolicy]. Package policy holds the built-in ones.
type Policy interface {
	Apply(changes *Changes) *Changes
}

// PolicyFunc adapts a function to a [Policy]. In skip details the policy is
// named by its type, "plan.PolicyFunc"; give the function a type of its own
// with a String method for a better name.
type PolicyFunc func(changes *Changes) *Changes

// Apply calls f(changes).
func (f PolicyFunc) Apply(changes *Changes) *Changes { return f(changes) }

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
}

// inlineSlots is the number of record types whose slots live inside a row;
// further types (when more than three are managed) live in planner.extra.
const inlineSlots = 3

// row holds one (normalised name, set identifier) row; its set identifier
// is in planner.sets. Indexes are one-based so that the zero value means
// "none". Rows are kept small: with 100,000 names their size decides how
// much memory a plan touches.
type row struct {
	name    string // normalised DNS name
	foreign int32  // a current record at the row that is not ours
	invalid int32  // an invalid desired endpoint at the row
	slots   [inlineSlots]slot
}

// slot is one record type of one row: one-based heads of linked lists
// through Current (curInfo) and Desired (desInfo).
type slot struct {
	cur  int32
	cand int32
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
	return &out
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

// typeIndex returns the position of t in the managed types (compared
// case-insensitively), or -1.
func (pl *planner) typeIndex(t string) int {
	for i, m := range pl.types {
		if m == t {
			return i
		}
	}
	for i, m := range pl.types {
		if strings.EqualFold(m, t) {
			return i
		}
	}
	return -1
}

// trimSpace removes white space around a name, so that a desired endpoint
// whose name is invalid only for its white space lands in the row of the
// name it means and holds that row's records (see [SkipInvalid]). It does
// not allocate.
func trimSpace(name string) string {
	if name == "" || (name[0] > ' ' && name[len(name)-1] > ' ' && name[0] < 0x80 && name[len(name)-1] < 0x80) {
		return name
	}
	return strings.TrimSpace(name)
}

// slot returns slot t of row r.
func (pl *planner) slot(r, t int) *slot {
	if t < inlineSlots {
		return &pl.rows[r].slots[t]
	}
	return &pl.extra[r*(len(pl.types)-inlineSlots)+t-inlineSlots]
}

// rowSet returns the set identifier of row r.
func (pl *planner) rowSet(r int) string {
	if pl.sets == nil {
		return ""
	}
	return pl.sets[r]
}

// rowHasCurrent reports whether row r holds a current record.
func (pl *planner) rowHasCurrent(r int) bool {
	for t := range pl.types {
		if pl.slot(r, t).cur != 0 {
			return true
		}
	}
	return false
}

// hashKey returns the hash of a row key.
func (pl *planner) hashKey(name, set string) uint64 {
	h := maphash.String(pl.seed, name)
	if set != "" {
		h ^= bits.RotateLeft64(maphash.String(pl.seed, set), 31) * 0x9e3779b97f4a7c15
	}
	return h
}

// rowFor returns the index of the row (name, set), creating it when it does
// not exist. Providers and sources tend to return records in the same
// sorted order, so the rows of consecutive lookups are usually the same row
// or the next one: those two are tried before the hash table, which keeps
// the lookups of sorted inputs sequential in memory.
func (pl *planner) rowFor(name, set string) int {
	for _, r := range [2]int{pl.last, pl.last + 1} {
		if r < len(pl.rows) && pl.rows[r].name == name && pl.rowSet(r) == set {
			pl.last = r
			return r
		}
	}
	r := pl.findRow(name, set, pl.hashKey(name, set))
	pl.last = r
	return r
}

// findRow returns the index of the row (name, set) whose key hashes to h,
// creating it when it does not exist.
func (pl *planner) findRow(name, set string, h uint64) int {
	tag := h >> 32 << 32
	for i := h & pl.mask; ; i = (i + 1) & pl.mask {
		entry := pl.table[i]
		if entry == 0 {
			r := len(pl.rows)
			if 4*(r+1) > 3*len(pl.table) {
				pl.grow()
				return pl.findRow(name, set, h)
			}
			pl.table[i] = tag | uint64(r+1)
			pl.rows = append(pl.rows, row{name: name})
			if pl.sets != nil {
				pl.sets = append(pl.sets, set)
			} else if set != "" {
				pl.sets = make([]string, r, cap(pl.rows))
				pl.sets = append(pl.sets, set)
			}
			if extra := len(pl.types) - inlineSlots; extra > 0 {
				pl.extra = append(pl.extra, make([]slot, extra)...)
			}
			return r
		}
		if entry&^0xffffffff == tag {
			r := int(uint32(entry)) - 1
			if pl.rows[r].name == name && pl.rowSet(r) == set {
				return r
			}
		}
	}
}

// grow doubles the hash table and re-inserts every row.
func (pl *planner) grow() {
	pl.table = make([]uint64, 2*len(pl.table))
	pl.mask = uint64(len(pl.table) - 1)
	for r := range pl.rows {
		h := pl.hashKey(pl.rows[r].name, pl.rowSet(r))
		i := h & pl.mask
		for pl.table[i] != 0 {
			i = (i + 1) & pl.mask
		}
		pl.table[i] = h>>32<<32 | uint64(r+1)
	}
}

// batchSize is the number of endpoints prepared together.
const batchSize = 32

// pendingKey is an endpoint of a batch, ready for its row lookup.
type pendingKey struct {
	name  string // normalised DNS name
	t     int    // type index, or -1 when the endpoint stays out of the plan
	owned bool   // current records: ours by their verdict
	// unmanaged: a current record of a type the plan does not manage.
	unmanaged bool
}

// prepare fills keys for the batch eps: the type index (or -1 for endpoints
// that stay out, recording why for desired ones), what the labels say, the
// normalised name and the hash.
func (pl *planner) prepare(eps []*endpoint.Endpoint, keys []pendingKey, desired bool) {
	for j, e := range eps {
		keys[j] = pendingKey{t: pl.admitType(e, desired)}
		keys[j].unmanaged = !desired && keys[j].t < 0 && e != nil
	}
	for j, e := range eps {
		k := &keys[j]
		if k.t < 0 {
			continue
		}
		if _, ok := e.Labels.Get(endpoint.OwnedRecordLabelKey); ok {
			if desired {
				pl.skip(ActionCreate, e, SkipUnmanagedType, "ownership record of the registry (label "+endpoint.OwnedRecordLabelKey+")")
			}
			k.t = -1
			continue
		}
		if !desired {
			v := pl.owners.Of(e)
			k.owned = v.Mine()
		}
	}
	for j, e := range eps {
		k := &keys[j]
		if k.t < 0 {
			continue
		}
		if !pl.inScope(e) {
			if desired {
				pl.skip(ActionCreate, e, SkipFilteredOut, "name not matched by the domain filter")
			}
			k.t = -1
			continue
		}
		k.name = endpoint.CanonicalName(trimSpace(e.DNSName))
	}
}

// admitType returns the type index of e, or -1 when e is nil or of an
// unmanaged type; for desired endpoints it records why.
func (pl *planner) admitType(e *endpoint.Endpoint, desired bool) int {
	if e == nil {
		if desired {
			pl.skip(ActionCreate, nil, SkipInvalid, "desired endpoint is nil")
		}
		return -1
	}
	t := pl.typeIndex(e.RecordType)
	if t < 0 && desired {
		pl.skip(ActionCreate, e, SkipUnmanagedType, pl.unmanagedDetail(e.RecordType))
	}
	return t
}

func (pl *planner) inScope(e *endpoint.Endpoint) bool {
	return pl.p.DomainFilter == nil || pl.p.DomainFilter.Match(e.DNSName)
}

// indexCurrent puts every managed, in-scope current record into its slot.
func (pl *planner) indexCurrent() {
	var keys [batchSize]pendingKey
	all := pl.p.Current
	for start := 0; start < len(all); start += batchSize {
		eps := all[start:min(start+batchSize, len(all))]
		pl.prepare(eps, keys[:len(eps)], false)
		for j, e := range eps {
			k := &keys[j]
			if k.t < 0 {
				if k.unmanaged {
					pl.noteUnmanaged(start+j, e)
				}
				continue
			}
			i := start + j
			r := pl.rowFor(k.name, e.SetIdentifier)
			if rw := &pl.rows[r]; rw.foreign == 0 && !k.owned {
				rw.foreign = int32(i + 1)
			}
			if k.owned {
				pl.owned[i/64] |= 1 << (i % 64)
				pl.nOwned++
			}
			s := pl.slot(r, k.t)
			pl.curInfo[i] = curInfo{next: s.cur}
			s.cur = int32(i + 1)
		}
	}
}

// indexDesired puts every managed, in-scope, valid desired endpoint into its
// slot and records why the others are left out.
func (pl *planner) indexDesired() {
	var keys [batchSize]pendingKey
	all := pl.p.Desired
	for start := 0; start < len(all); start += batchSize {
		eps := all[start:min(start+batchSize, len(all))]
		pl.prepare(eps, keys[:len(eps)], true)
		for j, e := range eps {
			k := &keys[j]
			if k.t < 0 {
				continue
			}
			i := start + j
			r := pl.rowFor(k.name, e.SetIdentifier)
			s := pl.slot(r, k.t)
			if reason, err := pl.refusal(e); err != nil {
				if pl.rows[r].invalid == 0 {
					pl.rows[r].invalid = int32(i + 1)
				}
				pl.skip(actionFor(s.cur != 0), e, reason, err.Error())
				continue
			}
			pl.desInfo[i] = desInfo{next: s.cand}
			s.cand = int32(i + 1)
		}
	}
}

// validate returns the validation error of the desired endpoint e: the
// caller's verdict when it gave one (Plan.Validated), else
// e.ValidateDesired().
func (pl *planner) validate(e *endpoint.Endpoint) error {
	if pl.p.Validated != nil {
		return pl.p.Validated(e)
	}
	return e.ValidateDesired()
}

// refusal returns why the desired endpoint e is not planned, if it is
// not: it is invalid ([SkipInvalid]), or the provider cannot store it
// (Plan.Supported, [SkipUnsupported]).
func (pl *planner) refusal(e *endpoint.Endpoint) (SkipReason, error) {
	if err := pl.validate(e); err != nil {
		return SkipInvalid, err
	}
	if pl.p.Supported != nil {
		if err := pl.p.Supported(e); err != nil {
			return SkipUnsupported, err
		}
	}
	return "", nil
}

func (pl *planner) unmanagedDetail(recordType string) string {
	return fmt.Sprintf("record type %q is not managed (managed: %s)", recordType, strings.Join(pl.types, ", "))
}

func (pl *planner) skip(action Action, e *endpoint.Endpoint, reason SkipReason, detail string) {
	pl.skipped = append(pl.skipped, Skip{Action: action, Endpoint: e, Reason: reason, Detail: detail})
}

// planRows decides the changes of every row.
func (pl *planner) planRows() {
	nt := len(pl.types)
	for r := range pl.rows {
		rw := &pl.rows[r]
		protected := rw.invalid != 0 && pl.rowHasCurrent(r)
		// A CNAME cannot coexist with any other type at one name (RFC 1034
		// §3.6.2): when other types are asked for too, the CNAME goes.
		other := -1
		if pl.cname >= 0 && pl.slot(r, pl.cname).cand != 0 {
			other = pl.otherCandidateType(r)
		}
		for t := range nt {
			s := *pl.slot(r, t)
			if s.cur == 0 && s.cand == 0 {
				continue
			}
			cur := pl.pickCurrent(s.cur)
			if t == pl.cname && other >= 0 {
				pl.dropCNAMEs(pl.types[other], s.cand, cur != 0)
				s.cand = 0
			}
			var win *endpoint.Endpoint
			if s.cand != 0 {
				win = pl.resolve(cur, s.cand)
			}
			pl.planSlot(rw, t, protected, cur, win)
		}
	}
}

// pickCurrent returns the one-based index of the current record of a slot.
// Providers should hold one record per name, type and set identifier; if one
// holds several, the one owned by us (then the smallest) is used, so the
// choice does not depend on input order.
func (pl *planner) pickCurrent(head int32) int32 {
	if head == 0 || pl.curInfo[head-1].next == 0 {
		return head
	}
	best := head
	for i := pl.curInfo[head-1].next; i != 0; i = pl.curInfo[i-1].next {
		eo, bo := pl.isOwned(i), pl.isOwned(best)
		if eo && !bo || eo == bo && compareEndpointData(pl.p.Current[i-1], pl.p.Current[best-1]) < 0 {
			best = i
		}
	}
	return best
}

func actionFor(hasCur bool) Action {
	if hasCur {
		return ActionUpdate
	}
	return ActionCreate
}

// otherCandidateType returns the index of the first type other than CNAME
// with candidates at row r, or -1.
func (pl *planner) otherCandidateType(r int) int {
	for t := range pl.types {
		if t != pl.cname && pl.slot(r, t).cand != 0 {
			return t
		}
	}
	return -1
}

func (pl *planner) dropCNAMEs(other string, head int32, hasCur bool) {
	detail := "the name also gets " + other + " records, which cannot coexist with a CNAME"
	for i := head; i != 0; i = pl.desInfo[i-1].next {
		pl.skip(actionFor(hasCur), pl.p.Desired[i-1], SkipCNAMEConflict, detail)
	}
}

// resolve runs the conflict resolver on the candidates of a slot, records
// the losers and returns the winner.
func (pl *planner) resolve(cur, head int32) *endpoint.Endpoint {
	if pl.builtin && pl.desInfo[head-1].next == 0 {
		return pl.p.Desired[head-1]
	}
	var current *endpoint.Endpoint
	if cur != 0 {
		current = pl.p.Current[cur-1]
	}
	cands := pl.scratch[:0]
	for i := head; i != 0; i = pl.desInfo[i-1].next {
		cands = append(cands, pl.p.Desired[i-1])
	}
	pl.scratch = cands
	win, losers := pl.resolver.Resolve(current, cands)
	clear(cands)
	if len(losers) > 0 {
		detail := lostDetail(win)
		for _, l := range losers {
			pl.skip(actionFor(cur != 0), l, SkipLostConflict, detail)
		}
	}
	return win
}

func lostDetail(win *endpoint.Endpoint) string {
	if win == nil {
		return "the conflict resolver chose no endpoint"
	}
	if res, _ := win.Labels.Get(endpoint.ResourceLabelKey); res != "" {
		return fmt.Sprintf("%s wins with targets %s", endpoint.Printable(res), win.Targets)
	}
	return fmt.Sprintf("an endpoint with targets %s wins", win.Targets)
}

// planSlot decides the change of one record type of one row. protected
// tells that the row holds current records and an invalid desired endpoint;
// curIdx is the one-based index of the current record (0 for none), win the
// chosen desired endpoint (nil for none).
func (pl *planner) planSlot(rw *row, t int, protected bool, curIdx int32, win *endpoint.Endpoint) {
	if curIdx == 0 {
		if win == nil {
			return
		}
		switch {
		case protected:
			reason, detail := pl.held(rw)
			pl.skip(ActionCreate, win, reason, detail)
		case rw.foreign != 0:
			reason, detail := pl.foreignDetail(pl.p.Current[rw.foreign-1], "the name holds ")
			pl.skip(ActionCreate, win, reason, detail)
		case pl.blockedAt(rw.name, t) != nil:
			u := pl.blockedAt(rw.name, t)
			pl.skip(ActionCreate, win, SkipCNAMEConflict, fmt.Sprintf("the name holds a %s record of a type the plan does not manage, and a CNAME cannot share a name with another record",
				endpoint.Printable(u.RecordType)))
		default:
			pl.creates = append(pl.creates, win)
		}
		return
	}
	cur, owned := pl.p.Current[curIdx-1], pl.isOwned(curIdx)
	if win == nil {
		switch {
		case !owned:
		case protected:
			reason, detail := pl.held(rw)
			pl.skip(ActionDelete, cur, reason, detail)
		case pl.sourceFailed(cur):
			pl.skip(ActionDelete, cur, SkipSourceError, pl.sourceErrorDetail(cur))
		case pl.holdDeletes != "":
			pl.skip(ActionDelete, cur, SkipSourceError, pl.holdDeletes)
		default:
			pl.deletes = append(pl.deletes, cur)
		}
		return
	}
	// An owned record of OldOwnerID needs an update even when its data is
	// right, to be relabelled with OwnerID.
	if !needsUpdate(cur, win) && !(owned && pl.owners.Of(cur) == endpoint.OwnedByOldOwner) {
		return
	}
	switch {
	case !owned:
		reason, detail := pl.foreignDetail(cur, "")
		pl.skip(ActionUpdate, win, reason, detail)
	case protected:
		reason, detail := pl.held(rw)
		pl.skip(ActionUpdate, win, reason, detail)
	case pl.sourceFailed(cur):
		pl.skip(ActionUpdate, win, SkipSourceError, pl.sourceErrorDetail(cur))
	default:
		pl.updates = append(pl.updates, updatePair{old: cur, new: pl.updateNew(cur, win)})
	}
}

// held returns the reason and detail of a change held back because the
// desired endpoint rw.invalid is refused (see refusal).
func (pl *planner) held(rw *row) (SkipReason, string) {
	bad := pl.p.Desired[rw.invalid-1]
	reason, err := pl.refusal(bad)
	if reason == SkipUnsupported {
		return reason, "held back: a desired endpoint at this name that the provider cannot store protects its records: " + err.Error()
	}
	return SkipInvalid, "held back: an invalid desired endpoint at this name protects its records: " + err.Error()
}

// foreignDetail classifies a record that is not ours.
func (pl *planner) foreignDetail(e *endpoint.Endpoint, prefix string) (SkipReason, string) {
	what := prefix + e.RecordType + " record "
	if prefix == "" {
		what = "the record is "
	}
	if pl.owners.Of(e) == endpoint.OwnedByOther {
		owner, _ := e.Labels.Get(endpoint.OwnerLabelKey)
		return SkipForeignOwner, fmt.Sprintf("%sowned by %q, not %q", what, owner, pl.p.OwnerID)
	}
	if prefix == "" {
		return SkipUnowned, "the record has no owner"
	}
	return SkipUnowned, what + "with no owner"
}

// needsUpdate reports whether cur must be updated to match win: its record
// data differ (see [Why]), or the registry asked for an update to rewrite
// its ownership record.
func needsUpdate(cur, win *endpoint.Endpoint) bool {
	if dataReasons(cur, win) != 0 {
		return true
	}
	_, force := cur.ProviderSpecific.Get(endpoint.ProviderSpecificForceUpdate)
	return force
}

// sourceFailed reports whether cur belongs to a resource in Plan.Protected.
func (pl *planner) sourceFailed(cur *endpoint.Endpoint) bool {
	if len(pl.p.Protected) == 0 {
		return false
	}
	res, ok := cur.Labels.Get(endpoint.ResourceLabelKey)
	if !ok {
		return false
	}
	_, failed := pl.p.Protected[res]
	return failed
}

// maxNamedKeys is the number of failed keys a hold-back detail names.
const maxNamedKeys = 3

// unattributedDetail returns the detail of the deletes held back because of
// the keys of p.Protected that no owned current record carries in its
// resource label, or "" when every key is carried (or there is none).
func unattributedDetail(p *Plan) string {
	if len(p.Protected) == 0 {
		return ""
	}
	carried := make(map[string]bool, len(p.Protected))
	owners := endpoint.Owners{OwnerID: p.OwnerID, OldOwnerID: p.OldOwnerID}
	for _, cur := range p.Current {
		if cur == nil || cur.Labels.Len() == 0 {
			continue
		}
		res, ok := cur.Labels.Get(endpoint.ResourceLabelKey)
		if !ok {
			continue
		}
		if _, failed := p.Protected[res]; !failed || carried[res] {
			continue
		}
		if !owners.Of(cur).Mine() {
			continue
		}
		carried[res] = true
	}
	var loose []string
	for k := range p.Protected {
		if !carried[k] {
			loose = append(loose, k)
		}
	}
	if len(loose) == 0 {
		return ""
	}
	slices.Sort(loose)
	var b strings.Builder
	b.WriteString("held back: the source could not build the endpoints of ")
	for i, k := range loose[:min(len(loose), maxNamedKeys)] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", k)
	}
	if n := len(loose) - maxNamedKeys; n > 0 {
		fmt.Fprintf(&b, " and %d more", n)
	}
	b.WriteString(", which no record of ours carries as its resource label: any record could be one of theirs, so nothing is deleted this cycle")
	return b.String()
}

// checkOwnable removes from changes the creates Plan.Ownable refuses and
// reports each with SkipUnownable. changes is the planner's own result and
// may be modified.
func (pl *planner) checkOwnable(changes *Changes) *Changes {
	kept := changes.Create[:0:0]
	for _, e := range changes.Create {
		if e == nil {
			kept = append(kept, e)
			continue
		}
		if err := pl.p.Ownable(e); err != nil {
			pl.skip(ActionCreate, e, SkipUnownable, err.Error())
			continue
		}
		kept = append(kept, e)
	}
	if len(kept) == 0 {
		kept = nil
	}
	changes.Create = kept
	return changes
}

func (pl *planner) sourceErrorDetail(cur *endpoint.Endpoint) string {
	res, _ := cur.Labels.Get(endpoint.ResourceLabelKey)
	msg := "the source could not build the endpoints of " + res
	if err := pl.p.Protected[res]; err != nil {
		msg += ": " + err.Error()
	}
	return msg
}

// updateNew builds the new state of cur: the name, type and set identifier
// of cur; targets and provider-specific properties of win; the TTL of win
// when configured, else that of cur; the labels of cur overlaid with those
// of win, and the owner label set to OwnerID when there is one.
func (pl *planner) updateNew(cur, win *endpoint.Endpoint) *endpoint.Endpoint {
	n := &endpoint.Endpoint{
		DNSName:          cur.DNSName,
		RecordType:       cur.RecordType,
		SetIdentifier:    cur.SetIdentifier,
		Targets:          slices.Clone(win.Targets),
		RecordTTL:        cur.RecordTTL,
		ProviderSpecific: slices.Clone(win.ProviderSpecific),
	}
	if win.RecordTTL.IsConfigured() {
		n.RecordTTL = win.RecordTTL
	}
	n.Labels = cur.Labels
	for k, v := range win.Labels.All() {
		n.Labels.Set(k, v)
	}
	if pl.p.OwnerID != "" {
		n.Labels.Set(endpoint.OwnerLabelKey, pl.p.OwnerID)
	}
	return n
}

// rawChanges returns the calculated changes, sorted.
func (pl *planner) rawChanges() *Changes {
	c := &Changes{}
	if len(pl.creates) > 0 {
		slices.SortFunc(pl.creates, endpoint.Compare)
		c.Create = pl.creates
	}
	if len(pl.updates) > 0 {
		slices.SortFunc(pl.updates, func(a, b updatePair) int { return endpoint.Compare(a.old, b.old) })
		c.UpdateOld = make([]*endpoint.Endpoint, len(pl.updates))
		c.UpdateNew = make([]*endpoint.Endpoint, len(pl.updates))
		for i, u := range pl.updates {
			c.UpdateOld[i], c.UpdateNew[i] = u.old, u.new
		}
	}
	if len(pl.deletes) > 0 {
		slices.SortFunc(pl.deletes, endpoint.Compare)
		c.Delete = pl.deletes
	}
	return c
}

// applyPolicies runs the policies in order, records what they dropped and
// returns their result, sorted.
func (pl *planner) applyPolicies(raw *Changes) *Changes {
	// Policies get a copy of the lists, so that raw stays intact for the
	// comparison below even if a policy misbehaves.
	changes := raw.clone()
	for _, pol := range pl.p.Policies {
		if pol == nil {
			continue
		}
		changes = pol.Apply(changes)
		if changes == nil {
			changes = &Changes{}
		}
	}
	n := len(raw.Create) + len(raw.UpdateNew) + len(raw.Delete)
	if n > 0 {
		kept := make(map[*endpoint.Endpoint]struct{}, len(changes.Create)+len(changes.UpdateNew)+len(changes.Delete))
		for _, list := range [][]*endpoint.Endpoint{changes.Create, changes.UpdateNew, changes.Delete} {
			for _, e := range list {
				kept[e] = struct{}{}
			}
		}
		detail := "dropped by " + pl.policyNames()
		pl.policySkips(ActionCreate, raw.Create, kept, detail)
		pl.policySkips(ActionUpdate, raw.UpdateNew, kept, detail)
		pl.policySkips(ActionDelete, raw.Delete, kept, detail)
	}
	return changes.sorted()
}

func (pl *planner) policySkips(action Action, list []*endpoint.Endpoint, kept map[*endpoint.Endpoint]struct{}, detail string) {
	for _, e := range list {
		if _, ok := kept[e]; !ok {
			pl.skip(action, e, SkipPolicy, detail)
		}
	}
}

// policyNames describes the plan's policies for a skip detail: "policy x"
// or "policies x, y", each named by its String method or else its type.
func (pl *planner) policyNames() string {
	var names []string
	for _, pol := range pl.p.Policies {
		switch v := pol.(type) {
		case nil:
		case fmt.Stringer:
			names = append(names, v.String())
		default:
			names = append(names, fmt.Sprintf("%T", pol))
		}
	}
	if len(names) == 1 {
		return "policy " + names[0]
	}
	return "policies " + strings.Join(names, ", ")
}

// noteUnmanaged remembers e, Current[i], a record of an unmanaged type, by
// its name (see planner.unmanaged). Ownership records are not remembered:
// the registry writes them beside its records.
func (pl *planner) noteUnmanaged(i int, e *endpoint.Endpoint) {
	if _, ok := e.Labels.Get(endpoint.OwnedRecordLabelKey); ok {
		return
	}
	name := endpoint.CanonicalName(trimSpace(e.DNSName))
	if pl.unmanaged == nil {
		pl.unmanaged = map[string]int32{}
	}
	if _, seen := pl.unmanaged[name]; !seen {
		pl.unmanaged[name] = int32(i + 1)
	}
}

// blockedAt returns the current record of an unmanaged type that keeps a
// record of managed type t from being created at name: any such record
// keeps a CNAME out, and a CNAME keeps every other type out (RFC 1034
// §3.6.2). Nil when nothing is in the way.
func (pl *planner) blockedAt(name string, t int) *endpoint.Endpoint {
	if pl.unmanaged == nil {
		return nil
	}
	i, ok := pl.unmanaged[name]
	if !ok {
		return nil
	}
	u := pl.p.Current[i-1]
	if t == pl.cname || strings.EqualFold(u.RecordType, endpoint.RecordTypeCNAME) {
		return u
	}
	return nil
}

// isOwned reports whether the current record with one-based index i is
// ours by its verdict.
func (pl *planner) isOwned(i int32) bool {
	return pl.owned[(i-1)/64]&(1<<((i-1)%64)) != 0
}

// OwnedIn returns the counts of [Plan.Owned] with the records also counted
// per zone: zone returns the zone holding a DNS name and whether there is
// one (provider.ZoneMatcher's Zone, for instance); records outside every
// zone count in the total only. The result is what
// [SafetyThreshold.Check] needs to judge each zone on its own. It needs a
// plan returned by [Plan.Calculate]; with a nil zone it returns Owned.
func (p *Plan) OwnedIn(zone func(name string) (string, bool)) Owned {
	out := p.Owned
	if zone == nil {
		return out
	}
	out.Zone, out.PerZone = zone, map[string]int{}
	for w, word := range p.owned {
		for word != 0 {
			i := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			if i >= len(p.Current) {
				break
			}
			if z, ok := zone(p.Current[i].DNSName); ok {
				out.PerZone[z]++
			}
		}
	}
	return out
}
