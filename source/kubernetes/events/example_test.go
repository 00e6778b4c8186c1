package events_test

import (
	"context"
	"fmt"

	"k8s.io/client-go/tools/record"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes/events"
)

func ExampleNew() {
	// In a cluster: a recorder from record.NewBroadcaster().NewRecorder(...).
	recorder := record.NewFakeRecorder(10)

	reg, err := txt.New(inmemory.New(inmemory.Options{Zones: []string{"example.com"}}), txt.Config{OwnerID: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	obs, err := events.New(recorder, events.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := &zonesync.Reconciler{
		Source:   source.NewStatic(rec("www.example.com", "192.0.2.10", "service/default/web")),
		Registry: reg,
		Observer: zonesync.Observers(obs),
	}
	for range 2 { // the second cycle changes nothing and records nothing
		if _, err := r.RunOnce(context.Background()); err != nil {
			fmt.Println(err)
			return
		}
	}
	for _, e := range drain(recorder) {
		fmt.Println(e)
	}
	// Output:
	// Normal RecordReady Created record:www.example.com,type:A,ttl:0,targets:192.0.2.10
}
