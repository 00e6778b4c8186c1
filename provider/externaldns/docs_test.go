package externaldns_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"

	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/provider/externaldns"
)

// guaranteesSection is the heading of the section of docs/providers.md
// that lists what the adapter declares for each provider.
const guaranteesSection = "### What each provider guarantees, and what zonesync does about it"

// guaranteeCells renders one row of that section's table: the provider,
// then what it declares and how its zones are listed (zonesFrom, "" when
// they are not), in the words the document uses.
func guaranteeCells(name string, g provider.Guarantees, zonesFrom string) []string {
	cells := []string{"`" + name + "`", "may change it", "not kept", "not declared", "not declared", "not listed"}
	if g.CreateFailsIfExists {
		cells[1] = "fails"
	}
	if g.KeepsSetIdentifiers {
		cells[2] = "kept"
	}
	if g.RecordTypes != nil {
		cells[3] = strings.Join(g.RecordTypes, ", ")
	}
	if g.ProviderSpecific != nil {
		cells[4] = "`" + strings.Join(g.ProviderSpecific, "`, `") + "`"
	}
	if zonesFrom != "" {
		cells[5] = "`" + zonesFrom + "`"
	}
	return cells
}

// TestDocsListEveryProvidersGuarantees checks the table of docs/providers.md
// against the code, row by row: for every external-dns provider name, the
// guarantees of [externaldns.GuaranteeTable] and how its zones are listed
// (cloudCases' zonesFrom, which TestConstructedProvidersDeclare checks
// against the constructed providers; civo and exoscale, which this module
// cannot build, list none).
func TestDocsListEveryProvidersGuarantees(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "providers.md"))
	require.NoError(t, err)
	text := string(doc)
	start := strings.Index(text, "\n"+guaranteesSection+"\n")
	require.GreaterOrEqual(t, start, 0, "docs/providers.md has no section %q", guaranteesSection)
	section := text[start+len(guaranteesSection)+2:]
	if end := strings.Index(section, "\n#"); end >= 0 {
		section = section[:end]
	}
	row := regexp.MustCompile("(?m)^\\| (`[a-z0-9][a-z0-9-]*`) \\|(.*)\\|$")
	documented := map[string][]string{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		cells := []string{m[1]}
		for c := range strings.SplitSeq(m[2], "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		documented[strings.Trim(m[1], "`")] = cells
	}

	zonesFrom := map[string]string{}
	for _, c := range cloudCases() {
		zonesFrom[c.provider] = c.zonesFrom
	}
	table := externaldns.GuaranteeTable()
	for _, name := range xconfig.ProviderNames {
		g, ok := table[name]
		require.True(t, ok, "the table has no entry for %q", name)
		want := guaranteeCells(name, g, zonesFrom[name])
		got, ok := documented[name]
		if !assert.True(t, ok, "docs/providers.md has no row for %q in %q; it reads:\n| %s |", name, guaranteesSection, strings.Join(want, " | ")) {
			continue
		}
		assert.Equal(t, want, got, "the row of %q differs from the code; it reads:\n| %s |", name, strings.Join(want, " | "))
	}
	assert.Len(t, documented, len(xconfig.ProviderNames), "a row for a name external-dns does not have")
}
