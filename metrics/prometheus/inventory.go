package prometheus

import (
	"fmt"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zonesync/zonesync/inventory"
)

// InventoryCollector exports the counts of an [inventory.Inventory]:
// zonesync_inventory_names (records by source type and group) and
// zonesync_inventory_verification_names (records by verification status).
// It reads [inventory.Inventory.Stats] when scraped, so the gauges are
// always those of the inventory's last cycle; it keeps no state.
type InventoryCollector struct {
	inv          *inventory.Inventory
	names        *prometheus.Desc
	verification *prometheus.Desc
}

var _ prometheus.Collector = (*InventoryCollector)(nil)

// NewInventoryCollector registers a collector of inv's counts on reg, with
// the constant labels of opts. It fails, with an error wrapping
// [ErrInvalidOptions], for a nil reg or inv, and when the collector cannot
// be registered (the same constant labels already registered on reg).
func NewInventoryCollector(reg prometheus.Registerer, inv *inventory.Inventory, opts Options) (*InventoryCollector, error) {
	switch {
	case reg == nil:
		return nil, fmt.Errorf("metrics/prometheus: %w: the Registerer is nil", ErrInvalidOptions)
	case inv == nil:
		return nil, fmt.Errorf("metrics/prometheus: %w: the Inventory is nil", ErrInvalidOptions)
	}
	c := &InventoryCollector{
		inv: inv,
		names: prometheus.NewDesc("zonesync_inventory_names",
			"Records in the inventory, by source type and group; a record in several groups counts in each, one in none under group \"\".",
			[]string{labelSourceType, labelGroup}, opts.ConstLabels),
		verification: prometheus.NewDesc("zonesync_inventory_verification_names",
			"Records in the inventory, by verification status (sync, notsync, notavailable, unverified).",
			[]string{labelStatus}, opts.ConstLabels),
	}
	if err := reg.Register(c); err != nil {
		return nil, fmt.Errorf("metrics/prometheus: registering the inventory collector: %w", err)
	}
	return c, nil
}

// Describe sends the two descriptors.
func (c *InventoryCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.names
	ch <- c.verification
}

// Collect sends the inventory's counts, one series per source type and
// group, and per verification status.
func (c *InventoryCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.inv.Stats()
	for _, n := range st.BySourceGroup {
		ch <- prometheus.MustNewConstMetric(c.names, prometheus.GaugeValue, float64(n.Names), validUTF8(n.SourceType), validUTF8(n.Group))
	}
	for _, n := range st.ByVerification {
		ch <- prometheus.MustNewConstMetric(c.verification, prometheus.GaugeValue, float64(n.Names), n.Status)
	}
}

// validUTF8 replaces what is not UTF-8 in a label value (a group comes
// from a label value, which Prometheus requires to be UTF-8).
func validUTF8(s string) string {
	return strings.ToValidUTF8(s, "\uFFFD")
}
