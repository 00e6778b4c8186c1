package registry

import (
	"context"
	"fmt"

	"github.com/zonesync/zonesync/provider"
)

// Optional capabilities and wrappers.
//
// Callers learn what a registry can do beyond [Registry] by type assertion
// ([OwnershipReporter], [OwnabilityChecker], [SettingsWarner], [Repairer]).
// A wrapper (a registry that holds another one and calls it, such as the
// counting wrapper of metrics/prometheus) must implement exactly the
// optional interfaces of the registry it wraps: a hidden capability changes
// what the Reconciler does (it plans without the registry's ownership
// settings, stops skipping records it cannot own, never repairs), and a
// claimed one it lacks gives wrong answers. Every wrapper goes through
// [Forward], the counterpart of provider.Forward, so that a new capability
// is added in one place, this file: its bit and check in capabilitiesOf,
// and the view types of its combinations in viewOf
// (TestViewOfEveryCombination fails until every combination is covered).

// capability is a set of optional interfaces, one bit each.
type capability uint

const (
	capOwnershipReporter capability = 1 << iota
	capOwnabilityChecker
	capSettingsWarner
	capRepairer

	// capAll is every capability; combinations range over 0..capAll.
	capAll = capOwnershipReporter | capOwnabilityChecker | capSettingsWarner | capRepairer
)

// capabilitiesOf returns the optional interfaces r implements.
func capabilitiesOf(r Registry) capability {
	var c capability
	if _, ok := r.(OwnershipReporter); ok {
		c |= capOwnershipReporter
	}
	if _, ok := r.(OwnabilityChecker); ok {
		c |= capOwnabilityChecker
	}
	if _, ok := r.(SettingsWarner); ok {
		c |= capSettingsWarner
	}
	if _, ok := r.(Repairer); ok {
		c |= capRepairer
	}
	return c
}

// Forward returns the registry a wrapper hands out: it answers the methods
// of [Registry] with outer (the wrapper), and implements exactly the
// optional capabilities ([OwnershipReporter], [OwnabilityChecker],
// [SettingsWarner], [Repairer]) that inner (the registry outer wraps)
// implements, no more and no fewer.
//
// Each capability inner has is answered by outer when outer implements it
// too (the wrapper overrides it), and otherwise by inner directly. A
// capability inner lacks is hidden even when outer implements it. When
// outer already implements exactly inner's capabilities, outer itself is
// returned; otherwise the result is a view of outer whose method
// Unwrap() Registry returns outer. A nil outer gives nil; a nil inner has
// no capability.
func Forward(outer, inner Registry) Registry {
	if outer == nil {
		return nil
	}
	want := capabilitiesOf(inner)
	_, innerZones := inner.(zoneLister)
	_, outerZones := outer.(zoneLister)
	if capabilitiesOf(outer) == want && outerZones == innerZones {
		return outer
	}
	return viewOf(want, outer, inner)
}

// zoneLister is [provider.ZoneLister]: a registry that lists the zones of
// its provider (the TXT registry does), so that a Reconciler can apply its
// safety threshold per zone.
type zoneLister interface {
	ListZones(ctx context.Context) ([]string, error)
}

// viewOf returns a view of outer with the capabilities want, each answered
// by outer when it has it and otherwise by inner, which must have it.
func viewOf(want capability, outer, inner Registry) Registry {
	v := view{Registry: outer, inner: inner}
	switch want {
	case 0:
		return v
	case 1:
		return view1{v, pick[OwnershipReporter](outer, inner)}
	case 2:
		return view2{v, pick[OwnabilityChecker](outer, inner)}
	case 3:
		return view3{v, pick[OwnershipReporter](outer, inner), pick[OwnabilityChecker](outer, inner)}
	case 4:
		return view4{v, pick[SettingsWarner](outer, inner)}
	case 5:
		return view5{v, pick[OwnershipReporter](outer, inner), pick[SettingsWarner](outer, inner)}
	case 6:
		return view6{v, pick[OwnabilityChecker](outer, inner), pick[SettingsWarner](outer, inner)}
	case 7:
		return view7{v, pick[OwnershipReporter](outer, inner), pick[OwnabilityChecker](outer, inner), pick[SettingsWarner](outer, inner)}
	case 8:
		return view8{v, pick[Repairer](outer, inner)}
	case 9:
		return view9{v, pick[OwnershipReporter](outer, inner), pick[Repairer](outer, inner)}
	case 10:
		return view10{v, pick[OwnabilityChecker](outer, inner), pick[Repairer](outer, inner)}
	case 11:
		return view11{v, pick[OwnershipReporter](outer, inner), pick[OwnabilityChecker](outer, inner), pick[Repairer](outer, inner)}
	case 12:
		return view12{v, pick[SettingsWarner](outer, inner), pick[Repairer](outer, inner)}
	case 13:
		return view13{v, pick[OwnershipReporter](outer, inner), pick[SettingsWarner](outer, inner), pick[Repairer](outer, inner)}
	case 14:
		return view14{v, pick[OwnabilityChecker](outer, inner), pick[SettingsWarner](outer, inner), pick[Repairer](outer, inner)}
	case 15:
		return view15{v, pick[OwnershipReporter](outer, inner), pick[OwnabilityChecker](outer, inner), pick[SettingsWarner](outer, inner), pick[Repairer](outer, inner)}
	}
	// Unreachable while every combination has its case above.
	panic("registry.Forward: a combination of capabilities has no view")
}

// pick returns outer as a T when it is one (the wrapper overrides the
// capability), and inner otherwise. inner must be a T.
func pick[T any](outer, inner Registry) T {
	if t, ok := outer.(T); ok {
		return t
	}
	return inner.(T)
}

// view answers the methods of Registry with the wrapper and implements no
// optional capability of this package. Every view lists zones
// ([provider.ZoneLister]) the way provider wrappers report a provider that
// cannot: through inner when it lists them, and otherwise with an error
// matching [provider.ErrZonesUnsupported], which [provider.ZonesOf] reads
// as "no zones".
type view struct {
	Registry
	inner Registry
}

// ListZones lists the zones of the wrapped registry, or fails with
// [provider.ErrZonesUnsupported] when it does not list them.
func (v view) ListZones(ctx context.Context) ([]string, error) {
	if zl, ok := v.inner.(zoneLister); ok {
		return zl.ListZones(ctx)
	}
	return nil, fmt.Errorf("registry %T: %w", v.inner, provider.ErrZonesUnsupported)
}

// Unwrap returns the wrapper the view shows.
func (v view) Unwrap() Registry { return v.Registry }

// The views with capabilities, one per combination; the number is the set
// of capabilities (see capabilitiesOf).
type (
	view1 struct {
		view
		OwnershipReporter
	}
	view2 struct {
		view
		OwnabilityChecker
	}
	view3 struct {
		view
		OwnershipReporter
		OwnabilityChecker
	}
	view4 struct {
		view
		SettingsWarner
	}
	view5 struct {
		view
		OwnershipReporter
		SettingsWarner
	}
	view6 struct {
		view
		OwnabilityChecker
		SettingsWarner
	}
	view7 struct {
		view
		OwnershipReporter
		OwnabilityChecker
		SettingsWarner
	}
	view8 struct {
		view
		Repairer
	}
	view9 struct {
		view
		OwnershipReporter
		Repairer
	}
	view10 struct {
		view
		OwnabilityChecker
		Repairer
	}
	view11 struct {
		view
		OwnershipReporter
		OwnabilityChecker
		Repairer
	}
	view12 struct {
		view
		SettingsWarner
		Repairer
	}
	view13 struct {
		view
		OwnershipReporter
		SettingsWarner
		Repairer
	}
	view14 struct {
		view
		OwnabilityChecker
		SettingsWarner
		Repairer
	}
	view15 struct {
		view
		OwnershipReporter
		OwnabilityChecker
		SettingsWarner
		Repairer
	}
)
