package zonesync_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

func ExampleReconciler_RunOnce() {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	src := source.NewStatic(
		endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.10"),
		endpoint.NewEndpointWithTTL("api.example.com", endpoint.RecordTypeCNAME, 300, "www.example.com"),
	)
	rec := &zonesync.Reconciler{Source: src, Registry: reg}

	// RunOnce returns the cycle: its changes, skips, counts and error.
	c, err := rec.RunOnce(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Changes)

	c, err = rec.RunOnce(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("second cycle:", c.Changes)

	records, _ := zone.Records(ctx)
	for _, r := range records {
		fmt.Println(r.DNSName, r.RecordType, r.Targets)
	}
	// Output:
	// ACTION  NAME             TYPE   SET  TTL  TARGETS          WHY
	// create  api.example.com  CNAME  -    300  www.example.com  -
	// create  www.example.com  A      -    -    192.0.2.10       -
	// second cycle: no changes
	// a-www.example.com TXT "heritage=external-dns,external-dns/owner=example"
	// api.example.com CNAME www.example.com
	// cname-api.example.com TXT "heritage=external-dns,external-dns/owner=example"
	// www.example.com A 192.0.2.10
}

// websites is a custom source: one A record per Website object, keyed
// "website/<namespace>/<name>". A Website whose host name is not valid is
// reported in a *source.PartialError under its key.
type websites map[string][2]string // key -> host, address

func (w websites) Endpoints(context.Context) ([]*endpoint.Endpoint, error) {
	var eps []*endpoint.Endpoint
	var failed *source.PartialError
	for _, key := range slices.Sorted(maps.Keys(w)) {
		host, addr := w[key][0], w[key][1]
		if err := endpoint.ValidateDNSName(host); err != nil {
			failed = failed.Add(key, fmt.Errorf("spec.host: %w", err))
			continue
		}
		eps = append(eps, endpoint.NewEndpoint(host, endpoint.RecordTypeA, addr).WithLabel(endpoint.ResourceLabelKey, key))
	}
	return eps, failed.OrNil()
}

func (websites) AddEventHandler(context.Context, func()) {}

// An operator calls RunOnce from its reconcile loop and writes what the
// cycle did with each of its objects into the object's status: every
// object the cycle heard of has a status, the ones its source could not
// read too.
func ExampleCycle_ResourceStatuses() {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	other, _ := txt.New(zone, txt.Config{OwnerID: "someone-else"})
	_ = other.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("shop.example.com", endpoint.RecordTypeA, "192.0.2.99"),
	}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "my-operator"})
	if err != nil {
		fmt.Println(err)
		return
	}
	rec := &zonesync.Reconciler{Registry: reg, Source: websites{
		"website/default/blog":   {"blog.example.com", "192.0.2.10"},
		"website/default/shop":   {"shop.example.com", "192.0.2.20"},
		"website/default/broken": {"bad_host!.example.com", "192.0.2.30"},
	}}

	c, err := rec.RunOnce(ctx)
	// err holds the partial error of the source: the other objects were
	// reconciled.
	fmt.Println("partial:", errors.As(err, new(*source.PartialError)))
	for _, obj := range c.ResourceStatuses() {
		line := obj.Resource + ": " + string(obj.State)
		if obj.Reason != "" {
			line += " (" + string(obj.Reason) + ")"
		}
		if obj.Message != "" {
			line += ": " + obj.Message
		}
		fmt.Println(line)
	}
	// Output:
	// partial: true
	// website/default/blog: applied
	// website/default/broken: invalid (source-error): spec.host: DNS name "bad_host!.example.com" contains '!' (U+0021 at offset 8) in label "bad_host!": only letters, digits, "-", "_" and dots between labels are allowed
	// website/default/shop: skipped (foreign-owner): shop.example.com/A: skipped (foreign-owner): the record is owned by "someone-else", not "my-operator"
}

// printCycles is an Observer that prints each cycle and calls after with
// the cycle's number.
type printCycles struct {
	n     int
	after func(n int)
}

func (o *printCycles) CycleStarted(context.Context, time.Time) {}

func (o *printCycles) CycleFinished(_ context.Context, c zonesync.Cycle) {
	o.n++
	fmt.Printf("cycle %d: %d desired, %d created, %d updated, %d deleted\n", o.n, c.Desired, c.Creates, c.Updates, c.Deletes)
	o.after(o.n)
}

func ExampleReconciler_Run() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	src := source.NewStatic(endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.10"))
	rec := &zonesync.Reconciler{
		Source:               src,
		Registry:             reg,
		Interval:             time.Hour,             // regular resync
		MinEventSyncInterval: 10 * time.Millisecond, // events wait at least this long after a cycle
		Observer: &printCycles{after: func(n int) {
			switch n {
			case 1:
				// Run registered an event handler on src: this Set
				// schedules the next cycle, long before the hour is up.
				src.Set(endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.20"))
			case 2:
				cancel()
			}
		}},
	}
	err = rec.Run(ctx) // the first cycle runs at once
	fmt.Println("Run returned", err)
	// Output:
	// cycle 1: 1 desired, 1 created, 0 updated, 0 deleted
	// cycle 2: 1 desired, 0 created, 1 updated, 0 deleted
	// Run returned <nil>
}

func ExampleReconciler_Preview() {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: []*endpoint.Endpoint{
		// A record another owner manages, with its ownership TXT.
		endpoint.NewEndpoint("shop.example.com", endpoint.RecordTypeA, "198.51.100.7"),
		endpoint.NewEndpoint("a-shop.example.com", endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=team-b"`),
	}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "team-a"})
	if err != nil {
		fmt.Println(err)
		return
	}
	rec := &zonesync.Reconciler{
		Source: source.NewStatic(
			endpoint.NewEndpoint("shop.example.com", endpoint.RecordTypeA, "192.0.2.1"),
			endpoint.NewEndpoint("blog.example.com", endpoint.RecordTypeA, "192.0.2.2"),
		),
		Registry: reg,
	}
	preview, err := rec.Preview(ctx) // nothing is applied
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(preview)
	// Output:
	// ACTION  NAME              TYPE  SET  TTL  TARGETS    WHY
	// create  blog.example.com  A     -    -    192.0.2.2  -
	// skipped:
	// ACTION  NAME              TYPE  SET  REASON         DETAIL
	// update  shop.example.com  A     -    foreign-owner  the record is owned by "team-b", not "team-a"
	// safety: ok (0 owned records)
	// warning: 1 record(s) (e.g. "shop.example.com") are owned by "team-b" and none by "team-a": they are left as they are (never updated or deleted, and no record is created at their names); if "team-b" is what OwnerID used to be, set OwnerID back to it, or set OldOwnerID to "team-b" to take the records over (their ownership TXT records are then rewritten with owner "team-a")
}

func ExampleReconciler_RunOnce_unsafePlan() {
	ctx := context.Background()
	var seed []*endpoint.Endpoint
	for i := range 10 {
		name := fmt.Sprintf("svc-%d.example.com", i)
		seed = append(seed,
			endpoint.NewEndpoint(name, endpoint.RecordTypeA, "192.0.2.1"),
			endpoint.NewEndpoint("a-"+name, endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=example"`))
	}
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}, Records: seed})
	reg, err := txt.New(zone, txt.Config{OwnerID: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The source briefly returns nothing: the plan would delete everything.
	rec := &zonesync.Reconciler{Source: source.NewStatic(), Registry: reg}
	_, err = rec.RunOnce(ctx)

	var unsafe *plan.UnsafePlanError
	if errors.As(err, &unsafe) {
		fmt.Printf("refused: %d deletes of %d owned records\n", unsafe.Deletes, unsafe.Owned)
	}
	fmt.Println(errors.Is(err, zonesync.ErrUnsafePlan))
	records, _ := zone.Records(ctx)
	fmt.Println(len(records), "records still in the zone")
	// Output:
	// refused: 10 deletes of 10 owned records
	// true
	// 20 records still in the zone
}
