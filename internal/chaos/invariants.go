package chaos

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// targetsKey is a canonical form of a target list: sorted, a trailing dot
// dropped (a provider may return "x.example." for a CNAME written as
// "x.example").
func targetsKey(ts endpoint.Targets) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = strings.TrimSuffix(t, ".")
	}
	slices.Sort(s)
	return strings.Join(s, ",")
}

// typedTXTName is the default ownership TXT name of the TXT registry.
func typedTXTName(k rkey) string {
	return strings.ToLower(k.typ) + "-" + k.name
}

// ownership is an ownership TXT record as read from the zone, parsed here
// independently of the registry's parser.
type ownership struct {
	record rkey // zero typ when the name carries no known type prefix
	owners []string
	value  string
}

// parseOwnership parses ep as an ownership TXT record (heritage
// external-dns, in the typed naming of the default configuration).
func parseOwnership(ep *endpoint.Endpoint) (ownership, bool) {
	if ep.RecordType != endpoint.RecordTypeTXT {
		return ownership{}, false
	}
	for _, t := range ep.Targets {
		v := strings.Trim(t, `"`)
		parts := strings.Split(v, ",")
		if parts[0] != "heritage=external-dns" {
			continue
		}
		o := ownership{value: v}
		for _, p := range parts[1:] {
			if owner, ok := strings.CutPrefix(p, "external-dns/owner="); ok {
				o.owners = append(o.owners, owner)
			}
		}
		name := endpoint.ToALabel(ep.DNSName)
		first, rest, _ := strings.Cut(name, ".")
		for _, typ := range []string{endpoint.RecordTypeCNAME, endpoint.RecordTypeAAAA, endpoint.RecordTypeA} {
			if label, ok := strings.CutPrefix(first, strings.ToLower(typ)+"-"); ok && label != "" {
				o.record = rkey{label + "." + rest, typ}
				break
			}
		}
		return o, true
	}
	return ownership{}, false
}

func (o ownership) ours() bool { return slices.Contains(o.owners, OwnerID) }

// ourTXTFor reports whether the zone holds an ownership TXT of ours for k.
func ourTXTFor(st zoneState, k rkey) bool {
	ep := st[rkey{typedTXTName(k), endpoint.RecordTypeTXT}]
	if ep == nil {
		return false
	}
	o, ok := parseOwnership(ep)
	return ok && o.ours()
}

// blocked reports whether a foreign record keeps zonesync from holding
// the desired RRset k: one at k itself; one of a managed type (A, AAAA,
// CNAME) at its name, since the planner creates nothing at a name holding
// a record that is not ours; any at the name of a desired CNAME, or a CNAME
// at the name of another type, since a DNS server refuses a CNAME next to
// other data; one at the name of k's ownership TXT, whose create would
// fail or replace it.
func (h *Harness) blocked(k rkey) bool {
	owner := ownershipNameKey(k)
	for o := range h.ledger {
		if o == owner {
			return true
		}
		if o.name != k.name {
			continue
		}
		switch o.typ {
		case k.typ, endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME:
			return true
		}
		if k.typ == endpoint.RecordTypeCNAME {
			return true
		}
	}
	return false
}

// handOver drops from the ledger the records the writer created in the
// window after the re-read (foreignRec.window) that zonesync's create
// replaced, as the registry documents it may: they are zonesync's from
// now on.
func (h *Harness) handOver(st zoneState) {
	for _, k := range sortedKeys(h.ledger) {
		f := h.ledger[k]
		if f == nil || !f.window {
			continue
		}
		got := st[k]
		if got == nil || targetsKey(got.Targets) == targetsKey(f.ep.Targets) && got.RecordTTL == f.ep.RecordTTL {
			continue
		}
		h.stats.Overwritten++
		h.Logf("documented window: foreign %s %v, written after the re-read, was replaced by zonesync's create with %v", k, f.ep.Targets, got.Targets)
		delete(h.ledger, k)
		if f.pair != (rkey{}) {
			delete(h.ledger, f.pair)
		}
	}
}

// safety checks invariants 1 and 3 on st, and that no data of a desired
// endpoint with a set identifier reached the zone.
func (h *Harness) safety(st zoneState) []string {
	var v []string
	h.handOver(st)
	for _, k := range sortedKeys(h.ledger) {
		f := h.ledger[k]
		got := st[k]
		switch {
		case got == nil:
			v = append(v, fmt.Sprintf("invariant 1: foreign %s %v (written at cycle %d%s) was deleted", k, f.ep.Targets, f.born, lureNote(f)))
		case targetsKey(got.Targets) != targetsKey(f.ep.Targets) || got.RecordTTL != f.ep.RecordTTL:
			v = append(v, fmt.Sprintf("invariant 1: foreign %s (written at cycle %d%s) was changed from %v TTL %d to %v TTL %d",
				k, f.born, lureNote(f), f.ep.Targets, f.ep.RecordTTL, got.Targets, got.RecordTTL))
		}
	}
	for _, k := range sortedKeys(st) {
		if h.cfg.SetIdentifiers {
			for _, t := range st[k].Targets {
				if strings.HasPrefix(t, setIDTargetPrefix) || strings.HasSuffix(strings.TrimSuffix(t, "."), setIDTargetSuffix) {
					v = append(v, fmt.Sprintf("set identifier: %s holds %v, the data of a desired endpoint with a set identifier", k, st[k].Targets))
					break
				}
			}
		}
		o, ok := parseOwnership(st[k])
		if !ok || !o.ours() {
			continue
		}
		if len(o.owners) != 1 {
			v = append(v, fmt.Sprintf("invariant 3: ownership TXT %s names owners %v: %s", k, o.owners, o.value))
		}
		if o.record.typ == "" {
			v = append(v, fmt.Sprintf("invariant 3: ownership TXT of ours %s names no record type", k))
			continue
		}
		if h.everDesired[o.record] == nil {
			v = append(v, fmt.Sprintf("invariant 3: ownership TXT of ours %s for %s, which was never desired", k, o.record))
			continue
		}
		rec := st[o.record]
		if rec == nil {
			continue // an orphan: invariant 2's business once the faults stop
		}
		if f := h.ledger[o.record]; f != nil {
			if !f.lure && !(h.cfg.NonAtomic && h.faults) {
				v = append(v, fmt.Sprintf("invariant 3: foreign %s %v (written at cycle %d, when no ownership TXT of ours stood for it) now carries our ownership TXT %s: taken over",
					o.record, f.ep.Targets, f.born, k))
			}
			continue
		}
		if !h.everDesired[o.record][targetsKey(rec.Targets)] {
			v = append(v, fmt.Sprintf("invariant 3: owned %s holds %v, never desired", o.record, rec.Targets))
		}
	}
	return v
}

func lureNote(f *foreignRec) string {
	if f.lure {
		return ", under an orphan ownership TXT of ours"
	}
	return ""
}

// converged checks invariant 2 on st: exactly the desired records, each
// with its ownership TXT, but where a foreign record blocks them; nothing
// else besides the foreign records. Desired endpoints with a set
// identifier are never written (see unsupportedSkipped).
func (h *Harness) converged(st zoneState) []string {
	var v []string
	expected := map[rkey]bool{}
	for _, k := range sortedKeys(h.desired) {
		want := h.desired[k]
		tk := rkey{typedTXTName(k), endpoint.RecordTypeTXT}
		if h.blocked(k) {
			// A CNAME next to other data that provider/inmemory let
			// zonesync create before the foreign record came is fine.
			if h.ledger[k] == nil && st[k] != nil && targetsKey(st[k].Targets) == targetsKey(want) && ourTXTFor(st, k) {
				expected[k], expected[tk] = true, true
			}
			continue
		}
		expected[k] = true
		rec := st[k]
		switch {
		case rec == nil:
			v = append(v, fmt.Sprintf("invariant 2: desired %s %v is missing", k, want))
		case targetsKey(rec.Targets) != targetsKey(want):
			v = append(v, fmt.Sprintf("invariant 2: desired %s holds %v, want %v", k, rec.Targets, want))
		}
		expected[tk] = true
		if st[tk] == nil {
			v = append(v, fmt.Sprintf("invariant 2: desired %s has no ownership TXT (%s)", k, tk.name))
		} else if o, ok := parseOwnership(st[tk]); !ok || !o.ours() || o.record != k {
			v = append(v, fmt.Sprintf("invariant 2: ownership TXT %s of desired %s is not ours: %v", tk.name, k, st[tk].Targets))
		}
	}
	for _, k := range sortedKeys(st) {
		if expected[k] || h.ledger[k] != nil {
			continue
		}
		what := "record"
		if o, ok := parseOwnership(st[k]); ok && o.ours() {
			switch {
			case st[o.record] == nil:
				what = "ownership TXT of ours without its record"
			case h.ledger[o.record] != nil:
				what = "ownership TXT of ours over a foreign record"
			default:
				what = "ownership TXT of ours for an undesired record"
			}
		} else if ourTXTFor(st, k) {
			what = "undesired owned record"
		} else if h.everDesired[k] != nil {
			what = "record zonesync wrote, without ownership TXT"
		}
		v = append(v, fmt.Sprintf("invariant 2: %s %s %v", what, k, st[k].Targets))
	}
	return v
}

// unsupportedSkipped checks, with Config.SetIdentifiers, that p skipped
// every desired endpoint with a set identifier with plan.SkipUnsupported.
func (h *Harness) unsupportedSkipped(p *plan.Plan) []string {
	if !h.cfg.SetIdentifiers || len(h.setIDs) == 0 {
		return nil
	}
	skipped := map[skey]plan.SkipReason{}
	for _, sk := range p.Skipped {
		if sk.Endpoint != nil && sk.Endpoint.SetIdentifier != "" {
			skipped[skey{keyOf(sk.Endpoint), sk.Endpoint.SetIdentifier}] = sk.Reason
		}
	}
	var v []string
	for _, k := range sortedSetKeys(h.setIDs) {
		if got, ok := skipped[k]; !ok || got != plan.SkipUnsupported {
			v = append(v, fmt.Sprintf("set identifier: desired %s is not skipped as %q by the plan (skip reason %q)", k, plan.SkipUnsupported, got))
		}
	}
	return v
}
