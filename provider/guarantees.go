package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// Guarantees is what a provider promises about the records it stores,
// beyond the [Provider] contract. A provider declares them by implementing
// [GuaranteeDeclarer]; callers read them with [GuaranteesOf], which walks
// wrappers like [As] does. Every field's zero value is the safe
// assumption, so a provider that declares nothing is treated with the most
// care: its creates are assumed to overwrite, its set identifiers to be
// dropped.
//
// The core enforces them, not each provider: a Reconciler never sends an
// endpoint that [Guarantees.Check] refuses (the plan skips it with
// plan.SkipUnsupported and holds the records at its name), and the
// registries re-read the records a create would replace just before
// applying when creates may overwrite ([RecheckCreates]). Whether a
// provider lists its zones is declared by implementing [ZoneLister].
type Guarantees struct {
	// CreateFailsIfExists: creating a record set (name, type, set
	// identifier) that exists fails and changes nothing. False: a create
	// may replace an existing record set (an upsert, as external-dns's
	// pdns and Route 53 providers do), so a record that appeared between
	// a read and a create would be overwritten.
	CreateFailsIfExists bool
	// KeepsSetIdentifiers: record sets that differ only in their set
	// identifier are stored apart and read back with it. False: the set
	// identifier may be dropped, so a record set with one would be written
	// over the record set of the same name and type without one (which may
	// be somebody else's); endpoints with a set identifier are never sent.
	KeepsSetIdentifiers bool
	// RecordTypes lists the record types the provider stores, in upper
	// case. Nil: not declared, every type is sent and the provider
	// refuses what it cannot store.
	RecordTypes []string
	// ProviderSpecific lists the provider-specific properties the provider
	// keeps: a property name, or a prefix ending in "/" that covers every
	// name it starts ("aws/"). Nil: not declared, every property is sent.
	// Properties a registry sets for itself
	// ([endpoint.ProviderSpecificForceUpdate]) are never checked.
	ProviderSpecific []string
}

// GuaranteeDeclarer is the optional capability of a provider that declares
// its [Guarantees]. Wrappers pass it through ([As]); registries, which
// hold their provider without unwrapping to it, implement it by returning
// [GuaranteesOf] their provider.
type GuaranteeDeclarer interface {
	// Guarantees returns what the provider guarantees. The slices are new
	// on every call.
	Guarantees() Guarantees
}

// GuaranteesOf returns the guarantees p declares ([GuaranteeDeclarer],
// found with [As] through any wrappers), or the zero Guarantees, the safe
// assumptions, when it declares none.
func GuaranteesOf(p Provider) Guarantees {
	if d, ok := As[GuaranteeDeclarer](p); ok {
		return d.Guarantees()
	}
	return Guarantees{}
}

// ZoneGuaranteeDeclarer is the optional capability of a provider whose
// guarantees differ from one zone to another: a router over several DNS
// services (provider/router), say, whose Route 53 zones keep set
// identifiers while its BIND zones do not. Its plain Guarantees (when it
// also is a [GuaranteeDeclarer]) are then the weakest combination, true of
// every zone, and ZoneGuarantees says what holds in each.
//
// ZoneGuarantees returns the guarantees of each zone it knows, keyed by
// zone name in the form of [ZoneMatcher]'s zones (lower-case A-labels
// without a trailing dot, "." for the root). A record belongs to its most
// specific zone, as for [ZoneMatcher]; a name in none of the keys has the
// provider's plain guarantees ([GuaranteesOf]). It does no I/O: a provider
// that learns its zones by listing them answers from its last listing. The
// map and its slices are new on every call; nil means the guarantees are
// the same everywhere.
//
// Wrappers pass it through ([As]); registries, which hold their provider
// without unwrapping to it, implement it by returning [ZoneGuaranteesOf]
// their provider. Callers never read it directly: they ask
// [GuaranteesByName] (or [GuaranteesFor]), which falls back to the plain
// guarantees.
type ZoneGuaranteeDeclarer interface {
	ZoneGuarantees() map[string]Guarantees
}

// ZoneGuaranteesOf returns what p declares zone by zone
// ([ZoneGuaranteeDeclarer], found with [As] through any wrappers), or nil
// when it declares nothing per zone.
func ZoneGuaranteesOf(p Provider) map[string]Guarantees {
	if d, ok := As[ZoneGuaranteeDeclarer](p); ok {
		return d.ZoneGuarantees()
	}
	return nil
}

// NameGuarantees is what a provider guarantees for each record name: its
// per-zone guarantees ([ZoneGuaranteeDeclarer]) where it declares them and
// its plain ones ([GuaranteesOf]) elsewhere, read once by
// [GuaranteesByName] so that asking about many names costs one map lookup
// per label of each and no allocation. The zero value gives the zero
// Guarantees, the safe assumptions, for every name. It is immutable and
// safe for concurrent use.
type NameGuarantees struct {
	plain   Guarantees
	zones   map[string]Guarantees
	matcher *ZoneMatcher
}

// GuaranteesByName reads p's guarantees, per zone where p declares them,
// for the names of the records a caller is about to check or send. It is
// the one way the core asks what a provider guarantees for a record: the
// Reconciler checks every desired endpoint with its Check, and
// [RecheckCreates] re-reads only for the creates whose zone may overwrite.
// Over a provider with the same guarantees everywhere it is [GuaranteesOf].
func GuaranteesByName(p Provider) NameGuarantees {
	g := NameGuarantees{plain: GuaranteesOf(p)}
	if zones := ZoneGuaranteesOf(p); len(zones) > 0 {
		names := make([]string, 0, len(zones))
		g.zones = make(map[string]Guarantees, len(zones))
		for z, zg := range zones {
			n := canonicalName(strings.TrimSpace(z))
			if n == "" {
				n = "."
			}
			names = append(names, n)
			g.zones[n] = zg
		}
		g.matcher = NewZoneMatcher(names...)
	}
	return g
}

// For returns the guarantees that hold for a record called name: those of
// its most specific zone with declared guarantees, else the plain ones.
// The slices are shared with g: do not modify them ([Guarantees.Clone]
// gives a copy).
func (g NameGuarantees) For(name string) Guarantees {
	if g.matcher != nil {
		if z, ok := g.matcher.Zone(name); ok {
			return g.zones[z]
		}
	}
	return g.plain
}

// Check is [Guarantees.Check] with the guarantees that hold for ep's name
// ([NameGuarantees.For]).
func (g NameGuarantees) Check(ep *endpoint.Endpoint) error {
	if ep == nil {
		return g.plain.Check(ep)
	}
	return g.For(ep.DNSName).Check(ep)
}

// GuaranteesFor returns what p guarantees for a record called name:
// [GuaranteesByName] for one name. The slices are new.
func GuaranteesFor(p Provider, name string) Guarantees {
	return GuaranteesByName(p).For(name).Clone()
}

// ErrUnsupported is wrapped by the error of [Guarantees.Check]: the
// provider does not guarantee to store the endpoint as asked.
var ErrUnsupported = errors.New("not supported by the provider")

// Check returns nil when the provider can store ep as asked, and otherwise
// an error wrapping [ErrUnsupported] that names the endpoint and what the
// provider does not guarantee: a set identifier without
// KeepsSetIdentifiers, a record type outside a declared RecordTypes, a
// provider-specific property outside a declared ProviderSpecific. It is
// the one rule of what the core refuses to send to a provider; a
// Reconciler asks it about every desired endpoint.
func (g Guarantees) Check(ep *endpoint.Endpoint) error {
	if ep == nil {
		return fmt.Errorf("%w: nil endpoint", ErrUnsupported)
	}
	var errs []error
	if ep.SetIdentifier != "" && !g.KeepsSetIdentifiers {
		errs = append(errs, fmt.Errorf("set identifier %q: the provider does not keep set identifiers, and the record would be written over "+
			"the record set of the same name and type without one, which may be somebody else's", endpoint.Printable(ep.SetIdentifier)))
	}
	if g.RecordTypes != nil && !slices.ContainsFunc(g.RecordTypes, func(t string) bool { return strings.EqualFold(t, ep.RecordType) }) {
		errs = append(errs, fmt.Errorf("record type %q: the provider stores only %s", ep.RecordType, strings.Join(g.RecordTypes, ", ")))
	}
	if g.ProviderSpecific != nil {
		for _, p := range ep.ProviderSpecific {
			if p.Name == endpoint.ProviderSpecificForceUpdate || g.keepsProperty(p.Name) {
				continue
			}
			errs = append(errs, fmt.Errorf("provider-specific property %q: the provider does not keep it (it keeps %s), so the record would be changed again at every cycle",
				p.Name, strings.Join(g.ProviderSpecific, ", ")))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w: %w", ep.Key(), ErrUnsupported, errors.Join(errs...))
}

// keepsProperty reports whether the property called name is among
// ProviderSpecific.
func (g Guarantees) keepsProperty(name string) bool {
	for _, k := range g.ProviderSpecific {
		if k == name || strings.HasSuffix(k, "/") && strings.HasPrefix(name, k) {
			return true
		}
	}
	return false
}

// Clone returns a copy of g whose slices share nothing with g's.
func (g Guarantees) Clone() Guarantees {
	g.RecordTypes = slices.Clone(g.RecordTypes)
	g.ProviderSpecific = slices.Clone(g.ProviderSpecific)
	return g
}

// RecheckCreates narrows the window in which a create could replace a
// record that appeared after the caller read the zone, on a provider whose
// creates may overwrite (Guarantees.CreateFailsIfExists false): just before
// the caller applies changes, it reads p's records again and leaves out of
// changes every group of changes ([GroupKey]: a record with its ownership
// TXT) holding a create whose record set (name, type, set identifier) now
// exists. It returns the changes to apply (changes itself when nothing is
// left out) and the creates left out, which the caller reports; a later
// cycle plans them again from what it reads then. changes is not
// modified. On a provider with guarantees per zone
// ([ZoneGuaranteeDeclarer]: a router over several services) only the
// creates whose zone's guarantees allow an overwrite are checked, and when
// there is none nothing is read; on any other provider every create is
// (the caller asks [GuaranteesOf] whether to call it at all).
//
// What remains is the time between this read and the provider's write of
// each create: a record written by somebody else in that time is still
// replaced. A caller that applies several zones one after the other calls
// it once before the first.
//
// The records are read with [FreshRecords], past any cache. When the read
// fails, nothing is left to apply safely: the error is returned (marked
// soft, [NewSoftError]) with nil changes.
func RecheckCreates(ctx context.Context, p Provider, changes *plan.Changes) (*plan.Changes, []*endpoint.Endpoint, error) {
	if changes == nil || len(changes.Create) == 0 {
		return changes, nil, nil
	}
	// Only creates whose zone may overwrite are checked
	// ([GuaranteesByName]): on a router, a create in a zone whose
	// provider refuses an existing record needs no re-read.
	byName := GuaranteesByName(p)
	mayOverwrite := func(ep *endpoint.Endpoint) bool {
		if ep == nil {
			return false
		}
		if byName.matcher == nil {
			return true // one set of guarantees: the caller decided
		}
		name, _ := GroupKey(ep)
		return !byName.For(name).CreateFailsIfExists
	}
	if !slices.ContainsFunc(changes.Create, mayOverwrite) {
		return changes, nil, nil
	}
	recs, err := FreshRecords(ctx, p)
	if err != nil {
		return nil, nil, NewSoftError(fmt.Errorf("reading the records again before creating %d record(s) on a provider whose creates may overwrite: %w",
			len(changes.Create), err))
	}
	type groupKey struct{ name, setID string }
	present := make(map[endpoint.Key]bool, len(recs))
	for _, r := range recs {
		if r != nil {
			present[recordKey(r)] = true
		}
	}
	var blocked map[groupKey]bool
	var dropped []*endpoint.Endpoint
	for _, ep := range changes.Create {
		if !mayOverwrite(ep) || !present[recordKey(ep)] {
			continue
		}
		if blocked == nil {
			blocked = map[groupKey]bool{}
		}
		name, setID := GroupKey(ep)
		blocked[groupKey{name, setID}] = true
	}
	if len(blocked) == 0 {
		return changes, nil, nil
	}
	keep := func(list []*endpoint.Endpoint, report bool) []*endpoint.Endpoint {
		var out []*endpoint.Endpoint
		for _, ep := range list {
			if ep != nil {
				if name, setID := GroupKey(ep); blocked[groupKey{name, setID}] {
					if report {
						dropped = append(dropped, ep)
					}
					continue
				}
			}
			out = append(out, ep)
		}
		return out
	}
	out := &plan.Changes{Create: keep(changes.Create, true), Delete: keep(changes.Delete, false)}
	for i, newEp := range changes.UpdateNew {
		var oldEp *endpoint.Endpoint
		if i < len(changes.UpdateOld) {
			oldEp = changes.UpdateOld[i]
		}
		ref := newEp
		if ref == nil {
			ref = oldEp
		}
		if ref != nil {
			if name, setID := GroupKey(ref); blocked[groupKey{name, setID}] {
				continue
			}
		}
		out.UpdateOld = append(out.UpdateOld, oldEp)
		out.UpdateNew = append(out.UpdateNew, newEp)
	}
	return out, dropped, nil
}

// FreshReader is the optional capability of a wrapper that answers Records
// from a cache (provider/cache): FreshRecords reads the provider it wraps
// whatever the cache holds. Use [FreshRecords] rather than a type
// assertion.
type FreshReader interface {
	FreshRecords(ctx context.Context) ([]*endpoint.Endpoint, error)
}

// FreshRecords returns p's records as the DNS service holds them now: read
// through the outermost layer of p that implements [FreshReader] (found by
// following Unwrap, as [As] does), so that a records cache does not answer,
// or with p.Records when no layer caches.
func FreshRecords(ctx context.Context, p Provider) ([]*endpoint.Endpoint, error) {
	for layer := p; layer != nil; layer = unwrap(layer) {
		if f, ok := layer.(FreshReader); ok {
			return f.FreshRecords(ctx)
		}
	}
	return p.Records(ctx)
}

// recordKey is the identity of a record set in the form names have in
// memory.
func recordKey(ep *endpoint.Endpoint) endpoint.Key {
	return endpoint.Key{DNSName: canonicalName(ep.DNSName), RecordType: strings.ToUpper(ep.RecordType), SetIdentifier: ep.SetIdentifier}
}

// ErrCreateWouldOverwrite is wrapped by the error a registry returns for
// the creates [RecheckCreates] left out: the record set appeared after the
// zone was read, and the provider's create would have replaced it.
var ErrCreateWouldOverwrite = errors.New("record appeared after the zone was read; a create would overwrite it")
