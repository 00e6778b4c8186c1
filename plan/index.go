package plan

import (
	"fmt"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

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
