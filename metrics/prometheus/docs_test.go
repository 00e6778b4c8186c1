package prometheus_test

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/inventory"
	zsprom "github.com/zonesync/zonesync/metrics/prometheus"
)

// TestDocsListEveryMetric checks docs/metrics.md against the metrics New
// registers, both ways, with their types.
func TestDocsListEveryMetric(t *testing.T) {
	doc, err := os.ReadFile("../../docs/metrics.md")
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| (Gauge|Counter|Histogram) \\|")
	documented := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		documented[m[1]] = m[2]
	}

	reg := prometheus.NewRegistry()
	_, err = zsprom.New(reg, zsprom.Options{})
	require.NoError(t, err)
	inv, err := inventory.New(inventory.Options{})
	require.NoError(t, err)
	_, err = zsprom.NewInventoryCollector(reg, inv, zsprom.Options{})
	require.NoError(t, err)
	// Gather leaves out vectors without series: describe instead.
	mfs, err := reg.Gather()
	require.NoError(t, err)
	exported := map[string]string{}
	for _, mf := range mfs {
		exported[mf.GetName()] = map[string]string{"GAUGE": "Gauge", "COUNTER": "Counter", "HISTOGRAM": "Histogram"}[mf.GetType().String()]
	}
	descs := make(chan *prometheus.Desc, 64)
	go func() {
		reg.Describe(descs) // a Registry describes everything registered on it
		close(descs)
	}()
	var names []string
	for d := range descs {
		names = append(names, descName(d))
	}
	slices.Sort(names)
	require.Len(t, names, 32, "a metric was added or removed: update docs/metrics.md and this count")

	var docNames []string
	for n := range documented {
		docNames = append(docNames, n)
	}
	slices.Sort(docNames)
	assert.Equal(t, docNames, names, "docs/metrics.md and the registered metrics differ")
	for n, typ := range exported {
		assert.Equal(t, documented[n], typ, "type of %s", n)
	}
}

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

func descName(d *prometheus.Desc) string {
	if m := fqName.FindStringSubmatch(d.String()); m != nil {
		return m[1]
	}
	return d.String()
}
