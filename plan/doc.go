// Package plan decides which DNS changes bring the records a provider holds
// in line with the records sources ask for.
//
// A [Plan] takes the current records (from a registry, with owner labels),
// the desired records (from sources), and options: policies, a domain filter,
// the managed record types, the owner id and a [ConflictResolver].
// [Plan.Calculate] returns a copy of the plan with [Plan.Changes] — records
// to create, update (old and new state, paired by position) and delete — and
// [Plan.Skipped], every change it did not make with a [SkipReason].
// [Changes] is also the wire format of the webhook provider protocol.
//
// # Usage
//
//	p := &plan.Plan{
//		Current:  records,   // registry.Records(ctx)
//		Desired:  endpoints, // source.Endpoints(ctx)
//		Policies: []plan.Policy{policy.Sync},
//		OwnerID:  "my-operator",
//	}
//	calculated := p.Calculate()
//	fmt.Println(calculated) // table of changes and skipped changes
//	err := registry.ApplyChanges(ctx, calculated.Changes)
//
// # Rows
//
// Records are grouped into rows keyed by the DNS name in A-label form
// ([endpoint.CanonicalName]: the form the Reconciler gives names in, which
// is used as it is, without converting it; another spelling, in upper case,
// with a trailing dot or in Unicode, is converted and falls into the same
// row) and the set identifier, then by record type. For every row and type:
//
//   - a desired record and no current record gives a create;
//   - a current record and no desired record gives a delete;
//   - both give an update when the record data differ ([Why]: the targets,
//     compared by [endpoint.Targets.Same], which ignores order and case; a
//     TTL the desired record configures; the provider-specific properties),
//     or when the current record carries txt/force-update, which the TXT
//     registry sets when its ownership record must be rewritten. The new
//     record keeps the current TTL when the desired one is unset.
//
// Current records whose resource label names an object in [Plan.Protected]
// (objects a source could not read this time) are neither updated nor
// deleted ([SkipSourceError]). When an object of Plan.Protected is named by
// no record of ours, the plan cannot tell which records it would have kept
// and deletes nothing at all in that plan (each delete is skipped with
// [SkipSourceError]); updates and creates go ahead.
//
// With [Plan.Ownable] set, a create whose ownership the registry could not
// record is left out with [SkipUnownable] instead of being made.
//
// A CNAME cannot share a name with other records (RFC 1034 §3.6.2): when the
// desired records of a row ask for a CNAME and for any other managed type,
// the CNAME ones are dropped ([SkipCNAMEConflict]), which also deletes a
// CNAME we own at that name. A CNAME is not created either at a name that
// holds a current record of a type the plan does not manage (ownership
// records aside), and nothing is created beside an unmanaged CNAME: the
// DNS service would refuse it ([SkipCNAMEConflict]).
//
// A row's name is normalised after removing white space around it, so a
// desired record whose name is invalid only for that white space holds the
// records of the name it means (see below).
//
// Only the record types in [Plan.ManagedRecords] (A, AAAA and CNAME when
// empty) minus [Plan.ExcludeRecords], and only names the [Plan.DomainFilter]
// matches, enter the plan; desired records outside report [SkipUnmanagedType]
// or [SkipFilteredOut], current records outside are left alone. Ownership TXT
// records (labelled [endpoint.OwnedRecordLabelKey]) never enter.
//
// A desired record that fails [endpoint.Endpoint.ValidateDesired] is
// skipped with [SkipInvalid], and if its row holds current records the
// whole row is left untouched (no create, update or delete there): bad
// input never removes or alters what is in DNS. A caller that validated the
// desired records already passes its verdict in [Plan.Validated], and they
// are not validated again. A desired record the provider cannot store as
// asked ([Plan.Supported]: a set identifier on a provider that drops set
// identifiers, say) is skipped with [SkipUnsupported] and holds its row the
// same way. The managed types are normalised by [endpoint.ManagedTypes].
//
// # Ownership
//
// Whether a current record is ours is decided once, by the registry that
// read it, and carried with the record as its ownership verdict
// ([endpoint.Endpoint.Ownership]); the planner reads it and never decides
// again. A record without a verdict (built by hand, or from a registry that
// attaches none) is judged by the one rule, [endpoint.Owners.Verdict], with
// [Plan.OwnerID] and [Plan.OldOwnerID]: with OwnerID set, a record is ours
// when its owner label ([endpoint.OwnerLabelKey]) equals OwnerID; with an
// empty OwnerID (the no-op registry) every record is ours. Only our records
// are updated or deleted; nothing is created at a name (and set identifier)
// that holds a record that is not ours, whether another owner's
// ([SkipForeignOwner], [endpoint.OwnedByOther]) or one without an owner
// ([SkipUnowned], [endpoint.OwnedByNobody]). Records that are not ours and
// not desired are not reported: they are simply not the plan's business.
//
// A record ours under the old owner id of a migration
// ([endpoint.OwnedByOldOwner], or an owner label equal to [Plan.OldOwnerID]
// without a verdict) counts as ours and gets an update, even when nothing
// else changed, whose new state carries OwnerID, so that the registry
// rewrites its ownership: the migration happens here, in one cycle.
//
// [Plan.Owned] counts the records the plan may change (managed, in scope,
// ours), the number a [SafetyThreshold] judges changes against;
// [Plan.OwnedIn] counts them per zone too.
//
// The new state of an update (UpdateNew) is a new endpoint: the current
// record's name, type and set identifier; the desired targets and
// provider-specific properties; the desired TTL when it is configured, else
// the current TTL; the current labels overlaid with the desired labels (so
// registry labels such as [endpoint.TxtEncryptionNonceLabelKey] are kept
// unless the source sets them), and the owner label set to OwnerID.
// Endpoints in UpdateOld and Delete are the current input endpoints, and
// those in Create the desired ones (or what the resolver built, for
// [MergeTargets]); Calculate never modifies an input endpoint.
//
// # Conflict resolution
//
// When several desired records (typically from several Kubernetes resources,
// told apart by their [endpoint.ResourceLabelKey] label) ask for one name,
// set identifier and type, [Plan.Resolver] picks what is planned.
// [PerResource], the default, follows the multiple-targets design of
// external-dns: resources do not merge; a new record goes to the candidate
// with the smallest targets, compared as external-dns compares them (IP
// addresses as numbers: 9.0.0.1 before 10.0.0.2); an existing record stays
// with the resource named in its resource label and follows that resource's
// changes; when that resource is gone, the smallest remaining candidate
// takes over. A takeover
// needs no change of its own: when the new resource asks for other data, the
// update carries its resource label (and the registry records it); when it
// asks for the same data, nothing changes and the record keeps the old label
// until its next update, as in external-dns. [MergeTargets] unions
// the targets of all candidates instead, as external-dns does since v0.21.
// Candidates that lose are reported with [SkipLostConflict].
//
// # Policies
//
// [Plan.Policies] are applied in order to the calculated changes (package
// policy has sync, upsert-only and create-only). Changes a policy drops are
// reported with [SkipPolicy].
//
// # Safety threshold
//
// A [SafetyThreshold] judges calculated changes against the number of
// records the plan may change ([Owned], counted by the caller, in total and
// per zone): [SafetyThreshold.Check] returns an [*UnsafePlanError]
// (errors.Is [ErrUnsafePlan]) when the deletes and data updates exceed the
// allowed share. A Reconciler checks it before applying anything.
//
// # Order and performance
//
// Every list in the result, Skipped included, is sorted by (DNSName,
// SetIdentifier, RecordType), whatever the order of the input, so the same
// inputs always give the same plan. Calculate runs in time linear in the
// number of records (plus sorting the changes), reads each endpoint once,
// does not allocate for names that are already plain lower-case ASCII, and
// makes a fixed handful of allocations per call beyond what the changes and
// skips themselves need; docs/benchmarks.md has the figures.
//
// # Concurrency
//
// Calculate reads its Plan and the endpoints and writes nothing shared: any
// number of goroutines may calculate plans over the same endpoints at once,
// as long as nobody modifies them meanwhile. A [ConflictResolver] or [Policy]
// used by several plans at once must be safe for that.
//
// # Errors
//
// Calculate does not fail: every problem with an individual record (invalid
// data, foreign ownership, conflicts) becomes a [Skip] with a reason and a
// detail naming the record and the cause, readable in a dry run. The only
// error of the package is the safety threshold's [*UnsafePlanError].
//
// # Outcomes
//
// The plan is where the outcome of each desired record starts: [Plan.Outcomes]
// indexes a calculated plan by desired endpoint ([Outcome]: skipped with its
// [Skip], changed, or unchanged), [Skip.Owner] names the owner in the way of a
// [SkipForeignOwner] skip, and [Plan.Existing] counts the desired records
// already in DNS. A Reconciler's record statuses and the metrics read these
// instead of joining current and desired records again; what the provider
// made of the changes is the registry package's part (its ApplyOutcome).
//
// # Files
//
// plan.go holds the Plan and Calculate; table.go the planner's hash table of
// rows; index.go how records enter the rows; rules.go the rules that decide
// each row; policies.go the policies and the sorted result; owned.go the
// owned-record counts; skip.go and outcome.go the skips and their index.
package plan
