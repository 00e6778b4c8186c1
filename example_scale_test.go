package zonesync_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/batch"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/providertest"
	"github.com/zonesync/zonesync/provider/ratelimit"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// A Reconciler over a DNS API with limits (here a fake that takes at most
// 4 record values per call and refuses one record): the TXT registry
// applies one zone per call, the batch wrapper cuts each zone's changes
// into batches and isolates the refused record, the rate limiter spaces
// the calls. The refused record is named, with its ownership TXT, in the
// error and in Cycle.Rejected; everything else is applied.
func ExampleReconciler_applyingAtScale() {
	ctx := context.Background()
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com", "example.org"}})
	api := providertest.NewLimitedProvider(zone, providertest.APILimits{MaxRecords: 4, Poisoned: []string{"bad.example.org"}})
	limited, err := ratelimit.New(api, ratelimit.Options{Rate: 50, Burst: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	batched, err := batch.New(limited, batch.Options{MaxRecords: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	reg, err := txt.New(batched, txt.Config{OwnerID: "me"})
	if err != nil {
		fmt.Println(err)
		return
	}
	src := source.NewStatic(
		endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.1"),
		endpoint.NewEndpoint("api.example.com", endpoint.RecordTypeA, "192.0.2.2"),
		endpoint.NewEndpoint("www.example.org", endpoint.RecordTypeA, "192.0.2.3"),
		endpoint.NewEndpoint("bad.example.org", endpoint.RecordTypeA, "192.0.2.4"),
	)
	rec := &zonesync.Reconciler{Source: src, Registry: reg}

	_, err = rec.RunOnce(ctx)
	fmt.Println("soft:", errors.Is(err, provider.SoftError))
	for _, r := range provider.Rejected(err) {
		fmt.Println("rejected:", r.Action, r.Endpoint.Key())
	}
	recs, _ := zone.Records(ctx)
	fmt.Println("records and TXT applied:", len(recs))
	// Output:
	// soft: true
	// rejected: create a-bad.example.org/TXT
	// rejected: create bad.example.org/A
	// records and TXT applied: 6
}
