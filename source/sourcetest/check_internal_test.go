package sourcetest

import (
	"testing"

	"github.com/zonesync/zonesync/internal/contractkit"
)

// The package documentation lists exactly the rules and the optional
// checks the code defines, in the order they run; an optional check runs
// only when its option asks for it.
func TestRuleTableMatchesCode(t *testing.T) {
	name := func(r rule) string { return r.name }
	all := Options{Deterministic: true, ValidEndpoints: true}
	contractkit.CheckDocItems(t, "doc.go", "Rules", contractkit.Names(rules(), name))
	contractkit.CheckDocItems(t, "doc.go", "Optional checks", contractkit.Names(optional(all), name))
	if len(optional(Options{})) != 0 {
		t.Error("an optional check runs without its option")
	}
}
