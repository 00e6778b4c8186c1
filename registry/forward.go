package registry

import "github.com/zonesync/zonesync/provider"

// Optional capabilities and wrappers.
//
// Callers learn what a registry can do beyond [Registry]
// ([OwnershipReporter], [OwnabilityChecker], [SettingsWarner], [Repairer],
// and [provider.ZoneLister] for registries that know the zones of their
// provider) with [As], never with a type assertion. A wrapper (a registry
// that holds another one and calls it, such as the counting wrapper of
// metrics/prometheus) forwards every capability of the registry it wraps
// by implementing
//
//	Unwrap() provider.Provider
//
// returning that registry (a registry is a provider): the same method as
// provider wrappers, walked by the same helper. A hidden capability would
// change what a Reconciler does (it would plan without the registry's
// ownership settings, stop skipping records it cannot own, never repair),
// and a claimed one the registry lacks would give wrong answers; with
// Unwrap neither can happen, and a new capability needs no change to any
// wrapper.

// As reports whether r has the optional capability T and returns the
// implementation that answers it: the capability exists when the innermost
// registry (the last one reached through Unwrap) implements T, and is
// answered by the outermost layer that implements T, so that a wrapper can
// override it. It is [provider.As], applied to a registry.
func As[T any](r Registry) (T, bool) {
	return provider.As[T](r)
}
