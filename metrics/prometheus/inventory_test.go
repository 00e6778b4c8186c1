package prometheus_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/inventory"
	zsprom "github.com/zonesync/zonesync/metrics/prometheus"
	"github.com/zonesync/zonesync/plan"
)

func TestInventoryCollector(t *testing.T) {
	inv, err := inventory.New(inventory.Options{Groups: inventory.GroupMapping{
		ByNamespace: map[string]string{"shop": "commerce"}, LabelKeys: []string{"team"},
	}})
	require.NoError(t, err)
	desired := []*endpoint.Endpoint{
		endpoint.NewEndpoint("a.example.com", "A", "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, "service/shop/a").WithLabel("team", "web"),
		endpoint.NewEndpoint("b.example.com", "A", "192.0.2.2").WithLabel(endpoint.ResourceLabelKey, "service/shop/b"),
		endpoint.NewEndpoint("c.example.com", "A", "192.0.2.3").WithLabel(endpoint.ResourceLabelKey, "ingress/blog/c").WithLabel("team", "t\xff"),
		endpoint.NewEndpoint("d.example.com", "A", "192.0.2.4").WithLabel(endpoint.ResourceLabelKey, "ingress/blog/d"),
	}
	p := (&plan.Plan{Desired: desired}).Calculate()
	inv.CycleFinished(context.Background(), zonesync.Cycle{Plan: p, Changes: p.Changes})

	reg := prometheus.NewRegistry()
	_, err = zsprom.NewInventoryCollector(reg, inv, zsprom.Options{ConstLabels: prometheus.Labels{"reconciler": "public"}})
	require.NoError(t, err)
	mfs, err := reg.Gather()
	require.NoError(t, err)
	var got []string
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			got = append(got, fmt.Sprintf("%s{%s} %v", mf.GetName(), strings.Join(labels, ","), m.GetGauge().GetValue()))
		}
	}
	assert.Equal(t, []string{
		"zonesync_inventory_names{group=,reconciler=public,source_type=ingress} 1",
		"zonesync_inventory_names{group=commerce,reconciler=public,source_type=service} 2",
		"zonesync_inventory_names{group=t\ufffd,reconciler=public,source_type=ingress} 1",
		"zonesync_inventory_names{group=web,reconciler=public,source_type=service} 1",
		"zonesync_inventory_verification_names{reconciler=public,status=unverified} 4",
	}, got)

	// Registering the same labels twice fails; nil inputs are refused.
	_, err = zsprom.NewInventoryCollector(reg, inv, zsprom.Options{ConstLabels: prometheus.Labels{"reconciler": "public"}})
	var already prometheus.AlreadyRegisteredError
	assert.ErrorAs(t, err, &already)
	_, err = zsprom.NewInventoryCollector(nil, inv, zsprom.Options{})
	assert.ErrorIs(t, err, zsprom.ErrInvalidOptions)
	_, err = zsprom.NewInventoryCollector(reg, nil, zsprom.Options{})
	assert.ErrorIs(t, err, zsprom.ErrInvalidOptions)
}
