package txt

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
)

// Registry is the TXT ownership registry: a [registry.Registry] that keeps
// the owner of every record in a TXT record next to it, in the format of
// the external-dns TXT registry. Create one with [New]; the zero value is
// not usable. A Registry is safe for concurrent use.
type Registry struct {
	provider   provider.Provider
	ownerID    string
	oldOwnerID string
	namer      txtNamer
	key        []byte   // decrypts values read; nil: plain only
	encrypt    bool     // write values encrypted with key
	managed    []string // upper case
	aliasCNAME bool

	applyMu sync.Mutex // serialises ApplyChanges

	mu     sync.Mutex
	gen    uint64          // incremented by every ApplyChanges
	state  *zoneState      // ownership TXT records of the last read; nil: unknown
	warned map[string]bool // obsolete alias TXT names already reported

	// suspects holds, by txtKey, the ownership TXT records of ours whose
	// record this registry cannot vouch for (see suspect). The map is
	// replaced, never modified, once published. It lives as long as the
	// Registry: after a restart a TXT of ours next to a record is trusted.
	suspects map[string]*suspect
	// warnings of the last read (see SettingsWarnings).
	warnings []string
	// lastRead is the size of the last read, to size the next one.
	lastRead readSizes
	// filter is the provider's domain filter as the last read took it, for
	// CheckOwnable, which runs once per record to create: some providers
	// answer GetDomainFilter with API calls (external-dns's pdns provider
	// lists its zones). Nil until needed; every read replaces it.
	filter endpoint.DomainFilterInterface
}

// domainFilter returns the provider's domain filter, taken at most once
// between two reads.
func (r *Registry) domainFilter() endpoint.DomainFilterInterface {
	r.mu.Lock()
	f := r.filter
	r.mu.Unlock()
	if f != nil {
		return f
	}
	f = r.provider.GetDomainFilter()
	r.mu.Lock()
	r.filter = f
	r.mu.Unlock()
	return f
}

var _ registry.Registry = (*Registry)(nil)

// zoneState is what the last read saw of the ownership TXT records. It is
// immutable once published, except for the lazily built index.
type zoneState struct {
	txts []txtInfo
	// setIDs holds, by txts index, the set identifier of the TXT records
	// that have one (nearly none do: a set identifier is a routing policy
	// of some providers), so that txtInfo stays small. Nil when none has
	// one. Never modified once published.
	setIDs map[int32]string
	// inTheWay holds, by txtKey, the record type of the TXT records that
	// are not ownership records and of the CNAME records the read found: an
	// ownership TXT cannot be created at their record set (see
	// Registry.txtInTheWay). Nil when there is none. Never modified once
	// published.
	inTheWay map[string]string
	// repairs are the ownership TXT records to delete that the read found,
	// in txts order.
	repairs []repair

	// unclaimed holds, by txtKey, the labels parsed from the TXT records
	// whose labels no record took at read time (the others belong to that
	// record's caller), for ApplyChanges to tell whether a create may
	// reuse the TXT without parsing its value again. Never modified once
	// published.
	unclaimed map[string]endpoint.Labels

	// kept holds, by txts index, the labels a provider returned with an
	// ownership TXT record, for the changes that replace or delete it (see
	// keptLabels). Nil for providers that return none, as most do. Never
	// modified once published.
	kept map[int32]endpoint.Labels

	once sync.Once
	idx  map[string]int32 // txtKey(lowerName, setID) -> txts index; see index
}

// keptLabels adds to ep, which replaces or deletes the TXT at index i, the
// labels the provider returned with that TXT, except the registry's own
// keys. Some providers find a record by its labels: external-dns's coredns
// provider keeps each record's etcd key there, and without them it writes
// a new key instead of replacing the old one, and deletes nothing.
func (st *zoneState) keptLabels(i int32, ep *endpoint.Endpoint) {
	if st == nil {
		return
	}
	for k, v := range st.kept[i].All() {
		if !endpoint.IsReservedLabelKey(k) {
			ep.Labels.Set(k, v)
		}
	}
}

// txtInfo is what the registry keeps of an ownership TXT record between a
// read and the next ApplyChanges: one per TXT record, so only what
// ApplyChanges needs.
type txtInfo struct {
	name  string // TXT name as read (lower-case A-labels from a provider that keeps the contract)
	value string // first target, exactly as read (the set identifier is in zoneState.setIDs)
	// users counts the records whose ownership lookup consults this TXT
	// under a typed key: records of its type, and A ALIAS
	// records for both the "a-" and the "cname-" naming — whether or not
	// their labels came from it. A typed TXT is deleted when the last of
	// them is.
	users int32
	// mine: the value names OwnerID or OldOwnerID as the owner. The value
	// is parsed once, when it is read; ApplyChanges decides from this
	// whether a TXT left without record may be deleted.
	mine bool
}

// index returns the map from txtKey to txts, building it on first use: a
// steady-state read never needs it.
func (st *zoneState) index() map[string]int32 {
	st.once.Do(func() {
		st.idx = make(map[string]int32, len(st.txts))
		for i, t := range st.txts {
			st.idx[txtKey(t.lowerName(), st.setID(int32(i)))] = int32(i)
		}
	})
	return st.idx
}

// lowerName returns the TXT name in lower case; it allocates only when the
// name read has upper-case letters.
func (t *txtInfo) lowerName() string { return lowerASCII(t.name) }

// setID returns the set identifier of the TXT record at index i.
func (st *zoneState) setID(i int32) string {
	if st.setIDs == nil {
		return ""
	}
	return st.setIDs[i]
}

// key returns the txtKey of the TXT record at index i.
func (st *zoneState) key(i int32) string { return txtKey(st.txts[i].lowerName(), st.setID(i)) }

// repairing reports whether the TXT record set key is among the repairs
// of the read.
func (st *zoneState) repairing(key string) bool {
	for _, rp := range st.repairs {
		if rp.key == key {
			return true
		}
	}
	return false
}

func (st *zoneState) lookup(key string) (txtInfo, bool) {
	if st == nil {
		return txtInfo{}, false
	}
	i, ok := st.index()[key]
	if !ok {
		return txtInfo{}, false
	}
	return st.txts[i], true
}

// txtKey identifies a TXT record set: its lower-case name and set
// identifier.
func txtKey(lowerName, setID string) string {
	if setID == "" {
		return lowerName
	}
	return lowerName + "\x00" + setID
}

// New returns a TXT registry over p. The configuration is checked (see
// [Config]); errors wrap [ErrInvalidConfig] and name the field at fault.
func New(p provider.Provider, cfg Config) (*Registry, error) {
	if p == nil {
		return nil, fmt.Errorf("txt: %w: provider is nil", ErrInvalidConfig)
	}
	namer, key, managed, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	return &Registry{
		provider:   p,
		ownerID:    cfg.OwnerID,
		oldOwnerID: cfg.OldOwnerID,
		namer:      namer,
		key:        key,
		encrypt:    len(key) > 0 && cfg.EncryptionMode == EncryptionReadWrite,
		managed:    managed,
		aliasCNAME: cfg.AliasTXTType == AliasTXTTypeCNAME,
		warned:     map[string]bool{},
	}, nil
}

var _ registry.OwnershipReporter = (*Registry)(nil)

// OwnerID returns the configured owner id.
func (r *Registry) OwnerID() string { return r.ownerID }

// Ownership returns the ownership settings of the registry, the ones a
// Reconciler must plan with: [Config.OwnerID], [Config.OldOwnerID] and the
// managed record types — [Config.ManagedRecordTypes] (or the default A,
// AAAA, CNAME) in upper case, without [Config.ExcludeRecordTypes], never
// empty. The slice is new on every call.
func (r *Registry) Ownership() registry.Ownership {
	return registry.Ownership{
		OwnerID:            r.ownerID,
		OldOwnerID:         r.oldOwnerID,
		ManagedRecordTypes: slices.Clone(r.managed),
	}
}

// manages reports whether records of recordType are managed; the type is
// compared case-insensitively.
func (r *Registry) manages(recordType string) bool {
	for _, t := range r.managed {
		if t == recordType || strings.EqualFold(t, recordType) {
			return true
		}
	}
	return false
}

// AdjustEndpoints passes eps to the provider's AdjustEndpoints.
func (r *Registry) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return r.provider.AdjustEndpoints(ctx, eps)
}

// GetDomainFilter returns the provider's domain filter: the one the last
// Records call took, when it took one, so that a cycle asks the provider
// (for Route 53, an API call) no more often than external-dns does.
func (r *Registry) GetDomainFilter() endpoint.DomainFilterInterface {
	return r.domainFilter()
}

// isAliasA reports whether ep is an A alias record ([endpoint.Endpoint.IsAlias]:
// the alias property "true" or "A"), an AWS A ALIAS record.
func isAliasA(ep *endpoint.Endpoint) bool {
	return ep.RecordType == endpoint.RecordTypeA && ep.IsAlias()
}

// txtType is the record type whose name the ownership TXT of ep carries.
func (r *Registry) txtType(ep *endpoint.Endpoint) string {
	if r.aliasCNAME && isAliasA(ep) {
		return endpoint.RecordTypeCNAME
	}
	return ep.RecordType
}

// txtName returns the name of the ownership TXT record that the registry
// writes for ep (see txtNamer.txtName and [Config.AliasTXTType]).
func (r *Registry) txtName(ep *endpoint.Endpoint) string {
	return r.namer.txtName(endpoint.CanonicalName(ep.DNSName), r.txtType(ep))
}

// ownershipTXT returns the ownership TXT endpoint the registry writes for
// ep: named by Registry.txtName, one target holding ep's labels (plain,
// in quotes, or encrypted when values are written encrypted — see
// [Config.EncryptionMode] — reusing the nonce label), TTL 0, ep's set
// identifier and provider-specific properties (but "alias", which is not
// valid on TXT records), and the single label ownedRecord = ep.DNSName. ep is not modified. The error
// wraps [ErrTXTName] when no valid name can be built (a label longer than 63
// octets, an empty label).
func (r *Registry) ownershipTXT(ep *endpoint.Endpoint) (*endpoint.Endpoint, error) {
	name := r.txtName(ep)
	if err := ValidateTXTName(name); err != nil {
		return nil, fmt.Errorf("ownership TXT of %s: %w", ep.Key(), err)
	}
	value, err := r.value(ep, r.encrypt)
	if err != nil {
		return nil, err
	}
	return &endpoint.Endpoint{
		DNSName:          name,
		Targets:          endpoint.Targets{value},
		RecordType:       endpoint.RecordTypeTXT,
		SetIdentifier:    ep.SetIdentifier,
		Labels:           endpoint.LabelsFromMap(map[string]string{endpoint.OwnedRecordLabelKey: ep.DNSName}),
		ProviderSpecific: txtProviderSpecific(ep.ProviderSpecific),
	}, nil
}

// oldOwnershipTXT is Registry.ownershipTXT for the old side of an update
// or delete when the last read did not give the value: a record whose
// labels carry a valid nonce was read from an encrypted TXT, which is
// rebuilt encrypted with that nonce; others are rebuilt in plain text
// (whatever the mode: a fresh nonce could not match anything).
func (r *Registry) oldOwnershipTXT(ep *endpoint.Endpoint) (*endpoint.Endpoint, error) {
	txt, err := r.ownershipTXT(ep)
	if err != nil {
		return nil, err
	}
	nonce, ok := ep.Labels.Get(endpoint.TxtEncryptionNonceLabelKey)
	encrypted := len(r.key) > 0 && ok && validNonce(nonce)
	if encrypted != r.encrypt {
		v, err := r.value(ep, encrypted)
		if err != nil {
			return nil, err
		}
		txt.Targets = endpoint.Targets{v}
	}
	return txt, nil
}

// value serialises the labels of ep, encrypted or not.
func (r *Registry) value(ep *endpoint.Endpoint, encrypt bool) (string, error) {
	var value string
	if encrypt {
		labels := ep.Labels
		if nonce, ok := labels.Get(endpoint.TxtEncryptionNonceLabelKey); ok && !validNonce(nonce) {
			// A nonce that did not come from decryption (a plain value can
			// carry the label): ignore it and draw a fresh one.
			labels.Delete(endpoint.TxtEncryptionNonceLabelKey)
		}
		v, err := labels.SerializeEncrypted(r.key, true)
		if err != nil {
			return "", fmt.Errorf("ownership TXT of %s: encrypting labels: %w", ep.Key(), err)
		}
		value = v
	} else {
		value = ep.Labels.Serialize(true)
	}
	return value, nil
}

// withNonce gives ep, a record ApplyChanges sends to the provider, the
// nonce label external-dns's TXT registry gives every such record when it
// writes encrypted values: the nonce ep carries when it is valid (read with
// its encrypted TXT, or chosen by the caller), else a fresh one, which
// ownershipTXT then encrypts the TXT of ep with. Without encrypted writes
// ep is left as it is. It is called on the new side of a change before its
// TXT is built, and on the old side and on deletes after their TXT is
// rebuilt (a nonce on a record tells that its TXT was read encrypted).
func (r *Registry) withNonce(ep *endpoint.Endpoint) {
	if !r.encrypt {
		return
	}
	if n, ok := ep.Labels.Get(endpoint.TxtEncryptionNonceLabelKey); ok && validNonce(n) {
		return
	}
	var n [nonceSize]byte
	_, _ = rand.Read(n[:]) // never fails (crypto/rand, Go 1.24 and later)
	ep.Labels.Set(endpoint.TxtEncryptionNonceLabelKey, base64.StdEncoding.EncodeToString(n[:]))
}

// nonceSize is the size of an AES-GCM nonce, as external-dns draws it.
const nonceSize = 12

// validNonce reports whether s is the standard base64 encoding of a 12-byte
// AES-GCM nonce.
func validNonce(s string) bool {
	n, err := base64.StdEncoding.DecodeString(s)
	return err == nil && len(n) == nonceSize
}

// txtProviderSpecific copies the provider-specific properties of an owned
// record for its TXT, without "alias": that property is only valid on A,
// AAAA and CNAME records, and endpoint validation rejects a TXT carrying it
// (external-dns copies it anyway; the provider ignores it on TXT records).
func txtProviderSpecific(ps endpoint.ProviderSpecific) endpoint.ProviderSpecific {
	if len(ps) == 0 {
		return nil
	}
	out := make(endpoint.ProviderSpecific, 0, len(ps))
	for _, p := range ps {
		if p.Name != endpoint.ProviderSpecificAlias {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Records returns the provider's records with the labels of their
// ownership TXT records attached; see the package documentation for the
// rules. Ownership TXT records are consumed; other TXT records are returned
// like any record. The result is sorted by (DNSName, SetIdentifier,
// RecordType) and belongs to the caller: the slice and the endpoints,
// labels included, are the caller's to modify (records owned through one TXT
// share its labels, which endpoint.Labels never writes in place).
func (r *Registry) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	log := logr.FromContextOrDiscard(ctx)
	r.mu.Lock()
	gen := r.gen
	sus := r.suspects
	hint := r.lastRead
	r.mu.Unlock()

	rd, err := r.read(ctx, log, hint)
	if err != nil {
		return nil, fmt.Errorf("txt registry: reading records: %w", err)
	}
	out, st, res := r.attach(log, rd, sus)

	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastRead = rd.sizes
	r.filter = rd.filter // nil when the read did not need it: taken on first use
	r.warnings = res.warnings
	if r.gen == gen {
		// No ApplyChanges ran meanwhile: this read describes the zone.
		r.state = st
		r.suspects = res.suspects
	}
	return out, nil
}

// parsedTXT is an ownership TXT record found by attach.
type parsedTXT struct {
	// labels parsed from the value, given to every record owned through
	// the TXT (Labels is a value: a Set on one record changes no other).
	labels endpoint.Labels
	// canonical: the TXT name is exactly the typed name the registry
	// writes for the record it owns (or the one external-dns writes for a
	// name whose first label is Unicode, see txtNamer.parseTXTName), so
	// finding a record through it proves that the record's typed TXT
	// exists.
	canonical bool
	// mine: the owner is OwnerID or OldOwnerID.
	mine bool
	// taken: a record took the labels (is owned through the TXT).
	taken bool
}

// readResult is what attach found besides the records and the zone state.
type readResult struct {
	suspects map[string]*suspect // the registry's suspects after this read
	warnings []string            // see SettingsWarnings
}

// attach attaches the labels of the ownership TXT records that read found
// to the other records, which it returns.
//
// sus are the registry's suspects: a record found through a TXT of ours
// that is among them is ours only when it holds targets this registry tried
// to write; otherwise it gets no labels from the TXT, which becomes a
// repair. TXT records of ours without record become repairs (and
// suspects) too.
func (r *Registry) attach(log logr.Logger, rd *reading, sus map[string]*suspect) ([]*endpoint.Endpoint, *zoneState, readResult) {
	st, parsed, out := rd.st, rd.parsed, rd.out
	owners := r.owners()
	for _, rec := range out {
		i, typed, ok := r.findOwner(log, rd.owners, st.txts, rec)
		if ok && len(sus) > 0 && parsed[i].mine {
			ok = rd.vouch(log, sus, i, rec)
		}
		if ok {
			parsed[i].giveLabels(rec)
		} else if _, claimed := rec.Labels.Get(endpoint.OwnerLabelKey); claimed {
			// Ownership comes from an ownership TXT and from nothing else:
			// an owner label a provider returned (external-dns's coredns
			// provider stores one with each record) claims nothing.
			rec.Labels.Delete(endpoint.OwnerLabelKey)
		}
		// The verdict, decided once here by the one rule and carried with
		// the record: a record of OldOwnerID keeps its owner label and is
		// ours under the old owner id, which the planner relabels.
		v := owners.Verdict(rec)
		rec.SetOwnership(v)
		if v.Mine() && len(st.txts) > 0 && r.manages(rec.RecordType) {
			r.forceRewrite(log, rd, rec, ok && typed && parsed[i].canonical)
		}
		if ok {
			rd.check.owned(rec)
		}
	}
	st.unclaimed = unclaimedLabels(st, parsed)
	res := readResult{warnings: rd.check.warnings(r)}
	st.repairs, res.suspects = r.findRepairs(log, out, st, parsed, rd.alts, rd.filter, sus, rd.foreign, rd.confirmed)
	if log := log.V(1); log.Enabled() { // boxing the counts allocates
		log.Info("read records", "records", len(out), "ownershipTXT", len(st.txts), "repairs", len(st.repairs))
	}
	return out, st, res
}

// reading is the work of one attach: what read found, and what the
// pass over the records adds.
type reading struct {
	out    []*endpoint.Endpoint // the records, ownership TXT records left out
	nTXT   int                  // TXT records read, ownership or not
	sizes  readSizes            // of this read: sizes the next one
	copier recordCopier         // copies the records a RecordVisitor shows; only during read
	st     *zoneState
	parsed []parsedTXT // in st.txts order
	owners *ownerIndex
	filter endpoint.DomainFilterInterface // the provider's; nil without TXT records
	check  settingsCheck
	buf    []byte

	foreign   []int32  // TXT records lending ownership to a foreign record
	confirmed []string // suspects whose record proved ours
	ambiguous []int32  // TXT records whose names read as owning several records
	// alts holds, for those (by st.txts index), their readings (see
	// txtNamer.readings); nil while there is none, as nearly always.
	alts map[int32][]txtReading
}

// readSizes is the size of a read: how many records it returned, how
// many targets and provider-specific properties they hold, and how many
// ownership TXT records it found.
type readSizes struct {
	records, targets, props, txts int
}

func newReading(nTXT int) *reading {
	return &reading{
		st:     &zoneState{txts: make([]txtInfo, 0, nTXT)},
		parsed: make([]parsedTXT, 0, nTXT),
		owners: newOwnerIndex(nTXT),
	}
}

// read reads the provider's records and parses every TXT record once:
// ownership TXT records go into the zone state (with whether they are
// ours) and the owner index, everything else into rd.out, sorted.
//
// A provider that implements [provider.RecordVisitor] is read through it:
// ownership TXT records are parsed from the provider's view and never
// copied, every other record is copied (see recordCopier). The capability
// is asked for by a type assertion on r.provider, never through
// provider.As: a wrapper is read through its Records. hint, the size of the
// previous read, sizes the tables of this one.
func (r *Registry) read(ctx context.Context, log logr.Logger, hint readSizes) (*reading, error) {
	var rd *reading
	var err error
	if v, ok := r.provider.(provider.RecordVisitor); ok {
		rd, err = r.visit(ctx, log, v, hint)
	} else {
		rd, err = r.list(ctx, log)
	}
	if err != nil {
		return nil, err
	}
	if rd.nTXT > 0 {
		rd.filter = r.provider.GetDomainFilter()
	}
	if !slices.IsSortedFunc(rd.out, endpoint.Compare) {
		slices.SortStableFunc(rd.out, endpoint.Compare)
	}
	r.resolveAmbiguous(rd)
	rd.owners.finish(rd.st)
	rd.sizes = readSizes{records: len(rd.out), txts: len(rd.st.txts)}
	for _, rec := range rd.out {
		rd.sizes.targets += len(rec.Targets)
		rd.sizes.props += len(rec.ProviderSpecific)
	}
	return rd, nil
}

// list reads the records with the provider's Records.
func (r *Registry) list(ctx context.Context, log logr.Logger) (*reading, error) {
	recs, err := r.provider.Records(ctx)
	if err != nil {
		return nil, err
	}
	nTXT := 0
	for _, rec := range recs {
		if rec != nil && rec.RecordType == endpoint.RecordTypeTXT {
			nTXT++
		}
	}
	rd := newReading(nTXT)
	rd.out = recs[:0] // the provider gave us recs: reuse their backing array
	for _, rec := range recs {
		if rec != nil && r.take(log, rd, rec) {
			rd.out = append(rd.out, rec)
		}
	}
	// Records hidden above are dropped from the shared backing array.
	clear(recs[len(rd.out):])
	return rd, nil
}

// visit reads the records through v, copying only those it returns. hint
// sizes the tables; without one (the registry's first read), the records
// are walked once more beforehand to count them, since tables grown by
// doubling would leave garbage as large as themselves.
func (r *Registry) visit(ctx context.Context, log logr.Logger, v provider.RecordVisitor, hint readSizes) (*reading, error) {
	if hint == (readSizes{}) {
		var err error
		if hint, err = countRecords(ctx, v); err != nil {
			return nil, err
		}
	}
	rd := newReading(hint.txts)
	rd.out = make([]*endpoint.Endpoint, 0, hint.records)
	rd.copier = newRecordCopier(hint)
	err := v.VisitRecords(ctx, func(ep *endpoint.Endpoint) error {
		if r.take(log, rd, ep) {
			rd.out = append(rd.out, rd.copier.copy(ep))
		}
		return nil
	})
	rd.copier = recordCopier{}
	return rd, err
}

// countRecords estimates the size of a read through v: every TXT record
// counts as an ownership TXT record, every other record as a record
// returned.
func countRecords(ctx context.Context, v provider.RecordVisitor) (readSizes, error) {
	var n readSizes
	err := v.VisitRecords(ctx, func(ep *endpoint.Endpoint) error {
		if ep.RecordType == endpoint.RecordTypeTXT {
			n.txts++
			return nil
		}
		n.records++
		n.targets += len(ep.Targets)
		n.props += len(ep.ProviderSpecific)
		return nil
	})
	return n, err
}

// take reads rec: an ownership TXT record goes into rd (its strings are
// kept, nothing else of rec), and take reports whether rec is a record to
// return: any other record, but a TXT record without targets, which is
// skipped.
func (r *Registry) take(log logr.Logger, rd *reading, rec *endpoint.Endpoint) bool {
	if rec.RecordType != endpoint.RecordTypeTXT {
		if rec.RecordType == endpoint.RecordTypeCNAME {
			rd.inTheWay(rec)
		}
		return true
	}
	rd.nTXT++
	if len(rec.Targets) == 0 {
		log.Error(nil, "skipping TXT record without targets", "record", rec.Key().String())
		return false
	}
	labels, err := endpoint.ParseLabelsWithKey(rec.Targets[0], r.key)
	if err != nil {
		// Not an ownership record: an ordinary TXT record.
		rd.inTheWay(rec)
		return true
	}
	r.addTXT(log, rd, rec, labels)
	return false
}

// inTheWay records rec, an ordinary TXT record or a CNAME record, as a
// record set where no ownership TXT can be created.
func (rd *reading) inTheWay(rec *endpoint.Endpoint) {
	if rd.st.inTheWay == nil {
		rd.st.inTheWay = map[string]string{}
	}
	rd.st.inTheWay[txtKey(lowerASCII(rec.DNSName), rec.SetIdentifier)] = rec.RecordType
}

// addTXT records the ownership TXT rec, whose value gave labels, in the
// zone state and, when its name reads under the configured naming, in the
// owner index.
func (r *Registry) addTXT(log logr.Logger, rd *reading, rec *endpoint.Endpoint, labels endpoint.Labels) {
	lower := lowerASCII(rec.DNSName)
	i := int32(len(rd.st.txts))
	// The one rule, applied to the labels the TXT would give a record.
	mine := r.owners().Verdict(&endpoint.Endpoint{Labels: labels}).Mine()
	rd.st.txts = append(rd.st.txts, txtInfo{name: rec.DNSName, value: rec.Targets[0], mine: mine})
	if rec.SetIdentifier != "" {
		if rd.st.setIDs == nil {
			rd.st.setIDs = map[int32]string{}
		}
		rd.st.setIDs[i] = rec.SetIdentifier
	}
	if rec.Labels.Len() > 0 {
		if rd.st.kept == nil {
			rd.st.kept = make(map[int32]endpoint.Labels)
		}
		rd.st.kept[i] = rec.Labels
	}
	rd.parsed = append(rd.parsed, parsedTXT{labels: labels, mine: mine})
	name, rtype, ok := r.namer.parseTXTName(lower)
	if !ok {
		log.V(1).Info("ownership TXT record does not match the configured prefix/suffix", "record", rec.Key().String())
		if mine {
			rd.check.unparsedTXT(rec.DNSName)
		}
		return
	}
	if rtype != "" {
		rd.buf = r.namer.appendTXTName(rd.buf[:0], name, rtype, true)
		canonical := string(rd.buf) == lower
		if !canonical {
			// external-dns's name for a record with a Unicode first
			// label counts as written: it reads it back itself.
			alt, ok := r.namer.unicodeTXTName(name, rtype)
			canonical = ok && alt == lower
		}
		rd.parsed[i].canonical = canonical
		if alts := r.namer.readings(lower); alts != nil {
			// Read as owning two records: which one is decided once every
			// record is read (resolveAmbiguous).
			if rd.alts == nil {
				rd.alts = map[int32][]txtReading{}
			}
			rd.alts[i] = alts
			rd.ambiguous = append(rd.ambiguous, i)
			return
		}
	}
	rd.owners.add(name, rtype, i)
}

// resolveAmbiguous indexes the ownership TXT records whose names read as
// owning more than one record (see txtNamer.readings). A bare
// "%{record_type}" prefix names the TXT of "foo"/AAAA and that of
// "aaafoo"/A alike, "aaaafoo"; external-dns reads it as the latter. Such a
// TXT owns the record of the one reading whose record exists — keeping it
// under that reading is what stops the orphan repair from deleting the TXT
// of a record this registry created — or, when none exists, stands under
// external-dns's reading (and is an orphan). When the records of several
// readings exist, nothing in the zone tells which one the TXT was written
// for: it owns none of them (each stays as it is, never updated or
// deleted), is not repaired, and SettingsWarnings says why.
func (r *Registry) resolveAmbiguous(rd *reading) {
	if len(rd.ambiguous) == 0 {
		return
	}
	set := r.newRecordSet(rd.out)
	for _, i := range rd.ambiguous {
		p := &rd.parsed[i]
		setID := rd.st.setID(i)
		found := -1
		n := 0
		alts := rd.alts[i]
		for k, alt := range alts {
			if set.keys[r.lookupName(alt.name)+"\x00"+alt.recordType+"\x00"+setID] {
				found = k
				n++
			}
		}
		switch {
		case n == 0:
			rd.owners.add(alts[0].name, alts[0].recordType, i)
		case n == 1:
			rd.owners.add(alts[found].name, alts[found].recordType, i)
		default:
			if p.mine {
				rd.check.ambiguousTXT(rd.st.txts[i].name)
			}
		}
	}
}

// vouch decides whether rec, found through TXT i of ours, is ours when that
// TXT is a suspect: only when rec holds targets this registry tried to
// write. Otherwise rec came from elsewhere: it stays unowned, and the TXT
// is remembered as lending ownership to a foreign record (a repair).
func (rd *reading) vouch(log logr.Logger, sus map[string]*suspect, i int32, rec *endpoint.Endpoint) bool {
	t := &rd.st.txts[i]
	key := rd.st.key(i)
	s := sus[key]
	if s == nil {
		return true
	}
	if s.holds(rec.Targets) {
		// Our create (or update) went through after all.
		rd.confirmed = append(rd.confirmed, key)
		return true
	}
	if !slices.Contains(rd.foreign, i) {
		rd.foreign = append(rd.foreign, i)
	}
	log.Info("record at the name of an ownership TXT of ours was not created by this registry: left alone, the TXT will be deleted",
		"record", rec.Key().String(), "txt", t.name, "targets", rec.Targets.String())
	return false
}

// giveLabels attaches the labels of the TXT to rec. The registry's own keys
// (owner, resource: endpoint.IsReservedLabelKey) come from the TXT; any
// other label rec already has is the provider's and is kept: the TXT's copy
// of it dates from the record's last write and may be stale (external-dns's
// coredns provider keeps each target's etcd key in a label, and its TXT
// registry serialises every label). Every record owned through the TXT
// shares its labels: Labels is a value whose Set and Delete never write into
// an array another value holds, so relabelling one record changes no other.
func (p *parsedTXT) giveLabels(rec *endpoint.Endpoint) {
	p.taken = true
	if rec.Labels.Len() == 0 {
		rec.Labels = p.labels
		return
	}
	own := rec.Labels
	rec.Labels = p.labels
	for k, v := range own.All() {
		if !endpoint.IsReservedLabelKey(k) {
			rec.Labels.Set(k, v)
		}
	}
}

// forceRewrite handles the format upgrade of rec, a record of a managed
// type that is ours: when its typed TXT is missing (hasTyped false and no
// TXT under its typed key), it gets txt/force-update, so that the planner
// emits an update and ApplyChanges writes the typed TXT — unless that TXT
// cannot be written, which would be asked for at every cycle in vain and
// is logged instead. (A record of the old owner id of a migration needs
// nothing here: its verdict, endpoint.OwnedByOldOwner, makes the planner
// relabel it, which rewrites its TXT.)
func (r *Registry) forceRewrite(log logr.Logger, rd *reading, rec *endpoint.Endpoint, hasTyped bool) {
	if hasTyped {
		return
	}
	rd.buf = r.appendTXTKey(rd.buf[:0], rec)
	if _, seen := rd.st.index()[string(rd.buf)]; seen {
		return
	}
	if err := r.usableTXTName(rd.filter, rec, r.txtName(rec)); err != nil {
		log.Info("cannot write the typed ownership TXT of a record", "record", rec.Key().String(), "reason", err.Error())
		return
	}
	rec.ProviderSpecific = append(slices.Clip(rec.ProviderSpecific),
		endpoint.ProviderSpecificProperty{Name: endpoint.ProviderSpecificForceUpdate, Value: "true"})
	log.V(1).Info("forcing an update to write the typed ownership TXT", "record", rec.Key().String())
}

// unclaimedLabels returns, by txtKey, the labels of the TXT records no
// record took (nobody else holds them), or nil when there are none.
func unclaimedLabels(st *zoneState, parsed []parsedTXT) map[string]endpoint.Labels {
	var out map[string]endpoint.Labels
	for i := range parsed {
		if parsed[i].taken {
			continue
		}
		if out == nil {
			out = map[string]endpoint.Labels{}
		}
		out[st.key(int32(i))] = parsed[i].labels
	}
	return out
}

// findRepairs lists the ownership TXT records of ours to delete — those
// lending ownership to a foreign record, and orphans: typed TXT records of
// a managed type, named exactly as written, owning a name inside the
// domain filter, whose record is missing — and returns the registry's
// suspects after this read: those whose TXT is still there and whose record
// did not prove ours, and the orphans.
func (r *Registry) findRepairs(log logr.Logger, out []*endpoint.Endpoint, st *zoneState, parsed []parsedTXT,
	alts map[int32][]txtReading, filter endpoint.DomainFilterInterface, sus map[string]*suspect, foreign []int32, confirmed []string,
) ([]repair, map[string]*suspect) {
	var repairs []repair
	var next map[string]*suspect
	if len(sus) > 0 {
		idx := st.index()
		for key, s := range sus {
			if _, present := idx[key]; present && !slices.Contains(confirmed, key) {
				if next == nil {
					next = map[string]*suspect{}
				}
				next[key] = s
			}
		}
	}
	var set *recordSet
	for i := range st.txts {
		t := &st.txts[i]
		p := &parsed[i]
		if !p.mine {
			continue
		}
		lends := len(foreign) > 0 && slices.Contains(foreign, int32(i))
		if !lends && (t.users != 0 || !p.canonical) {
			continue // the common case, decided without parsing the name
		}
		lower := t.lowerName()
		owned, rtype, _ := r.namer.parseTXTName(lower)
		setID := st.setID(int32(i))
		key := txtKey(lower, setID)
		if lends {
			repairs = append(repairs, repair{key: key, owned: owned, foreign: true})
			continue
		}
		if rtype == "" || !r.manages(rtype) {
			continue
		}
		if filter != nil && !filter.Match(owned) {
			continue
		}
		if set == nil {
			set = r.newRecordSet(out)
		}
		if !set.orphan(owned, rtype, setID, lower) {
			continue
		}
		if slices.ContainsFunc(alts[int32(i)], func(alt txtReading) bool {
			return r.manages(alt.recordType) && !set.orphan(alt.name, alt.recordType, setID, lower)
		}) {
			continue // another reading's record exists: the TXT is its
		}
		repairs = append(repairs, repair{key: key, owned: owned})
		log.V(1).Info("ownership TXT of ours without its record", "txt", t.name, "record", owned, "type", rtype)
		if next == nil {
			next = map[string]*suspect{}
		}
		if s := next[key]; s == nil {
			next[key] = &suspect{orphan: true}
		} else if !s.orphan {
			next[key] = &suspect{orphan: true, targets: s.targets}
		}
	}
	return repairs, next
}

// appendTXTKey appends the txtKey of rec's typed ownership TXT to dst.
func (r *Registry) appendTXTKey(dst []byte, rec *endpoint.Endpoint) []byte {
	start := len(dst)
	dst = r.namer.appendTXTName(dst, rec.DNSName, r.txtType(rec), true)
	for i := start; i < len(dst); i++ {
		if c := dst[i]; c >= 'A' && c <= 'Z' {
			dst[i] = c + 'a' - 'A'
		}
	}
	if rec.SetIdentifier != "" {
		dst = append(dst, 0)
		dst = append(dst, rec.SetIdentifier...)
	}
	return dst
}

// findOwner looks up the ownership TXT of rec: typed key; for A ALIAS
// records the other alias naming; then (not for AAAA) the legacy untyped
// key. typed reports that the TXT was found under the type the registry
// writes for rec. It counts rec as a user of every TXT found under a typed
// key (see txtInfo.users).
func (r *Registry) findOwner(log logr.Logger, owners *ownerIndex, txts []txtInfo, rec *endpoint.Endpoint) (i int32, typed, ok bool) {
	if len(owners.entries) == 0 {
		return 0, false, false
	}
	name := lowerASCII(rec.DNSName)
	if r.namer.wildcard != "" && (name == "*" || strings.HasPrefix(name, "*.")) {
		name = r.namer.wildcard + name[1:]
	}
	q := owners.query(name, rec.SetIdentifier, name == rec.DNSName)
	if q.empty() {
		return 0, false, false
	}
	if isAliasA(rec) {
		first, second := endpoint.RecordTypeA, endpoint.RecordTypeCNAME
		if r.aliasCNAME {
			first, second = second, first
		}
		i, ok := q.find(first)
		j, okOther := q.find(second)
		if ok {
			txts[i].users++
		}
		if okOther {
			txts[j].users++
			if !r.aliasCNAME {
				r.warnObsoleteAlias(log, rec)
			}
		}
		if ok {
			return i, true, true
		}
		if okOther {
			return j, false, true
		}
	} else if i, ok := q.find(rec.RecordType); ok {
		txts[i].users++
		return i, true, true
	}
	if rec.RecordType == endpoint.RecordTypeAAAA {
		return 0, false, false
	}
	i, ok = q.find("")
	return i, false, ok
}

func (r *Registry) warnObsoleteAlias(log logr.Logger, rec *endpoint.Endpoint) {
	legacy := r.namer.txtName(rec.DNSName, endpoint.RecordTypeCNAME)
	r.mu.Lock()
	done := r.warned[legacy]
	r.warned[legacy] = true
	r.mu.Unlock()
	if !done {
		log.Info("obsolete ownership TXT record of an A ALIAS record can be removed",
			"txt", legacy, "record", rec.Key().String(), "current", r.namer.txtName(rec.DNSName, endpoint.RecordTypeA))
	}
}

// lowerASCII lower-cases ASCII letters; it does not allocate when s has
// none.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}
