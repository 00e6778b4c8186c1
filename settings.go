package zonesync

import (
	"fmt"
	"slices"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/registry"
)

// settings is what a cycle needs from the configuration.
type settings struct {
	ownership registry.Ownership // ManagedRecordTypes: the effective list
}

// validate checks the configuration and derives the cycle settings.
func (r *Reconciler) validate() (settings, error) {
	if r.Source == nil {
		return settings{}, fmt.Errorf("zonesync: %w: Source is nil", ErrInvalidConfig)
	}
	if r.Registry == nil {
		return settings{}, fmt.Errorf("zonesync: %w: Registry is nil", ErrInvalidConfig)
	}
	if err := r.Safety.Validate(); err != nil {
		return settings{}, fmt.Errorf("zonesync: %w: %w", ErrInvalidConfig, err)
	}
	own, err := r.ownership()
	if err != nil {
		return settings{}, fmt.Errorf("zonesync: %w: %w", ErrInvalidConfig, err)
	}
	return settings{ownership: own}, nil
}

// ownership returns the ownership settings of a cycle: the registry's
// ([registry.OwnershipOf]), with the managed record types the registry
// reports, or else the Reconciler's (default A, AAAA, CNAME), upper-cased.
// The Reconciler's own types are the one setting that may be given twice
// (to keep external-dns's flags working with a registry that reports
// none); when the registry reports types too, the two must agree.
func (r *Reconciler) ownership() (registry.Ownership, error) {
	own, err := registry.OwnershipOf(r.Registry)
	if err != nil {
		return own, err
	}
	mine := len(r.ManagedRecordTypes) > 0 || len(r.ExcludeRecordTypes) > 0
	var types []string
	if mine {
		var err error
		if types, err = endpoint.ManagedTypes(r.ManagedRecordTypes, r.ExcludeRecordTypes); err != nil {
			return own, fmt.Errorf("ManagedRecordTypes, ExcludeRecordTypes: %w", err)
		}
	}
	switch {
	case len(own.ManagedRecordTypes) == 0 && mine:
		own.ManagedRecordTypes = types
	case len(own.ManagedRecordTypes) == 0:
		own.ManagedRecordTypes = endpoint.DefaultManagedRecordTypes()
	case mine && !sameTypes(types, own.ManagedRecordTypes):
		return own, fmt.Errorf("the Reconciler manages record types %v but its registry manages %v: configure them in one place, the registry "+
			"(leave the Reconciler's ManagedRecordTypes and ExcludeRecordTypes empty); until then no cycle runs and every record stays as it is",
			types, own.ManagedRecordTypes)
	}
	return own, nil
}

// sameTypes reports whether two upper-case type lists hold the same set.
func sameTypes(a, b []string) bool {
	for _, t := range a {
		if !slices.Contains(b, t) {
			return false
		}
	}
	for _, t := range b {
		if !slices.Contains(a, t) {
			return false
		}
	}
	return true
}
