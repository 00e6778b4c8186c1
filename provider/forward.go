package provider

// Optional capabilities and wrappers.
//
// Callers learn what a provider can do beyond [Provider] by type assertion
// (today: [ZoneLister]). A wrapper (a provider that holds another one and
// calls it: batching, rate limiting, caching, metrics, fault injection) must
// therefore implement exactly the optional interfaces of the provider it
// wraps: one that hides a capability silently changes how the layers above
// behave (the TXT registry stops applying per zone), and one that claims a
// capability its provider lacks gives wrong answers. Every wrapper goes
// through [Forward], so that a new capability is added in one place: its bit
// in capability, its check in capabilitiesOf, and one view type per
// combination in viewOf (TestViewOfEveryCombination fails until every
// combination is covered).

// capability is a set of optional interfaces, one bit each.
type capability uint

const (
	capZoneLister capability = 1 << iota

	// capAll is every capability; combinations range over 0..capAll.
	capAll = capZoneLister
)

// capabilitiesOf returns the optional interfaces p implements.
func capabilitiesOf(p Provider) capability {
	var c capability
	if _, ok := p.(ZoneLister); ok {
		c |= capZoneLister
	}
	return c
}

// Forward returns the provider a wrapper hands out: it answers the methods
// of [Provider] with outer (the wrapper), and implements exactly the
// optional capabilities ([ZoneLister], ...) that inner (the provider outer
// wraps) implements, no more and no fewer.
//
// Each capability inner has is answered by outer when outer implements it
// too (the wrapper overrides it, as the cache wrapper caches ListZones),
// and otherwise by inner directly. A capability inner lacks is hidden even
// when outer implements it, so a wrapper may define a capability's method
// unconditionally, call inner's in it, and leave it to Forward whether
// callers see it. A wrapper that must add a capability inner lacks (a test
// double, say) does not call Forward for it.
//
// When outer already implements exactly inner's capabilities, outer itself
// is returned. Otherwise the result is a view of outer; [As] finds outer
// (and the wrapper's own methods) through it. A nil outer gives nil; a nil
// inner has no capability.
func Forward(outer, inner Provider) Provider {
	if outer == nil {
		return nil
	}
	want := capabilitiesOf(inner)
	if capabilitiesOf(outer) == want {
		return outer
	}
	return viewOf(want, outer, inner)
}

// viewOf returns a view of outer with the capabilities want, each answered
// by outer when it has it and otherwise by inner, which must have it.
func viewOf(want capability, outer, inner Provider) Provider {
	v := view{Provider: outer}
	switch want {
	case 0:
		return v
	case capZoneLister:
		return zoneListerView{view: v, ZoneLister: pick[ZoneLister](outer, inner)}
	}
	// Unreachable while every combination has its case above.
	panic("provider.Forward: a combination of capabilities has no view")
}

// pick returns outer as a T when it is one (the wrapper overrides the
// capability), and inner otherwise. inner must be a T.
func pick[T any](outer, inner Provider) T {
	if t, ok := outer.(T); ok {
		return t
	}
	return inner.(T)
}

// view answers the methods of Provider with the wrapper and implements no
// optional capability.
type view struct{ Provider }

// Unwrap returns the wrapper the view shows, for [As].
func (v view) Unwrap() Provider { return v.Provider }

// zoneListerView is a view with [ZoneLister].
type zoneListerView struct {
	view
	ZoneLister
}

// As looks for a provider of type T in p and in what it unwraps to: it
// returns p when p is a T, and otherwise repeats with p.Unwrap() while p
// has a method Unwrap() Provider (the views of [Forward] have one, giving
// the wrapper). It is the way to reach the methods of a wrapper that
// [Forward] handed out as a plain Provider, e.g. the Invalidate method of
// the cache wrapper.
func As[T any](p Provider) (T, bool) {
	for p != nil {
		if t, ok := p.(T); ok {
			return t, true
		}
		u, ok := p.(interface{ Unwrap() Provider })
		if !ok {
			break
		}
		p = u.Unwrap()
	}
	var zero T
	return zero, false
}
