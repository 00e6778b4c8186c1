package provider

// Optional capabilities and wrappers.
//
// A provider may do more than [Provider] asks: list its zones
// ([ZoneLister]), and so on. A wrapper (a provider that holds another one
// and calls it: batching, rate limiting, caching, metrics, fault injection)
// forwards every such capability by implementing one method,
//
//	Unwrap() Provider
//
// returning the provider it wraps, and callers ask for a capability with
// [As] instead of a type assertion. A new capability therefore needs no
// change to any wrapper. Registry wrappers use the same method (a
// registry is a provider), and package registry's As is this one.

// As reports whether p has the optional capability T (an interface such as
// [ZoneLister]) and returns the implementation that answers it.
//
// p is seen as a chain of layers: p, then what p.Unwrap() returns, and so
// on, down to the innermost layer, which has no Unwrap method or whose
// Unwrap returns nil. The chain has the capability only when the innermost
// layer implements T: a wrapper cannot claim a capability of its own, so it
// may define a capability's methods unconditionally. The capability is then
// answered by the outermost layer that implements T, so that a wrapper
// that changes how a capability behaves (the cache wrapper caches
// ListZones) overrides the layers below it; a wrapper that does not
// implement T passes it through untouched.
//
// A wrapper that must add a capability its provider lacks (a test double,
// say) makes itself the innermost layer: its Unwrap returns nil, or it has
// none.
func As[T any](p Provider) (T, bool) {
	var (
		answer T
		found  bool
	)
	for p != nil {
		t, ok := p.(T)
		if ok && !found {
			answer, found = t, true
		}
		next := unwrap(p)
		if next == nil {
			if ok {
				return answer, true
			}
			break
		}
		p = next
	}
	var zero T
	return zero, false
}

// unwrap returns the provider p wraps, or nil.
func unwrap(p Provider) Provider {
	if w, ok := p.(interface{ Unwrap() Provider }); ok {
		return w.Unwrap()
	}
	return nil
}
