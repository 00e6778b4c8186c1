package inventory_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/workload"
	"github.com/zonesync/zonesync/inventory"
	"github.com/zonesync/zonesync/plan"
)

// steadyCycle is a cycle of W(n) in steady state: n desired endpoints, n
// current records, nothing to change.
func steadyCycle(n int) zonesync.Cycle {
	desired := make([]*endpoint.Endpoint, n)
	current := make([]*endpoint.Endpoint, n)
	for i := range n {
		desired[i], current[i] = workload.Desired(i), workload.Current(i)
	}
	p := (&plan.Plan{Current: current, Desired: desired, OwnerID: workload.Owner}).Calculate()
	return zonesync.Cycle{Plan: p, Changes: p.Changes, Records: n, Desired: n, Owned: n}
}

func benchInventory(b *testing.B, n int) *inventory.Inventory {
	b.Helper()
	inv, err := inventory.New(inventory.Options{Groups: inventory.GroupMapping{ByNamespace: map[string]string{"default": "web"}, Default: "other"}})
	if err != nil {
		b.Fatal(err)
	}
	inv.CycleFinished(context.Background(), steadyCycle(n))
	return inv
}

// BenchmarkProject is the cost of projecting one cycle of W(N) into an
// inventory that holds the cycle before (CycleFinished: the cycle's
// resource statuses, the views, their order and counts).
func BenchmarkProject(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			inv := benchInventory(b, n)
			c := steadyCycle(n)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				inv.CycleFinished(ctx, c)
			}
		})
	}
}

// BenchmarkHandler serves a page of 500 names of an inventory of W(100k),
// as HTML and as JSON, the first page and one found by a filter that reads
// every record.
func BenchmarkHandler(b *testing.B) {
	inv := benchInventory(b, 100_000)
	h, err := inventory.NewHandler(inv, inventory.HandlerOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, query string }{
		{"page=first/format=html", "/?limit=500"},
		{"page=first/format=json", "/?limit=500&format=json"},
		{"page=filtered/format=html", "/?limit=500&offset=500&status=unchanged&name=svc-9"},
		{"page=filtered/format=json", "/?limit=500&offset=500&status=unchanged&name=svc-9&format=json"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, bc.query, nil)
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code, rec.Body.String())
				}
			}
		})
	}
}
