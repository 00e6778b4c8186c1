package txt_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/registry/txt"
)

// external-dns joins its TXT affix to the Unicode first label of a name
// ("a-bücher.example.com"), which a provider storing A-labels holds as
// "xn--a-bcher-p2a.example.com"; zonesync joins it to the A-label
// ("a-xn--bcher-kva.example.com"). Both must read as the ownership of
// xn--bcher-kva.example.com, and the record must be deletable with its TXT.
func TestUnicodeFirstLabelTXTWrittenByExternalDNS(t *testing.T) {
	const record = "xn--bcher-kva.example.com" // bücher.example.com
	tests := []struct {
		name    string
		cfg     txt.Config
		txtName string
	}{
		{"no affix", txt.Config{}, "xn--a-bcher-p2a.example.com"},
		{"dashed prefix", txt.Config{Prefix: "own-"}, "xn--own-a-bcher-zhb.example.com"},
		{"dotted prefix", txt.Config{Prefix: "txt."}, "txt.xn--a-bcher-p2a.example.com"},
		{"suffix", txt.Config{Suffix: "-own"}, "xn--a-bcher-own-vhb.example.com"},
		{"zonesync's own name", txt.Config{}, "a-xn--bcher-kva.example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			z := newZone(a(record, "192.0.2.1"), txtRecord(tt.txtName, v1))
			reg := newRegistry(t, z, tt.cfg)

			name, rtype, ok := reg.Namer().ParseTXTName(tt.txtName)
			require.True(t, ok)
			assert.Equal(t, record, name)
			assert.Equal(t, endpoint.RecordTypeA, rtype)

			recs, err := reg.Records(ctx)
			require.NoError(t, err)
			require.Len(t, recs, 1)
			got := recs[0]
			assert.Equal(t, "default", labelValue(got.Labels, endpoint.OwnerLabelKey))
			assert.Equal(t, "service/default/app", labelValue(got.Labels, endpoint.ResourceLabelKey))
			_, force := got.ProviderSpecific.Get(endpoint.ProviderSpecificForceUpdate)
			assert.False(t, force, "the TXT external-dns wrote counts as written: no rewrite")

			require.NoError(t, reg.ApplyChanges(ctx, &plan.Changes{Delete: recs}))
			assert.Empty(t, zoneDump(t, z), "the record and its TXT are deleted")
		})
	}
}
