// Package inventory keeps an inventory of every record a
// [zonesync.Reconciler] manages — its name, type, targets, TTL, the object
// behind it, its owner, what the last cycle did with it, what DNS answers
// for it and the groups it belongs to — and serves it as JSON and as an
// HTML page. It is the read store of the DNSRecord controller design (its
// FQDN views with group mapping), fed by the Reconciler's cycles: a read
// model for people and dashboards that the planner never consults.
//
// # Usage
//
//	inv, err := inventory.New(inventory.Options{
//		Groups: inventory.GroupMapping{
//			ByNamespace: map[string]string{"shop": "commerce"},
//			LabelKeys:   []string{"team"},
//			Default:     "other",
//		},
//	})
//	r := &zonesync.Reconciler{Source: src, Registry: reg, Observer: inv}
//	h, err := inventory.NewHandler(inv, inventory.HandlerOptions{})
//	mux.Handle("/inventory", h) // or http.StripPrefix under a prefix
//
// With other observers, pass zonesync.Observers(metrics, inv).
//
// # Projection
//
// [Inventory.CycleFinished] turns each cycle into views, one per desired
// record ([zonesync.Cycle.ResourceStatuses]), keyed by the object behind
// it: the endpoint's resource label ("kind/namespace/name", see
// [endpoint.ResourceLabelKey]), whose kind is the record's source type and
// whose namespace drives [GroupMapping.ByNamespace]. Records without the
// label are listed under the object "". Each cycle that planned replaces
// the whole inventory, so that:
//
//   - an object's records show the cycle's outcome: applied, unchanged,
//     pending (dry run), skipped with the plan's reason, rejected, failed
//     with the error, invalid;
//   - an object that no longer asks for a record keeps it in the inventory,
//     marked not desired, while DNS holds it (its delete was skipped,
//     failed or waits for a dry run to end), and loses it when the cycle
//     deletes it; an object that disappeared from the source is gone from
//     the inventory once its records are deleted;
//   - an object the source could not read keeps the records of the cycle
//     before, shown with the object's error (the Reconciler holds them in
//     DNS as they are);
//   - a cycle that failed before planning changes no record; only the last
//     cycle's summary ([Inventory.LastCycle]) says it failed.
//
// The owner of a record is the endpoint's owner label, the foreign owner
// in the way of a skipped record, or the registry's owner id. Names are
// keyed in A-label form and shown in Unicode.
//
// # Groups and labels
//
// A cycle carries the endpoints' labels, not the labels of the Kubernetes
// objects behind them. [GroupMapping.LabelKeys] reads the object's labels
// through [Options.ObjectLabels], a function the program gives (it reads
// its informer cache; it is called once per object per cycle), and falls
// back to the endpoint's labels, which a source may set.
//
// # Verification
//
// A record's verification (sync, notsync, notavailable, with the time of
// the check) comes from two places. The Reconciler's own Verifier checks
// the records a cycle created or updated, and the inventory takes those
// results from the Cycle ([zonesync.Cycle.Verified]), stamped with the
// cycle's end. With [Options.Verifier] set, [Inventory.Run], started by
// the program, also checks every other record after each cycle, in the
// background: the Observer call only wakes it, so cycles do not wait for
// DNS. A check stays with a record while the record's targets stay the
// same. Statuses are the words of package verify/result.
//
// # Handler
//
// [NewHandler] serves GET (and HEAD) requests on any path it is mounted
// at. The query parameters filter and page, the same for both formats
// (see [ParseQuery]):
//
//	group   records in this group
//	source  records of this source type ("service", "ingress")
//	status  records in this outcome state (applied, unchanged, pending,
//	        skipped, rejected, failed, invalid) or verification status
//	        (sync, notsync, notavailable, unverified)
//	name    records whose name contains this text (A-label or Unicode)
//	offset  records to skip (default 0)
//	limit   records per page (default HandlerOptions.PageSize, lowered
//	        to HandlerOptions.MaxPageSize)
//	format  json or html; without it, JSON when the Accept header asks
//	        for application/json first, else HTML
//
// A bad parameter gets 400 Bad Request. Records are in a stable order
// (name, set identifier, record type, object). Every response carries an
// ETag (the inventory's generation and the query) and Cache-Control:
// no-cache; a request whose If-None-Match holds it gets 304 Not Modified.
//
// The HTML page is rendered on the server with html/template: the last
// cycle's time and result at the top, a form (method GET) with filters by
// group, status, source type and name, one table of names with a status
// badge for the cycle's outcome and one for DNS, the object behind each,
// and links to the next and previous pages and to the JSON. It has no
// script and loads nothing else (its Content-Security-Policy forbids it),
// so it reads the same without JavaScript; every name, label value and
// message is escaped.
//
// # JSON
//
// The JSON response is an object:
//
//	{
//	  "generation":   number,   grows with every cycle and verification
//	  "lastCycle":    null before the first cycle, else {
//	      "start", "end": RFC 3339 times,
//	      "succeeded", "dryRun", "applied", "planned": booleans,
//	      "error": string ("" on success),
//	      "creates", "updates", "deletes", "skipped": numbers },
//	  "runningSince": RFC 3339 time of the cycle in progress, or null,
//	  "total":        number of records matching the filter,
//	  "offset", "limit": numbers, as applied,
//	  "next":         "?..." query of the next page, "" on the last,
//	  "names": [ {                       the page's records, never null
//	      "name":          A-label form, "displayName": Unicode form,
//	      "recordType", "setIdentifier": strings,
//	      "targets":       [string], "ttl": number (0: not set),
//	      "resource":      "kind/namespace/name" or "",
//	      "sourceType", "namespace", "object": its parts,
//	      "owner":         string, "groups": [string] or null,
//	      "desired":       boolean,
//	      "outcome":       {"state", "reason", "message": strings,
//	                        "at": RFC 3339 time},
//	      "verification":  null, or {"status": "sync" | "notsync" |
//	                        "notavailable", "seen": [string] or null,
//	                        "error": string, "checkedAt": RFC 3339 time}
//	  } ]
//	}
//
// An error is {"error": string}. The fields are those of [View] and
// [CycleSummary]; new fields may be added, none is removed or renamed.
//
// # Metrics
//
// Package metrics/prometheus exports [Inventory.Stats] (records by source
// type and group, and by verification status) with its InventoryCollector.
//
// # Concurrency
//
// Every cycle (and every verification) publishes a new immutable snapshot;
// [Inventory.List], [Inventory.Stats] and the handler read one snapshot
// each without locking, so reads never wait for a cycle and always see one
// cycle's data. Writers (cycles, verification) are serialised. Give each
// Reconciler its own Inventory: a second one would replace the first's
// records.
package inventory
