package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// rkey identifies an RRset: canonical name and type.
type rkey struct{ name, typ string }

func (k rkey) String() string { return k.name + "/" + k.typ }

func keyOf(ep *endpoint.Endpoint) rkey {
	return rkey{endpoint.ToALabel(ep.DNSName), ep.RecordType}
}

// skey identifies a desired endpoint with a set identifier.
type skey struct {
	rkey
	setID string
}

func (k skey) String() string { return k.rkey.String() + "/" + k.setID }

func sortedSetKeys[V any](m map[skey]V) []skey {
	out := make([]skey, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b skey) int {
		if c := compareKeys(a.rkey, b.rkey); c != 0 {
			return c
		}
		return strings.Compare(a.setID, b.setID)
	})
	return out
}

// zoneState is the zone as read directly (without faults), by RRset.
type zoneState map[rkey]*endpoint.Endpoint

// foreignRec is a record of the second writer, as it last left it.
type foreignRec struct {
	ep     *endpoint.Endpoint
	static bool // infrastructure or filler: never changed
	// lure: created while an ownership TXT of ours stood for its key
	// (an orphan TXT left by zonesync).
	lure bool
	// pair is the other half of a record owned by another owner (the
	// record for its TXT, the TXT for its record), zero when none.
	pair rkey
	born int // cycle
	// window: created in the provider's ApplyChanges of a call that
	// creates its key, on a provider whose creates overwrite (see
	// Config.ApplyRaceRate); cleared at the end of the cycle.
	window bool
}

// ---- desired set ----

func poolName(i int) string    { return fmt.Sprintf("n%02d.%s", i, Zone) }
func foreignName(i int) string { return fmt.Sprintf("f%d.%s", i, Zone) }

func (h *Harness) desiredType(name string) string {
	for _, typ := range []string{endpoint.RecordTypeA, endpoint.RecordTypeCNAME} {
		if _, ok := h.desired[rkey{name, typ}]; ok {
			return typ
		}
	}
	return ""
}

func (h *Harness) desiredTargets(typ string) endpoint.Targets {
	r := h.rngDesired
	if typ == endpoint.RecordTypeCNAME {
		return endpoint.Targets{fmt.Sprintf("app%d.zonesync.test", r.IntN(40))}
	}
	a := fmt.Sprintf("192.0.2.%d", 1+r.IntN(60))
	if r.IntN(3) == 0 {
		if b := fmt.Sprintf("192.0.2.%d", 1+r.IntN(60)); b != a {
			return endpoint.Targets{a, b}
		}
	}
	return endpoint.Targets{a}
}

// mutateDesired changes the desired set: names created, retargeted,
// removed, and moved between A and CNAME; with Config.SetIdentifiers,
// endpoints with a set identifier come and go.
func (h *Harness) mutateDesired() {
	r := h.rngDesired
	for range 1 + r.IntN(3) {
		i := r.IntN(poolSize)
		name := poolName(i)
		typ := h.desiredType(name)
		switch {
		case typ == "" && len(h.desired) < 16:
			typ = endpoint.RecordTypeA
			if r.IntN(3) == 0 {
				typ = endpoint.RecordTypeCNAME
			}
			h.desired[rkey{name, typ}] = h.desiredTargets(typ)
			h.Logf("desired: create %s %s %v", name, typ, h.desired[rkey{name, typ}])
		case typ == "":
		case r.IntN(10) < 4:
			h.desired[rkey{name, typ}] = h.desiredTargets(typ)
			h.Logf("desired: retarget %s %s %v", name, typ, h.desired[rkey{name, typ}])
		case r.IntN(10) < 5 || len(h.desired) > 12:
			delete(h.desired, rkey{name, typ})
			h.Logf("desired: remove %s %s", name, typ)
		default:
			delete(h.desired, rkey{name, typ})
			typ = map[string]string{endpoint.RecordTypeA: endpoint.RecordTypeCNAME, endpoint.RecordTypeCNAME: endpoint.RecordTypeA}[typ]
			h.desired[rkey{name, typ}] = h.desiredTargets(typ)
			h.Logf("desired: move %s to %s %v", name, typ, h.desired[rkey{name, typ}])
		}
	}
	if h.cfg.SetIdentifiers {
		h.mutateSetIDs()
	}
	eps := make([]*endpoint.Endpoint, 0, len(h.desired)+len(h.setIDs))
	for _, k := range sortedKeys(h.desired) {
		ts := h.desired[k]
		eps = append(eps, endpoint.NewEndpoint(k.name, k.typ, ts...))
		if h.everDesired[k] == nil {
			h.everDesired[k] = map[string]bool{}
		}
		h.everDesired[k][targetsKey(ts)] = true
	}
	for _, k := range sortedSetKeys(h.setIDs) {
		eps = append(eps, endpoint.NewEndpoint(k.name, k.typ, h.setIDs[k]...).WithSetIdentifier(k.setID))
	}
	h.src.Set(eps...)
}

// setIDTargetPrefix and setIDTargetSuffix mark the data of desired
// endpoints with a set identifier, which must never reach the zone.
const (
	setIDTargetPrefix = "203.0.113."
	setIDTargetSuffix = ".setid.zonesync.test"
)

// mutateSetIDs adds or removes a desired endpoint with a set identifier,
// at a name zonesync desires now, at another pool name, or at a name only
// the writer uses, where it would write over a foreign record if it
// reached a provider that drops set identifiers.
func (h *Harness) mutateSetIDs() {
	r := h.rngSetIDs
	if r.IntN(3) != 0 {
		return
	}
	var name string
	switch y := r.IntN(10); {
	case y < 4 && len(h.desired) > 0:
		ks := sortedKeys(h.desired)
		name = ks[r.IntN(len(ks))].name
	case y < 7:
		name = poolName(r.IntN(poolSize))
	default:
		name = foreignName(r.IntN(foreignOnly))
	}
	typ := endpoint.RecordTypeA
	if r.IntN(4) == 0 {
		typ = endpoint.RecordTypeCNAME
	}
	k := skey{rkey{name, typ}, []string{"blue", "green"}[r.IntN(2)]}
	if _, ok := h.setIDs[k]; ok || len(h.setIDs) >= 6 {
		if ok {
			delete(h.setIDs, k)
			h.Logf("desired: remove %s (set identifier)", k)
		}
		return
	}
	if typ == endpoint.RecordTypeCNAME {
		h.setIDs[k] = endpoint.Targets{fmt.Sprintf("s%d%s", r.IntN(40), setIDTargetSuffix)}
	} else {
		h.setIDs[k] = endpoint.Targets{fmt.Sprintf("%s%d", setIDTargetPrefix, 1+r.IntN(250))}
	}
	h.Logf("desired: create %s %v (set identifier)", k, h.setIDs[k])
}

// ---- the second writer ----

func (h *Harness) foreignTargets(typ string) endpoint.Targets {
	h.serial++
	n := h.serial
	switch typ {
	case endpoint.RecordTypeA:
		return endpoint.Targets{fmt.Sprintf("198.51.100.%d", 1+n%250)}
	case endpoint.RecordTypeAAAA:
		return endpoint.Targets{fmt.Sprintf("2001:db8::%x", n)}
	case endpoint.RecordTypeCNAME:
		return endpoint.Targets{fmt.Sprintf("ext%d.foreign.test", n)}
	default:
		return endpoint.Targets{h.txtValue(fmt.Sprintf("foreign-%d", n))}
	}
}

// canCreate reports whether a create of k by the writer could succeed in st
// (no RRset there, no CNAME conflict).
func canCreate(st zoneState, k rkey) bool {
	if st[k] != nil {
		return false
	}
	if k.typ == endpoint.RecordTypeCNAME {
		for o := range st {
			if o.name == k.name {
				return false
			}
		}
		return true
	}
	return st[rkey{k.name, endpoint.RecordTypeCNAME}] == nil
}

// writerCreate creates k with foreign data, as a record of another owner
// (with that owner's ownership TXT, in the same call) when otherOwned. It
// reports whether the record was written.
func (h *Harness) writerCreate(ctx context.Context, st zoneState, k rkey, otherOwned bool, why string) bool {
	if !canCreate(st, k) {
		return false
	}
	ep := endpoint.NewEndpointWithTTL(k.name, k.typ, foreignTTL, h.foreignTargets(k.typ)...)
	ch := &plan.Changes{Create: []*endpoint.Endpoint{ep}}
	var txtKey rkey
	if otherOwned {
		txtKey = rkey{typedTXTName(k), endpoint.RecordTypeTXT}
		if st[txtKey] != nil {
			return false
		}
		value := fmt.Sprintf(`"heritage=external-dns,external-dns/owner=%s,external-dns/resource=service/foreign/%s"`, OtherOwner, strings.SplitN(k.name, ".", 2)[0])
		ch.Create = append(ch.Create, endpoint.NewEndpointWithTTL(txtKey.name, endpoint.RecordTypeTXT, foreignTTL, value))
	}
	lure := ourTXTFor(st, k)
	if err := h.cfg.Direct.ApplyChanges(ctx, ch); err != nil {
		h.Logf("writer (%s): create %s %v rejected: %v", why, k, ep.Targets, err)
		return false
	}
	h.ledger[k] = &foreignRec{ep: ep, lure: lure, pair: txtKey, born: h.cycle, window: h.window[k]}
	what := "create"
	if otherOwned {
		h.ledger[txtKey] = &foreignRec{ep: ch.Create[1], pair: k, born: h.cycle, window: h.window[txtKey]}
		what = "create (owner " + OtherOwner + ")"
	}
	if lure {
		what += " under an ownership TXT of ours (lure)"
	}
	if h.window[k] || h.window[txtKey] {
		what += " after the re-read, for a key zonesync's call creates (the documented window)"
	}
	h.Logf("writer (%s): %s %s %v", why, what, k, ep.Targets)
	return true
}

// ownershipNameKey is the key of the ownership TXT the registry writes for
// k: the writer takes it with an ordinary TXT (Config.OwnershipNames).
func ownershipNameKey(k rkey) rkey {
	return rkey{typedTXTName(k), endpoint.RecordTypeTXT}
}

// mutable returns the writer's records it may change, sorted: not static,
// and for a pair the record, not its TXT.
func (h *Harness) mutable() []rkey {
	var out []rkey
	for _, k := range sortedKeys(h.ledger) {
		f := h.ledger[k]
		if f.static || (f.pair != rkey{} && k.typ == endpoint.RecordTypeTXT) {
			continue
		}
		out = append(out, k)
	}
	return out
}

// writerOp does one random operation of the second writer.
func (h *Harness) writerOp(ctx context.Context, why string) {
	r := h.rngWriter
	st := h.read(ctx)
	mine := h.mutable()
	switch x := r.Float64(); {
	case len(mine) < 4 || x < 0.45:
		var name string
		switch y := r.IntN(10); {
		case y < 4 && len(h.desired) > 0: // a name zonesync desires now
			ks := sortedKeys(h.desired)
			name = ks[r.IntN(len(ks))].name
		case y < 8:
			name = poolName(r.IntN(poolSize))
		default:
			name = foreignName(r.IntN(foreignOnly))
		}
		if h.cfg.OwnershipNames && h.rngOwnerName.IntN(6) == 0 {
			// The name of the ownership TXT zonesync would write for
			// an A or CNAME record at name.
			typ := endpoint.RecordTypeA
			if h.rngOwnerName.IntN(3) == 0 {
				typ = endpoint.RecordTypeCNAME
			}
			h.writerCreate(ctx, st, ownershipNameKey(rkey{name, typ}), false, why+", at an ownership TXT name")
			return
		}
		if r.IntN(5) == 0 {
			h.writerCreate(ctx, st, rkey{name, endpoint.RecordTypeA}, true, why)
			return
		}
		types := []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT}
		typ := types[r.IntN(len(types))]
		h.writerCreate(ctx, st, rkey{name, typ}, false, why)
	case x < 0.75:
		k := mine[r.IntN(len(mine))]
		f := h.ledger[k]
		upd := f.ep.DeepCopy()
		upd.Targets = h.foreignTargets(k.typ)
		ch := &plan.Changes{UpdateOld: []*endpoint.Endpoint{f.ep}, UpdateNew: []*endpoint.Endpoint{upd}}
		if err := h.cfg.Direct.ApplyChanges(ctx, ch); err != nil {
			h.Logf("writer (%s): update %s rejected: %v", why, k, err)
			return
		}
		f.ep = upd
		h.Logf("writer (%s): update %s to %v", why, k, upd.Targets)
	default:
		k := mine[r.IntN(len(mine))]
		f := h.ledger[k]
		ch := &plan.Changes{Delete: []*endpoint.Endpoint{f.ep}}
		if f.pair != (rkey{}) {
			ch.Delete = append(ch.Delete, h.ledger[f.pair].ep)
		}
		if err := h.cfg.Direct.ApplyChanges(ctx, ch); err != nil {
			h.Logf("writer (%s): delete %s rejected: %v", why, k, err)
			return
		}
		delete(h.ledger, k)
		if f.pair != (rkey{}) {
			delete(h.ledger, f.pair)
		}
		h.Logf("writer (%s): delete %s", why, k)
	}
}

// race is the writer acting in the provider's ApplyChanges, on changes:
// mostly it creates, with its own data, a record the call is about to
// create; otherwise it does a random operation.
func (h *Harness) race(ctx context.Context, rng *rand.Rand, changes *plan.Changes) {
	var creates []rkey
	for _, ep := range changes.Create {
		if ep != nil && ep.RecordType != endpoint.RecordTypeTXT {
			creates = append(creates, keyOf(ep))
		}
	}
	if len(creates) > 0 && rng.IntN(10) < 7 {
		k := creates[rng.IntN(len(creates))]
		h.writerCreate(ctx, h.read(ctx), k, rng.IntN(4) == 0, "race")
		return
	}
	h.writerOp(ctx, "race")
}

// racePlanned is the writer acting before the registry's re-read, on the
// plan the Reconciler handed to the registry: mostly it creates, with its
// own data, a record the plan creates, as another owner's record now and
// then, or (Config.OwnershipNames) an ordinary TXT at the name of that
// record's ownership TXT; otherwise it does a random operation. A record
// written for a planned create is noted: the re-read must leave that
// create out.
func (h *Harness) racePlanned(ctx context.Context, rng *rand.Rand, why string) {
	var creates []rkey
	if h.planned != nil {
		for _, ep := range h.planned.Create {
			if ep != nil && ep.RecordType != endpoint.RecordTypeTXT {
				creates = append(creates, keyOf(ep))
			}
		}
	}
	if len(creates) == 0 || rng.IntN(10) >= 7 {
		h.writerOp(ctx, why)
		return
	}
	k := creates[rng.IntN(len(creates))]
	st := h.read(ctx)
	switch x := rng.IntN(8); {
	case x == 0 && h.cfg.OwnershipNames:
		if h.writerCreate(ctx, st, ownershipNameKey(k), false, why+", at the ownership TXT name of a planned create") {
			h.raced = append(h.raced, k)
		}
	default:
		if h.writerCreate(ctx, st, k, x < 2, why+", for a planned create") {
			h.raced = append(h.raced, k)
		}
	}
}
