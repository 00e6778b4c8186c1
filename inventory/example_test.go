package inventory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/inventory"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

// An Inventory is the Reconciler's Observer: after a cycle it lists every
// record with its object, groups and outcome, and its handler serves the
// same as JSON (and as a page).
func Example() {
	inv, err := inventory.New(inventory.Options{
		Groups: inventory.GroupMapping{ByNamespace: map[string]string{"shop": "commerce"}, Default: "other"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	reg, err := txt.New(zone, txt.Config{OwnerID: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	src := source.NewStatic(
		endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, "service/default/web"),
		endpoint.NewEndpoint("bücher.example.com", endpoint.RecordTypeA, "192.0.2.2").WithLabel(endpoint.ResourceLabelKey, "ingress/shop/books"),
	)
	r := &zonesync.Reconciler{Source: src, Registry: reg, Observer: inv}
	if _, err := r.RunOnce(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range inv.List(inventory.Filter{}).Views {
		fmt.Println(v.DisplayName, v.RecordType, v.Targets, v.SourceType, v.Namespace+"/"+v.Object, v.Groups, v.Outcome.State)
	}

	h, err := inventory.NewHandler(inv, inventory.HandlerOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/inventory?group=commerce&format=json", nil))
	var page struct {
		Total int              `json:"total"`
		Names []inventory.View `json:"names"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rec.Code, page.Total, page.Names[0].Name)
	// Output:
	// www.example.com A [192.0.2.1] service default/web [other] applied
	// bücher.example.com A [192.0.2.2] ingress shop/books [commerce] applied
	// 200 1 xn--bcher-kva.example.com
}
