package intree_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"

	"github.com/zonesync/zonesync/provider/externaldns/intree"
)

// TestConstructors: every --provider value of external-dns v0.23 has a
// constructor, but civo and exoscale, which this module cannot build; and
// the map holds no other name. (cloud_test.go in provider/externaldns
// constructs every one of them.)
func TestConstructors(t *testing.T) {
	ctors := intree.Constructors()
	notBuildable := map[string]bool{xconfig.ProviderCivo: true, xconfig.ProviderExoscale: true}
	for _, name := range xconfig.ProviderNames {
		_, ok := ctors[name]
		assert.Equal(t, !notBuildable[name], ok, "--provider=%s", name)
	}
	assert.Len(t, ctors, len(xconfig.ProviderNames)-len(notBuildable))
	for name, ctor := range ctors {
		assert.NotNil(t, ctor, "--provider=%s", name)
	}
	ctors["aws"] = nil
	assert.NotNil(t, intree.Constructors()["aws"], "every call returns a new map")
}
