// Package policy holds the built-in [plan.Policy] values, constants of type
// [Name] that decide what kinds of change a plan may make, and [ByName] to
// pick one by its external-dns name:
//
//   - [Sync] ("sync") keeps every change: records no source asks for any more
//     are deleted.
//   - [UpsertOnly] ("upsert-only") drops deletes: records are created and
//     updated but never removed.
//   - [CreateOnly] ("create-only") keeps creates only: existing records are
//     never changed.
//
// # Usage
//
//	pol, err := policy.ByName(cfg.Policy) // e.g. "upsert-only"
//	if err != nil {
//		return err // names the bad value and the valid ones
//	}
//	calculated := (&plan.Plan{Current: cur, Desired: des, Policies: []plan.Policy{pol}}).Calculate()
//
// A policy never modifies the changes it is given; it returns new lists
// (sharing the endpoints), so the caller may modify the result freely. What a
// policy drops is reported in [plan.Plan.Skipped] with [plan.SkipPolicy].
//
// # Concurrency
//
// The policies are constants, safe for concurrent use.
//
// # Errors
//
// [ByName] returns an error for an unknown name, listing the valid names
// (see [Names]).
package policy
