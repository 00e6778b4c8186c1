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
// # Objects
//
// One DNSRecord per record set, named by [ObjectName] (the name with runs of
// other characters than a-z and 0-9 as "-", and 8 hex digits of a hash of
// name, type and set identifier), with the owner id in its [OwnerLabel] label; its
// spec.endpoint is the record set in the endpoint JSON external-dns and
// zonesync share, with the owner label among its labels. Its status holds
// one condition, Ready: False with reason Accepted once a change is
// decided, True with reason Programmed once the provider applied it, False
// with reason Failed (and the provider's error as message) when the
// provider refused it. Status is written through the status subresource.
//
// # Which records are ours
//
// Records returns the provider's records. A record is ours — it gets the
// owner label and the labels the DNSRecord stores, such as resource; the
// provider's own labels win over the DNSRecord's older copy of them, and an
// owner label the provider itself returned claims nothing — only when a
// DNSRecord of ours (our owner label, in the namespace) exists with the
// object name of that record, records the same record set (name compared
// in A-label form, type, set identifier), and either
//
//   - its Ready condition is True (reason Programmed), or
//   - the record holds exactly the data of spec.endpoint: the planner would
//     see no change from one to the other (targets as a set, a configured
//     TTL, provider-specific properties). This heals a cycle cut between
//     the provider's apply and the status write; or
//   - the record holds exactly the data of [PreviousEndpointAnnotation]:
//     an update cut before, or refused by, the provider leaves the record
//     as it was, and it stays ours.
//
// An Accepted or Failed DNSRecord never claims a record with other data: a
// record of somebody else's that made our create fail does not become
// ours. DNSRecords of other owners grant nothing (and the registry never
// writes one). Internationalised names: zonesync's names are in A-label
// form and its objects are named after that form; an object external-dns
// named after the Unicode form of a name is found too.
//
// A DNSRecord of ours that claims nothing — its record is missing from the
// provider (deleted out of band: only for names the provider's domain
// filter matches, since records outside it are not read and their absence
// proves nothing), or holds data it never asked for — claims nothing at
// later reads either, whatever appears at its name, until it is written
// again: the next ApplyChanges deletes it ([Registry.PendingRepairs]),
// unless that ApplyChanges creates its record, which reuses and refreshes
// it. A DNSRecord that claims its record through its data while not Ready
// is marked Programmed by the next ApplyChanges (when the data was the
// previous one, its spec is set back first).
//
// # Writing
//
// See [Registry.ApplyChanges]. Intent first: the DNSRecord of a create
// (Accepted) exists before the provider is asked to create the record, so
// a record is never created without the object that makes it ours; an
// existing DNSRecord of ours is reused, one of another owner refuses the
// create. Updates rewrite the spec and keep the previous data in the
// annotation before the provider applies them. Deletes go to the provider
// first, then the DNSRecord goes (already gone is fine). Updates and deletes
// of records whose owner label is not ours are refused with an error
// matching [registry.ErrNotOwned], and nothing is applied. Everything is
// written in the order of the changes, repairs in object name order.
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
