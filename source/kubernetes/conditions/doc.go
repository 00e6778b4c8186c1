// Package conditions reports in the status of Kubernetes objects what each
// reconcile cycle did with their records: two conditions in
// status.conditions, [Accepted] and [Programmed], with a reason, a message
// and observedGeneration, written through the status subresource.
//
// A [Writer] does it for the objects of one resource: DNSEndpoints
// ([NewForDNSEndpoints]), or any custom resource whose status has a
// conditions list of the standard shape (metav1.Condition), such as an
// operator's own CRD ([New]). It is a [zonesync.Observer]: set it as a
// Reconciler's Observer (next to others with [zonesync.Observers]), or call
// [Writer.Write] with the [zonesync.Cycle] that RunOnce returns.
//
// # Conditions
//
// The object of each resource key the cycle names ([zonesync.Cycle.ResourceStatuses])
// gets, from its [zonesync.ResourceStatus] (the first row that applies):
//
//	state of the object             | Accepted                    | Programmed
//	--------------------------------+-----------------------------+------------------------------------------
//	invalid, reason source-error    | False SourceError (message) | False SourceError (message)
//	invalid, reason invalid         | False Invalid (message)     | False Invalid (message)
//	ready, records desired          | True Accepted               | True Programmed
//	deleted, or not in the cycle    | True Accepted               | True NoRecords
//	skipped                         | True Accepted               | False the skip reason in CamelCase (message)
//	failed, reason unsafe-plan      | True Accepted               | False UnsafePlan (message)
//	failed, reason zone-failed      | True Accepted               | False ZoneFailed (message)
//	failed, another reason          | True Accepted               | False Failed (message)
//	rejected                        | True Accepted               | False Rejected (message)
//	pending (dry run)               | True Accepted               | False Pending (message)
//	applied, not verified in sync   | True Accepted               | False NotVerified (message)
//	cycle failed before planning    | left as it is               | False CycleFailed (the cycle's error)
//
// "ready" is [zonesync.ResourceStatus.Ready]. The skip reasons become
// ForeignOwner, Unowned, FilteredOut, UnmanagedType, LostConflict,
// CnameConflict, Policy, SourceError, Unownable and Unsupported: each
// kebab-case reason of [github.com/zonesync/zonesync/plan.SkipReason] with every word capitalised and the
// hyphens removed. A reason that would not match the API server's pattern
// for condition reasons falls back to the state's ("Skipped", "Failed").
// The message of a False condition is the object's message
// ([zonesync.ResourceStatus.Message]) when at most one of its records is not
// ready and the message is not empty; otherwise it is one line per record
// that is not ready ("name/TYPE: state (reason): message", and what the
// verification found), in the order of the object's records. It is cut
// to 32768 bytes (the limit of metav1.Condition) on a UTF-8 boundary,
// ending with "…". Messages of True conditions are empty, but NoRecords's:
// "no records are desired".
//
// Which objects get which row:
//
//   - With a [GenerationReader] (a DNSEndpoint writer has the source's),
//     exactly the objects the reader reports: those the source selected in
//     the cycle. An object it reports that the cycle does not name, or whose
//     state is deleted, has no records: the NoRecords row.
//   - Without one, the objects the cycle names, unless their state is
//     deleted (the object was deleted or no longer asks for records: the
//     writer cannot tell which).
//   - An object the writer wrote before and that gets no row now has both
//     conditions removed, once.
//   - When the cycle failed before planning (its Plan is nil), the
//     CycleFailed row goes to the objects the reader reports and those
//     written before; nothing is removed.
//
// Resource keys come partly from DNS (the TXT ownership records name the
// object of a deleted record), so they are read strictly: "kind/namespace/name"
// ("kind/name" for a cluster-scoped resource), with [Options.Kind] as kind,
// the namespace a DNS label and the name a DNS subdomain; any other key is
// skipped before any request.
//
// # observedGeneration
//
// With a GenerationReader, each condition's observedGeneration is the
// metadata.generation the source read in the cycle: the conditions describe
// that generation of the object. Without one, it is the object's
// metadata.generation when the writer writes the conditions; since the
// writer writes only when the conditions change, a later change of the
// object's spec that leaves the outcome unchanged is not reflected, and a
// change made after the cycle read the object and before the write is
// counted as seen.
//
// # Writes
//
// The writer remembers what it last wrote to each object and sends nothing
// for an object whose conditions and generation are unchanged, not even a
// GET: a steady state makes no requests, which matters because every write
// is a watch event that starts another cycle of an event-driven Reconciler.
// When something changed it reads the object through the status subresource,
// sets the two conditions (meta.SetStatusCondition: lastTransitionTime moves
// only when the status does; other condition types and other status fields
// stay as they are), and writes it back with the resourceVersion it read,
// reading again on a conflict. An object that does not exist is not an
// error: the writer remembers it as done, so that a key naming no object is
// not looked for every cycle, and looks again when the object's conditions
// would change. Errors name the object; one object's error does not stop
// the others, and Write returns them joined, in the order of the keys. The
// writer trusts its memory: a change somebody else makes to its two
// conditions is not undone until the outcome changes (or the program
// restarts).
//
// # The CRD must have status.conditions
//
// The API server prunes fields that a CRD's schema does not declare, and
// external-dns's DNSEndpoint CRD declares only status.observedGeneration: it
// drops the conditions silently. The writer notices (the object it gets back
// lacks them), stops the write of that cycle and returns an error matching
// [ErrPruned] that says what to change; it tries again the next cycle (a
// write the server pruned to nothing stores nothing and starts no cycle).
// zonesync ships external-dns's
// DNSEndpoint CRD with status.conditions added, of the standard
// metav1.Condition schema, as config/crd/dnsendpoints.externaldns.k8s.io.yaml
// in its repository: apply it over the one external-dns installed (the
// change only adds a field). A CRD of your own needs the same field.
//
// # Permissions
//
// The writer needs get and update on the status subresource of its
// resource, nothing else (it reads objects through that subresource). For
// DNSEndpoints, with the list and watch the DNSEndpoint source needs (its
// own status.observedGeneration write is covered by the update):
//
//	apiVersion: rbac.authorization.k8s.io/v1
//	kind: ClusterRole
//	metadata:
//	  name: zonesync-dnsendpoints
//	rules:
//	- apiGroups: [externaldns.k8s.io]
//	  resources: [dnsendpoints]
//	  verbs: [list, watch]
//	- apiGroups: [externaldns.k8s.io]
//	  resources: [dnsendpoints/status]
//	  verbs: [get, update]
package conditions
