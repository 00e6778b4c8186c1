package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-logr/logr/testr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/inventory"
	"github.com/zonesync/zonesync/provider/inmemory"
)

// TestInventoryOfServices: after a cycle the inventory lists each Service's
// record with its object and cycle outcome, grouped by the Service's team
// label read from the informer cache, and its handler serves it as JSON
// and as a page that filters by group.
func TestInventoryOfServices(t *testing.T) {
	ctx := context.Background()
	cart := service("shop", "cart", map[string]string{alpha + hostnameAnnotation: "cart.example.com"}, corev1.LoadBalancerIngress{IP: "192.0.2.10"})
	cart.Labels = map[string]string{"team": "payments"}
	web := service("default", "web", map[string]string{alpha + hostnameAnnotation: "web.example.com"}, corev1.LoadBalancerIngress{IP: "192.0.2.11"})
	client := fake.NewClientset(cart, web)
	src, factory, err := newServiceSource(client, 0)
	require.NoError(t, err)
	cfg := defaultConfig()
	inv, err := newInventory(factory.Core().V1().Services().Lister(), cfg)
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	go func() { _ = startInformers(factory)(runCtx) }()
	require.NoError(t, src.WaitForSync(ctx))
	zone := inmemory.New(inmemory.Options{Zones: []string{cfg.zone}})
	c, err := newDNSController(src, zone, client, cfg, testr.New(t), inv)
	require.NoError(t, err)
	_, err = c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err)

	h, err := inventory.NewHandler(inv, inventory.HandlerOptions{})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/?format=json")
	require.NoError(t, err)
	defer resp.Body.Close()
	var page struct {
		Names []inventory.View `json:"names"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
	var rows []string
	for _, v := range page.Names {
		rows = append(rows, strings.Join([]string{v.Name, v.RecordType, strings.Join(v.Targets, ","), v.SourceType, v.Namespace, v.Object, strings.Join(v.Groups, ","), string(v.Outcome.State), v.Owner}, " "))
	}
	assert.Equal(t, []string{
		"cart.example.com A 192.0.2.10 service shop cart payments applied zonesync-operator",
		"web.example.com A 192.0.2.11 service default web unassigned applied zonesync-operator",
	}, rows)

	resp, err = http.Get(srv.URL + "/?group=payments")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(body), `data-name="cart.example.com"`)
	assert.NotContains(t, string(body), `data-name="web.example.com"`)
}

func TestManagerOptionsServeMetricsAndInventory(t *testing.T) {
	opts := managerOptions(defaultConfig())
	assert.Equal(t, ":8080", opts.Metrics.BindAddress)
	cfg := defaultConfig()
	cfg.metricsAddr = "0"
	assert.Equal(t, "0", managerOptions(cfg).Metrics.BindAddress)
}
