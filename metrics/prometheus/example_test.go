package prometheus_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	zsprom "github.com/zonesync/zonesync/metrics/prometheus"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/provider/webhook"
	"github.com/zonesync/zonesync/registry/txt"
	"github.com/zonesync/zonesync/source"
)

func ExampleNew() {
	ctx := context.Background()
	reg := prometheus.NewRegistry() // never the default registry
	m, err := zsprom.New(reg, zsprom.Options{ConstLabels: prometheus.Labels{"reconciler": "public"}})
	if err != nil {
		fmt.Println(err)
		return
	}

	zone := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	txtReg, err := txt.New(zone, txt.Config{OwnerID: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	src := source.NewStatic(endpoint.NewEndpoint("www.example.com", endpoint.RecordTypeA, "192.0.2.10"))
	rec := &zonesync.Reconciler{
		Source:   m.Source(src),      // counts source errors
		Registry: m.Registry(txtReg), // counts registry errors
		Observer: m,                  // everything else, from each cycle
	}
	for range 2 {
		if _, err := rec.RunOnce(ctx); err != nil {
			fmt.Println(err)
			return
		}
	}

	// Serve the registry, here on the webhook server's /metrics.
	srv := httptest.NewServer(webhook.NewHandler(zone,
		webhook.ServerOptions{MetricsHandler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{})}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		for _, name := range []string{"external_dns_controller_no_op_runs_total", "external_dns_source_records", "zonesync_changes_applied_total"} {
			if strings.HasPrefix(line, name+"{") {
				fmt.Println(line)
			}
		}
	}
	// Output:
	// external_dns_controller_no_op_runs_total{reconciler="public"} 1
	// external_dns_source_records{reconciler="public",record_type="A"} 1
	// zonesync_changes_applied_total{action="create",reconciler="public"} 1
	// zonesync_changes_applied_total{action="delete",reconciler="public"} 0
	// zonesync_changes_applied_total{action="update",reconciler="public"} 0
}
