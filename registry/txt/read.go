package txt

import (
	"context"
	"fmt"
	"slices"

	"github.com/go-logr/logr"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider"
)

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
	var sst *sharedState
	if r.shared != nil {
		r.mu.Lock()
		ssus := r.sharedSuspects
		r.mu.Unlock()
		out, sst = r.shareView(log, rd, out, ssus)
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastRead = rd.sizes
	r.filter = rd.filter // nil when the read did not need it: taken on first use
	r.warnings = res.warnings
	if r.gen == gen {
		// No ApplyChanges ran meanwhile: this read describes the zone.
		r.state = st
		r.suspects = res.suspects
		r.sharedSt = sst
		if sst != nil {
			r.sharedSuspects = sst.suspects()
		}
	}
	return out, nil
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
	// contribs are the contributions to shared record sets (shared mode
	// only); see Registry.shareView.
	contribs []rawContribution
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
	if r.shared != nil && isContribution(labels) {
		// A contribution to a shared record set (see shareView): its own
		// record set, owning nothing the usual way.
		rd.contribs = append(rd.contribs, rawContribution{txt: &endpoint.Endpoint{
			DNSName: rec.DNSName, Targets: endpoint.Targets{rec.Targets[0]}, RecordType: endpoint.RecordTypeTXT,
			SetIdentifier: rec.SetIdentifier, Labels: providerLabels(rec.Labels),
		}, labels: labels})
		return false
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
