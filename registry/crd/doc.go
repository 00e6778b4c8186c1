// Package crd is the DNSRecord ownership registry: a [registry.Registry]
// that records who owns each DNS record set in a DNSRecord custom resource
// (externaldns.k8s.io/v1alpha1, namespaced) instead of a TXT record next to
// it, wire-compatible with the CRD registry of kubernetes-sigs/external-dns
// v0.22 and later: same group, version, kind and resource, same fields,
// same owner label, same object names and same status, so that a zone and
// its DNSRecord objects move between external-dns and zonesync unchanged,
// either way. The zone itself holds nothing but the records.
//
// # Usage
//
// Install the CustomResourceDefinition ([CustomResourceDefinitionYAML]),
// then:
//
//	client, err := dynamic.NewForConfig(restConfig)
//	reg, err := crd.New(prov, client, crd.Config{OwnerID: "my-operator", Namespace: "dns"})
//	if err != nil { ... }             // errors.Is(err, crd.ErrInvalidConfig)
//	if err := reg.Start(ctx); err != nil { ... } // the cache runs until ctx ends
//	r := &zonesync.Reconciler{Source: src, Registry: reg}
//
// Start runs an informer over the namespace's DNSRecord objects whose
// externaldns.k8s.io/owner label is the owner id, and returns once it holds
// the first list. Bulk reads (Records) come from that cache; every read
// before a write goes to the API server, so that an object written earlier
// in the same cycle is seen.
//
// # Access
//
// The ServiceAccount needs, in the namespace:
//
//	apiVersion: rbac.authorization.k8s.io/v1
//	kind: Role
//	metadata: {name: zonesync-dnsrecords, namespace: dns}
//	rules:
//	- apiGroups: [externaldns.k8s.io]
//	  resources: [dnsrecords]
//	  verbs: [get, list, watch, create, update, delete]
//	- apiGroups: [externaldns.k8s.io]
//	  resources: [dnsrecords/status]
//	  verbs: [update]
//
// A list or watch the API server forbids makes Start fail with an error
// that says so; a forbidden write fails the change and says so too.
//
// # Who can own records
//
// The DNSRecords of the namespace decide which records are ours, so the
// rights on them in that namespace are rights on the zone:
//
//   - update (or patch) on dnsrecords/status amounts to ownership of any
//     record: a status written through the subresource is the proof of
//     ownership the registry reads (see below);
//   - update (or patch) on dnsrecords amounts to ownership of the records
//     the namespace's DNSRecords claim, another owner's included: the
//     owner label of an object can be changed to ours, and its status
//     stays;
//   - delete on dnsrecords lets one drop our ownership of our records
//     (they stay in the zone, nobody's), not take others';
//   - create alone does not amount to ownership: the API server keeps no
//     status of a create (the CustomResourceDefinition has the status
//     subresource), and a DNSRecord without a status written for it
//     claims nothing, whatever its labels, spec and annotations say (it
//     is deleted as a repair). It can only refuse a create of ours, by
//     holding the name with an object of another owner for the same
//     record set.
//
// Grant those rights to the registry alone. The guarantee about create
// rests on the status subresource: a DNSRecord CustomResourceDefinition
// installed without it (not [CustomResourceDefinitionYAML], nor
// external-dns's) lets whoever creates an object write its status, and
// so own any record.
//
// # Objects
//
// One DNSRecord per record set, named by [ObjectName] (the name with runs of
// other characters than a-z and 0-9 as "-", and 8 hex digits of a hash of
// name, type and set identifier), with the owner id in its [OwnerLabel]
// label; its spec.endpoint is the record set in the endpoint JSON
// external-dns and zonesync share, with the owner label among its labels.
// Its status holds one condition, Ready: False with reason Accepted once a
// change is decided, True with reason Programmed once the provider applied
// it, False with reason Failed (and the provider's error as message) when
// the provider refused it or the registry did not send it. Status is
// written through the status subresource, with the generation of the spec
// it is about as the condition's observedGeneration.
//
// Eight hex digits collide: two record sets whose names read the same once
// dashed (one name with two set identifiers, or "a.b" and "a-b") share an
// object name with a chance of one in 2^32, and a pair is easy to find on
// purpose. When the create of a record set finds its object name held by
// an object recording another record set, the registry keeps its
// DNSRecord under [FallbackObjectName] (the same readable part and the
// whole SHA-256, 64 hex digits), and every read looks under both names, so
// both record sets work. external-dns does not know the fallback names: it
// reads their objects as current records (it lists the namespace by owner
// label), but addresses a record set's object by ObjectName alone, so
// that, given a colliding pair, it updates and deletes through the object
// of the other record set; with its own objects, it writes the second
// record set of a pair over the first one's object.
//
// # Which records are ours
//
// Records returns the provider's records. A record is ours — it gets the
// owner label and the labels the DNSRecord stores, such as resource; the
// provider's own labels win over the DNSRecord's older copy of them, and an
// owner label the provider itself returned claims nothing — only when a
// DNSRecord of ours (our owner label, in the namespace) exists under the
// object name of that record (or its fallback name), records the same
// record set (name compared in A-label form, type, set identifier), has a
// Ready condition (which only a writer of the status subresource can
// give it), and either
//
//   - its Ready condition is True (reason Programmed), whatever generation
//     it was written for: a writer of the status said the provider holds
//     the record set this object, bound to it by its name, records
//     (external-dns writes no observedGeneration; an update whose intent
//     could not be written leaves the condition of the older spec); or
//   - its Ready condition was written for the current spec
//     (observedGeneration equal to metadata.generation) with reason
//     Accepted — the intent the registry writes before the provider
//     applies a change — and the record holds exactly the data of
//     spec.endpoint: the planner would see no change from one to the other
//     (targets as a set, a configured TTL, provider-specific properties).
//     This heals a cycle cut between the provider's apply and the status
//     write; or
//   - its Ready condition was written for the current spec with reason
//     Accepted or Failed, the object holds a [PreviousEndpointAnnotation]
//     of the same record set (an update), and the record holds exactly
//     the data of the annotation (an update cut before, or refused by, the
//     provider leaves the record as it was, and it stays ours) or, for
//     Failed, of spec.endpoint (an update the provider applied although it
//     reported an error).
//
// What the Accepted rule cannot tell apart from a cut cycle: a record
// somebody else writes, with exactly the data of an Accepted DNSRecord,
// at a name where a cycle was cut between the intent and the provider's
// apply; the first read that finds the record still missing ends that
// window (see below).
//
// A DNSRecord somebody merely created claims nothing: the API server keeps
// no status on a create, so its labels, spec and annotation, whatever they
// hold, prove nothing (see "Who can own records"). A Failed create claims
// nothing by data: a record that appears at its name later, even with
// exactly the data it asked for, is somebody else's. The price: a record
// that a provider created although it reported the create failed (a lost
// response; a batch applied in part and reported as failed, unless the
// error is a [provider.RejectedError] naming what was refused) is left in
// the zone as nobody's. An Accepted or Failed DNSRecord never claims a
// record with other data: a record of somebody else's that made our create
// fail does not become ours. DNSRecords of other owners grant nothing (and
// the registry never writes one). Internationalised names: zonesync's names
// are in A-label form and its objects are named after that form; an object
// external-dns named after the Unicode form of a name is found too.
//
// A DNSRecord of ours that claims nothing — its record is missing from the
// provider (deleted out of band: only for names the provider's domain
// filter matches, since records outside it are not read and their absence
// proves nothing), or holds data it never asked for — claims nothing at
// later reads either, whatever appears at its name, until it is written
// again: the next ApplyChanges deletes it ([Registry.PendingRepairs]),
// unless that ApplyChanges creates its record, which reuses and refreshes
// it. The DNSRecord of a create the provider did not apply claims nothing
// in the same way, even while its Failed status is not written. A
// DNSRecord that claims its record through its data while not Ready is
// marked Programmed by the next ApplyChanges (when the data was the
// previous one, its spec is set back first).
//
// The limit: that memory of DNSRecords that claim nothing belongs to the
// Registry value, as the TXT registry's memory of its suspect TXT records
// does; a process restart loses it. After a restart, a Programmed
// DNSRecord whose record went missing, and was not deleted before the
// restart, claims whatever record appears at its name by then, and the
// Accepted DNSRecord of a create whose Failed status could not be written
// claims a record that appears with exactly its data. The next read after
// a restart finds every such object whose record is still missing, and the
// ApplyChanges that follows deletes it.
//
// # Writing
//
// See [Registry.ApplyChanges]. Intent first: the DNSRecord of a create
// exists, and its Accepted status is written for its spec, before the
// provider is asked to create the record, so a record is never created
// without the object that makes it ours (a change whose intent cannot be
// written is not sent); an existing DNSRecord of ours is reused, one of
// another owner refuses the create. Updates rewrite the spec and keep the
// previous data in the annotation, then write Accepted, before the
// provider applies them. Deletes go to the provider first, then the
// DNSRecord goes (already gone is fine). Updates and deletes of records
// whose ownership verdict is not ours are refused with an error matching
// [registry.ErrNotOwned], and nothing is applied. Everything is written in
// the order of the changes, repairs in object name order.
//
// # Providers whose creates overwrite
//
// The registry declares the guarantees of its provider
// ([Registry.Guarantees]). When they do not say that a create fails on an
// existing record set (CreateFailsIfExists), as with external-dns's pdns
// provider, whose creates replace, ApplyChanges reads the records again
// just before calling the provider ([provider.RecheckCreates]): a create
// whose record set appeared since the read is not sent, its DNSRecord is
// marked Failed (it never claims the record that appeared), and the call
// returns a soft error wrapping [provider.ErrCreateWouldOverwrite]. A
// record somebody writes between that second read and the provider's
// write is still replaced, and then claimed by our DNSRecord: the window
// runs from that read to the provider's write of the record (the
// provider's own apply and, with a provider that lists its zones, the
// applies of the zones before the record's), where it would otherwise run
// from the read of the cycle.
//
// After writing, the next Records waits until the cache shows what was
// written (at most [Config.CacheTimeout]), so that a record created by one
// cycle is ours at the next.
//
// # Differences from external-dns
//
// external-dns's CRD registry returns the DNSRecord specs themselves as the
// current records, and never reads the provider for ownership. zonesync
// returns the provider's records and uses the DNSRecords only to decide
// ownership, deliberately:
//
//   - a record deleted out of band is recreated at the next cycle
//     (external-dns believes it still exists);
//   - a record of somebody else's at the name of a Failed or Accepted
//     DNSRecord is never claimed, and a DNSRecord whose record went missing
//     never lends ownership to a record that appears there later;
//   - a DNSRecord claims through its data only with a status zonesync
//     wrote for its current spec (external-dns writes no
//     observedGeneration): a record external-dns created but whose
//     DNSRecord it left Accepted (cut between its apply and its status
//     write) is not ours, and its DNSRecord is deleted, where
//     external-dns would apply it again; the Programmed objects of
//     external-dns are ours as they are;
//   - two record sets whose object names collide both work (the second
//     under its fallback name); external-dns writes the second over the
//     first one's object;
//   - a DNSRecord of another owner in the namespace refuses a create
//     instead of having its spec overwritten;
//   - an update refused by the provider leaves the record ours
//     (PreviousEndpointAnnotation), where external-dns's Failed object
//     drops it from the current state;
//   - with a provider that lists its zones, changes are applied and
//     statuses written per zone (external-dns marks the whole batch);
//   - labels the provider returns win at read time, so the registry does
//     not rewrite DNSRecords after every apply to copy them.
//
// Either way, the objects each writes read back as owned by the other
// (the interop tests check both directions against the same API server).
// The registry does not take over an old owner id (external-dns's CRD
// registry does not either).
package crd
