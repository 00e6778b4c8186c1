// Package txt is the TXT ownership registry: a [registry.Registry] that
// records who owns each DNS record in a TXT record next to it, in exactly
// the format of the kubernetes-sigs/external-dns TXT registry (the few
// differences are listed in docs/compatibility.md, "Ownership"), so that
// zonesync and external-dns can read each other's zones and a team can
// switch from one to the other: with the same owner id and TXT settings,
// records both are asked for do not change (docs/from-external-dns.md
// lists the cases that do).
//
// # Usage
//
//	reg, err := txt.New(prov, txt.Config{OwnerID: "my-operator"})
//	if err != nil { ... }                 // errors.Is(err, txt.ErrInvalidConfig)
//	current, err := reg.Records(ctx)      // records with owner labels and ownership verdicts attached
//	p := (&plan.Plan{Current: current, Desired: desired, OwnerID: reg.OwnerID()}).Calculate()
//	err = reg.ApplyChanges(ctx, p.Changes) // records and their TXT, in one provider call
//
// # Naming
//
// The ownership TXT of app.example.com/A is a-app.example.com: the record
// type, lower-cased, and a dash go in front of the first label ("typed"
// format, the only one external-dns writes since v0.18). [Config.Prefix] or
// [Config.Suffix] (mutually exclusive) add text around the first label;
// either may contain "%{record_type}", which then replaces the "<type>-"
// part: Prefix "extdns-%{record_type}." gives extdns-a.example.com for the
// apex example.com, the way to keep apex TXT records inside their zone.
// [New] refuses a prefix or suffix that cannot form a valid TXT name for
// any record ("edns!", "ed ns-", an empty label, a label over 63 octets:
// see [Config.Prefix]): with it every create would be skipped as
// unownable. [Config.WildcardReplacement] replaces a leading "*" label. The registry
// applies these rules in both directions: it names the TXT it writes for a
// record, and reads back the record a TXT name owns.
//
// Reading accepts the legacy untyped format too (the TXT name without the
// type: app.example.com itself without affixes), written by external-dns
// v0.17 and earlier, and every type external-dns puts in names (A, AAAA,
// CNAME, NS, MX, PTR, SRV, NAPTR, TXT, DNAME, TLSA, tried in that order: the
// order of endpoint.KnownRecordTypes), with its ambiguities: with a bare
// "%{record_type}" prefix, "aaaafoo" reads as type A, record "aaafoo", and
// is also the name the registry writes for "foo"/AAAA. Such a name owns
// the record of the one reading whose record exists (so the TXT of a
// record the registry created is never taken for an orphan); when the
// records of both readings exist it owns neither, and
// [Registry.SettingsWarnings] says so.
//
// # Values
//
// A TXT value is "heritage=external-dns" followed by ",external-dns/<key>=<value>"
// for every label of the owned record in byte order, in double quotes:
//
//	"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app"
//
// With [Config.EncryptionKey] values are written encrypted (AES-256-GCM,
// byte-compatible with external-dns) — or, with [EncryptionDecryptOnly],
// in plain text while encrypted values are still decrypted, to roll
// encryption out or back; both plain and encrypted values are read. The nonce of a decrypted value is kept in the
// "txt-encryption-nonce" label of the owned record so that rewriting it
// gives the same bytes. With encrypted writes every record ApplyChanges
// sends to the provider carries that label, as external-dns's records do
// (providers that store or forward labels, such as a webhook, see them):
// a created record and the new side of an update carry the nonce their
// ownership TXT is encrypted with (that of an encrypted TXT reused as it
// stands, or a fresh one, which the TXT written beside them then uses);
// the old side of an update and a deleted record carry the nonce read with
// their TXT, or a fresh one when it was plain. The ownership TXT records
// themselves carry none, and without encrypted writes the new side of an
// update carries none either. TXT records whose value has no
// heritage=external-dns are not ownership records: they are returned like
// any other record.
//
// # Reading
//
// Records reads the provider once — through [provider.RecordVisitor] when
// the provider given to [New] implements it (the in-memory provider does),
// so that ownership TXT records are parsed without being copied, else with
// its Records; the result is the same — and, for every record that is not
// an ownership TXT, looks up its ownership by (name, type, set identifier):
// the typed TXT first; for A records with the alias property "true" or "A"
// the other alias naming ("cname-" by default, see [Config.AliasTXTType]);
// then, except for AAAA, the legacy untyped TXT. A "*" first label is
// looked up with the wildcard replacement, so *.x and w.x share one TXT.
// The labels found are copied onto the record (each record gets its own
// map); records without a TXT have no owner label (an owner label the
// provider returned is removed). The owner and resource labels come from
// the TXT only; any other label the provider returned on the record stays
// the provider's, even when the TXT holds an older copy of it
// (external-dns's coredns provider keeps each target's etcd key in a
// label, and external-dns serialises every label into the TXT).
//
// Then every record gets its ownership verdict, decided here once by the
// one rule, [endpoint.Owners.Verdict] of the labels the TXT gave it
// ([endpoint.Endpoint.SetOwnership]): [endpoint.OwnedByUs] for OwnerID,
// [endpoint.OwnedByOldOwner] for [Config.OldOwnerID], [endpoint.OwnedByOther]
// for another owner, [endpoint.OwnedByNobody] without a TXT. The planner
// reads the verdict and never decides again: it updates and deletes only
// records that are ours, and relabels those of the old owner id (an update
// that rewrites their TXT with OwnerID), in one cycle. A record of the old
// owner keeps its owner label as read.
//
// Format upgrade: when the zone holds at least one ownership TXT, every
// record we own whose type is managed ([Config.ManagedRecordTypes]) and
// whose typed TXT was not read (it is owned through a legacy untyped or
// "cname-" alias TXT) gets the provider-specific property
// txt/force-update=true. The planner sees a
// difference and emits an update; ApplyChanges then writes the typed TXT.
// Records whose typed TXT name would be unusable (see Writing) are not
// forced, so that no update is retried in vain at every cycle.
// Legacy untyped TXT records are never deleted (as with external-dns: an
// untyped TXT without affix shares its name, and possibly its record set,
// with the records it owns): remove them by hand once no release older
// than v0.18 reads the zone.
//
// # Writing
//
// ApplyChanges copies the changes (the caller's are never modified), sets
// the owner label on every create, and adds the ownership TXT records to
// the same lists, so everything goes to the provider in one ApplyChanges
// call (one per zone, see below). A created TXT goes right before its
// record in Create (external-dns puts it after); every other TXT change
// goes after the records, in their order, so a record is deleted before its
// TXT. A provider that applies a call in list order and stops half-way then
// leaves a TXT without its record, which the next cycle repairs (see
// Failures), never a record without its TXT, which nobody could tell from
// a record created by hand:
//
//   - create: the TXT is created — or, when the last read saw it already,
//     reused (same labels) or rewritten through an update pair (other
//     labels), never created twice;
//   - update: the TXT is rewritten through an update pair whose old value is
//     the value read (exact, even encrypted), or created when the last read
//     did not see it (the force-update case above): a TXT that does not
//     exist is never updated or deleted;
//   - delete: every typed TXT the record was owned through is deleted with
//     the value read, once no record that its ownership lookup still
//     consults remains (see below), unless it names another owner.
//
// No ownership TXT outlives the records it owns. A typed TXT is consulted
// by the records of its name and type and, for "a-" and "cname-" names, by
// the A ALIAS record of its name (one is its own naming, the other the
// fallback of Reading) — a record read, or created since. Deleting a record,
// or updating it away (new name, alias property removed), takes it off the
// TXT records it consulted; those left without any, at the end of the
// change set, are deleted. So with Suffix ".%{record_type}-own",
// app.cname-own.example.com, owning both the CNAME app.example.com and the
// A ALIAS app.example.com (whose "a-" TXT is missing), goes with the second
// of the two deleted, in either order, in one call or two.
//
// Only records whose verdict is ours ([endpoint.Owners.Of]: the verdict a
// record carries from Records, or the rule applied to its owner label for
// one built by hand) are updated or deleted: when a change set updates or
// deletes any other record, ApplyChanges
// applies nothing and returns an error matching registry.ErrNotOwned that
// names every such record with its owner label — a change is never
// dropped silently. A TXT endpoint has TTL 0,
// the set identifier and provider-specific properties of its record (but
// "alias", invalid on TXT records) and the single label ownedRecord, plus,
// on the old side of an update and on a delete, the labels the provider
// returned with that TXT (its key in the provider, for providers that find
// records by label). If no
// valid TXT name exists for a created record (a label over 63 octets, or a
// name outside the provider's domain filter such as a-example.com for an
// apex record without a suitable prefix), the record is not created, the
// rest is applied, and the error returned wraps [ErrTXTName] and
// provider.SoftError, naming each record.
//
// On a provider whose creates may replace an existing record
// (provider.Guarantees without CreateFailsIfExists: external-dns's pdns
// provider, and any provider that declares nothing), a record appearing
// between the read and the write would be overwritten and claimed by the
// TXT written beside it. ApplyChanges therefore reads the provider again
// just before applying a change set with creates
// (provider.RecheckCreates, past any records cache) and leaves out every
// record whose record set — or whose ownership TXT's — exists by then,
// together with its TXT; the rest is applied, and the error, marked soft,
// wraps provider.ErrCreateWouldOverwrite and names each record left out.
// What remains is the time between that read and the provider's write
// (and, when zones are applied one after the other, the apply of the zones
// before). Providers that declare CreateFailsIfExists (provider/inmemory,
// provider/rfc2136) are not read again.
//
// A TXT record created where an ownership TXT of ours waits to be deleted
// as a repair (see Failures) replaces it in one update pair, so that a
// change set never creates and deletes one record set.
//
// When the provider lists its zones (provider.ZoneLister), the change set
// is cut by zone after the TXT records are added, and each zone goes to
// the provider in a call of its own, in zone order: a record and its
// ownership TXT always travel together, in the record's zone (an ownership
// TXT is tied to its record by its ownedRecord label, provider.GroupKey),
// even when a prefix puts the TXT name in another zone. A zone that fails
// does not stop the others; the error joins one provider.ZoneError per
// failed zone. Wrappers such as provider/batch cut a zone's call further,
// by the same groups.
//
// Without a preceding Records call (or after a failed ApplyChanges, which
// leaves the zone state unknown) ApplyChanges behaves like external-dns: it
// creates every TXT and rebuilds old values from the labels (encrypted with
// the nonce label when the record carries one, in plain text otherwise).
//
// # Failures
//
// Records and TXT records travel in one call, and every cycle plans from a
// fresh read. After any failure — one zone of several, or a change a
// batching wrapper reports as rejected — the registry forgets what it read
// of every zone's ownership TXT records, so it never writes a TXT on the
// belief that a failed or rejected call wrote or removed another. A
// provider that applies a call atomically (provider/inmemory,
// provider/rfc2136 per UPDATE message) leaves nothing half-done; one that
// applies it change by change, in list order, and stops half-way leaves at
// most ownership TXT records whose record is missing, and two clean cycles
// (a Reconciler's, or Records then ApplyChanges) repair them:
//
//   - Records reports a typed TXT of OwnerID (or OldOwnerID) of a managed
//     type, named exactly as the registry names it, owning a name inside the
//     provider's domain filter, whose record is missing (no record at the
//     name it owns, none at its own name — which it may own as a legacy
//     untyped TXT — and no unowned "*" record beside it, which it may own
//     under another wildcard replacement), as a repair
//     ([Registry.PendingRepairs]);
//   - when the plan creates the record, ApplyChanges reuses the TXT (or
//     rewrites it when its labels differ); otherwise ApplyChanges deletes
//     the TXT, with the value read, even when the plan has no change (a
//     Reconciler calls it when PendingRepairs reports work), and logs it
//     at V(1).
//
// An ownership TXT of ours never lends ownership to a record that appears
// at its name from elsewhere. The registry remembers, in memory, the TXT
// records a read found without their record and the records a failed call
// tried to create or delete (with their targets; and, for TXT records
// already remembered, those of the updates it tried). When a later read
// finds a record at such a TXT's name, the record is ours only if it holds
// exactly targets this registry tried to write or held there (an ambiguous
// failure that in fact succeeded); otherwise it gets no labels from the TXT
// — it is never updated or deleted — and the TXT is deleted as a repair.
// A successful call forgets the TXT records it wrote, reused or deleted.
// The limit: the memory belongs to the Registry value; after a process
// restart, a TXT of ours next to a record is trusted, as external-dns
// trusts it. A record with targets equal to the ones we wrote cannot be
// told from ours either.
//
// [Registry.SettingsWarnings] reports, from the last read, settings that
// leave records owned today without owner: ownership TXT records of
// OwnerID or OldOwnerID whose names do not read under the configured
// Prefix, Suffix and WildcardReplacement, ownership TXT records of ours
// whose ambiguous names own neither of two existing records, and records
// owned by a single other owner while none is ours (a changed owner id?).
//
// # Desired records
//
// The registry implements registry.DesiredChecker: a desired TXT record
// whose value it would read as one of its ownership records — plain text,
// refused by endpoint.Endpoint.ValidateDesired already, or a value
// encrypted with its key, such as a copy of an ownership value read from
// the zone — is refused as invalid input of its object, never created: at
// a free name it would lend our ownership to whatever record appears
// there. So is a desired record that cannot be written beside an
// ownership TXT record the read found (a TXT record whose record set is
// that ownership TXT, a CNAME at its name; [ErrOwnershipTXTInTheWay]): the
// planner never sees ownership records, and the provider would refuse the
// create, on some providers with the rest of its zone, or replace the
// ownership record.
//
// # Guarantees
//
// The registry declares the guarantees of its provider
// (provider.GuaranteeDeclarer), so that a Reconciler holding the registry
// enforces them: endpoints the provider cannot store as asked, such as a
// set identifier on a provider that drops set identifiers, are never
// planned.
//
// # Shared record sets
//
// With [Config.Shared] several owners — clusters, usually, each with its
// own owner id — publish one record set together: app.example.com A holds
// the load-balancer addresses of every cluster that asks for it, and each
// cluster adds and removes only its own. It is off by default, and on only
// for the names and types [SharedConfig] selects. The zone is the only
// store: every owner reads back who contributed what after a restart.
//
// In the zone, a shared record set app.example.com/A with two contributors
// looks like this (values shown in plain text; with an EncryptionKey they
// are encrypted like every ownership value):
//
//	app.example.com                    A    192.0.2.10 198.51.100.20
//	a-app.example.com                  TXT  "heritage=external-dns,external-dns/owner=zonesync-shared,external-dns/shared=1"
//	_zs-<hash of c1>-a.app.example.com TXT  "heritage=external-dns,external-dns/owner=zonesync-shared,external-dns/shared=1,
//	                                          external-dns/shared-owner=c1,external-dns/shared-record=app.example.com,
//	                                          external-dns/shared-refresh=300,external-dns/shared-seen=1795934925,
//	                                          external-dns/shared-targets=192.0.2.10,external-dns/shared-ttl=60,
//	                                          external-dns/shared-type=A,external-dns/resource=service/default/app"
//	_zs-<hash of c2>-a.app.example.com TXT  (the same for c2)
//
// (each value is one line; labels are in byte order). The record's
// ownership TXT — named as for any record, with the configured Prefix,
// Suffix and WildcardReplacement — names [SharedOwnerID] as the owner:
// external-dns, and a TXT registry not in shared mode, read the record as
// somebody else's and leave it alone. Each contribution lives in a TXT
// record of its own, at "_zs-" + 12 characters of the base32 SHA-256 of
// the owner id and set identifier + "-" + the type (+ "-w" for a wildcard
// record, whose "*" label it replaces), in front of the record's name; it
// carries the record set's set identifier. Targets, properties
// ("name!value") and the owner id are %-escaped and ";"-separated; seen is
// when the owner last wrote it, in Unix seconds, and refresh its
// heartbeat, in seconds. A contribution found at another name than the one
// its owner writes is ignored.
//
// The record holds the merge of the live contributions, the same whichever
// owner computes it, so owners never undo each other's writes: the union
// of the targets, sorted; the lowest TTL set; for each provider-specific
// property, the lowest value any contribution sets. A CNAME (and an alias
// record) holds one target: a contribution that asks for another target
// than the others is refused ([ErrSharedConflict]; the planner skips the
// create as unownable); if two owners joined with different targets at the
// same moment, the record holds the first owner's by owner id.
//
// What the planner sees: Records returns, for each shared record set, this
// owner's contribution as a record of ours (its targets, TTL and
// properties, verdict [endpoint.OwnedByUs]), and nothing when it does not
// contribute; [Registry.SharedRecords] reports the record sets themselves,
// with every contribution. A create of a record set in shared mode joins
// it (or creates it, at a free name); an update changes our contribution;
// a delete removes it. ApplyChanges turns each into the writes of the
// contribution, the record set (created, updated to the new merge, or
// deleted with its ownership TXT when the last owner leaves) and the
// ownership TXT, in the same provider call as the other changes (one
// UPDATE message on provider/rfc2136). Creates are written contribution
// first, ownership TXT, record; deletes record first: a provider that
// stops half-way leaves a state the next read repairs.
//
// A record set in shared scope that is not shared — owned the usual way
// by anybody (external-dns, a registry not in shared mode, even this owner
// id from before shared mode was turned on), or by nobody — is never
// joined: the planner sees it as it is (skipped as foreign-owner or
// unowned), and a create that reaches ApplyChanges anyway is refused with
// [ErrSharedConflict]. The one exception is the record a half-done leaving
// leaves without its ownership TXT (see below): a record of nobody's, at a
// record set with live contributions, whose every target one of them asks
// for — which cannot be told from the shared record, as a record holding
// exactly the targets a registry wrote cannot be told from its own. A record that appears at a shared record set the
// previous read found missing, holding targets no contribution asks for,
// is somebody else's: it is left alone and the shared ownership TXT beside
// it is deleted, so that it is lent to nobody.
//
// Repairs ([Registry.PendingRepairs]): at a record set it contributes to,
// an owner rewrites the record when it differs from the merge (a write lost
// to a concurrent one, a cut connection) or lacks its ownership TXT, and
// its contribution when its heartbeat is due ([SharedConfig.Heartbeat]);
// any owner in shared mode deletes the record set and ownership TXT that no
// contribution keeps, and, with [SharedConfig.ExpireAfter], the
// contributions of others not refreshed for that long (or for three of
// their own heartbeats, if longer), with their targets. A Reconciler
// counts each expired contribution as a delete for its safety threshold.
//
// Guarantees and windows:
//
//   - No owner writes another's contribution; every owner writes the
//     record. Two owners applying at the same time each write the merge
//     they read, so one may drop the other's new target: the owner whose
//     target is missing restores it at its next cycle. After the changes
//     stop, one clean cycle of every owner (two at most, when cycles
//     overlap) leaves the record holding exactly the union of the live
//     contributions.
//   - The last owner leaving while another joins may delete the record
//     with its ownership TXT — or, on a provider that deletes the values it
//     read one by one (RFC 2136), the ownership TXT and the leaver's targets
//     only, leaving the joiner's. The joiner's next cycle creates the record
//     again, or adopts what is left: a record of nobody's whose every
//     target a live contribution asks for is the shared record, and its
//     ownership TXT is written again.
//   - A contribution of an owner that stopped stays, with its targets,
//     until it expires at an owner with ExpireAfter set; without one, until
//     it is deleted by hand. A live owner whose cycles fail for longer than
//     ExpireAfter loses its targets until its next successful cycle. The
//     clocks of the owners must agree to well within ExpireAfter.
//   - Records owned before shared mode was turned on keep their single
//     owner until deleted. OldOwnerID does not apply to contributions.
//   - Every owner must use the same Prefix, Suffix and WildcardReplacement,
//     as with external-dns.
//
// # Cache
//
// The registry reads the provider on every Records call. To list a large
// zone less often, wrap the provider in the records cache of
// [github.com/zonesync/zonesync/provider/cache] before giving it to [New]:
// the cache answers Records with deep copies for its TTL, and every
// ApplyChanges the registry makes through it drops the cached records. A
// wrapped provider, the cache included, is read with Records:
// [provider.RecordVisitor] serves only the provider given to New itself.
//
// # Logging
//
// Records and ApplyChanges log through the logger of their context
// (logr.FromContextOrDiscard; a Reconciler puts its Logger there): V(0)
// for records left out and obsolete TXT records, V(1) for details of
// every read and write. The Registry has no logger of its own: every
// method that logs takes a context.
//
// # Concurrency
//
// A Registry is safe for concurrent use. ApplyChanges calls are serialised;
// Records may run at the same time. The registry remembers the ownership TXT
// records of the last read to make the next ApplyChanges exact, and the
// repairs it found: call Records, then ApplyChanges, as a Reconciler does.
// A read that overlapped an ApplyChanges call does not update what the
// registry remembers.
//
// # Errors
//
// [New] returns errors wrapping [ErrInvalidConfig] that name the field at
// fault. Provider errors are wrapped with %w, so provider.SoftError and the
// provider's own sentinels stay visible to errors.Is.
package txt
