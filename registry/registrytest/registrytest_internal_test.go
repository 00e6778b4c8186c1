package registrytest

import (
	"testing"

	"github.com/zonesync/zonesync/internal/contractkit"
)

// The package documentation lists exactly the rules and the optional
// checks the code defines, in the order they run.
func TestRuleTableMatchesCode(t *testing.T) {
	name := func(r rule) string { return r.name }
	contractkit.CheckDocItems(t, "doc.go", "Rules", contractkit.Names(rules(), name))
	contractkit.CheckDocItems(t, "doc.go", "Optional checks", contractkit.Names(optional(Options{PerZone: true, Shared: true}), name))
}
