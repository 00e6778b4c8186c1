package txt

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
)

// FuzzParseValue checks that the registry's fast value parser agrees with
// endpoint.ParseLabelsWithKey on every input, with and without a key.
func FuzzParseValue(f *testing.F) {
	f.Add(`"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app"`)
	f.Add(`heritage=external-dns`)
	f.Add(`,,heritage=external-dns,,external-dns/a=b=c,external-dnsx=1,x=2,heritage=external-dns,`)
	f.Add(`"heritage=nope"`)
	f.Add(`""`)
	f.Add(`"+lvP8q9KHJ6BS6O81i2Q6DLNdf2JSKy8j/gbZKviTZlGYj7q+yDoYMgkQ1hPn6urtGllM5bfFMcaaHto52otQtiOYrX8990J3kQqg4s47m3bH3Ejl8RSxSSuWJM3HJtPghQzYg0/LSOsdQ0="`)
	key := []byte(")K_Fy|?Z.64#UuHm`}[d!GC%WJM_fs{_")
	f.Fuzz(func(t *testing.T, text string) {
		for _, k := range [][]byte{nil, key} {
			want, wantErr := endpoint.ParseLabelsWithKey(text, k)
			got, err := parseValue(text, k)
			if wantErr != nil {
				require.Error(t, err)
				assert.Equal(t, wantErr.Error(), err.Error())
				continue
			}
			require.NoError(t, err)
			assert.Equal(t, want, got)
		}
	})
}
