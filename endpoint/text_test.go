package endpoint_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
)

func TestPrintable(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"app.example.com", "app.example.com"},
		{"bücher.example", "bücher.example"},
		{"with space", "with space"},
		{"", ""},
		{"evil\nINFO forged line", `"evil\nINFO forged line"`},
		{"nul\x00byte", `"nul\x00byte"`},
		{"cr\rreturn", `"cr\rreturn"`},
		{"\x1b[31mred", `"\x1b[31mred"`},
		{"del\x7f", `"del\x7f"`},
		{"bad\xffutf8", `"bad\xffutf8"`},
		{"zero\u200bwidth", `"zero\u200bwidth"`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, endpoint.Printable(tt.in))
		})
	}
}

// TestKeysAndEndpointsPrintSafely: a hostile name, set identifier or
// target cannot put a control character into the text of a key or an
// endpoint, the forms errors and logs name records by.
func TestKeysAndEndpointsPrintSafely(t *testing.T) {
	ep := endpoint.NewEndpoint("a\nb.example.com", "A\x00", "1.2.3.4\r\nx").WithSetIdentifier("set\x1b[0m").WithProviderSpecific("p\n", "v\t")
	for _, text := range []string{ep.Key().String(), ep.String(), ep.Targets.String()} {
		assert.False(t, strings.ContainsAny(text, "\n\r\x00\x1b\t"), "%q", text)
	}
	assert.Equal(t, `"a\nb.example.com"/"A\x00"/"set\x1b[0m"`, ep.Key().String())
	assert.Equal(t, "app.example.com/A/eu", endpoint.NewEndpoint("app.example.com", "A", "192.0.2.1").WithSetIdentifier("eu").Key().String())
	err := ep.Validate()
	require.Error(t, err)
	assert.False(t, strings.ContainsAny(err.Error(), "\r\x00\x1b\t"), "validation errors quote what they name: %q", err.Error())
	for _, line := range strings.Split(err.Error(), "\n") { // errors.Join puts one cause per line
		assert.False(t, strings.HasPrefix(line, "b.example.com"), "a name cannot start a line of its own: %q", err.Error())
	}
}

func TestValidateDesiredRefusesOwnershipText(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	enc, err := endpoint.LabelsFromMap(map[string]string{"owner": "me"}).SerializeEncrypted(key, true)
	require.NoError(t, err)
	tests := []struct {
		name    string
		ep      *endpoint.Endpoint
		wantErr bool
	}{
		{"plain ownership text", endpoint.NewEndpoint("x.example.com", "TXT", `"heritage=external-dns,external-dns/owner=me"`), true},
		{"unquoted", endpoint.NewEndpoint("x.example.com", "TXT", `heritage=external-dns,external-dns/owner=me`), true},
		{"heritage alone", endpoint.NewEndpoint("x.example.com", "TXT", `heritage=external-dns`), true},
		{"second target", endpoint.NewEndpoint("x.example.com", "TXT", "v=spf1 -all", `"heritage=external-dns"`), true},
		{"other heritage", endpoint.NewEndpoint("x.example.com", "TXT", `"heritage=someone-else,external-dns/owner=me"`), false},
		{"ordinary text", endpoint.NewEndpoint("x.example.com", "TXT", "v=spf1 -all"), false},
		{"encrypted without the key", endpoint.NewEndpoint("x.example.com", "TXT", enc), false},
		{"not a TXT record", endpoint.NewEndpoint("x.example.com", "NAPTR", `1 1 "heritage=external-dns" "" "" .`), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.NoError(t, tt.ep.Validate(), "Validate itself accepts it: registries write such records")
			err := tt.ep.ValidateDesired()
			if !tt.wantErr {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, endpoint.ErrOwnershipText)
			assert.Contains(t, err.Error(), "x.example.com/TXT")
		})
	}
	assert.ErrorIs(t, endpoint.CheckNotOwnershipText(enc, key), endpoint.ErrOwnershipText, "with the key, an encrypted value is ownership text")
	assert.NoError(t, endpoint.CheckNotOwnershipText(enc, nil))
}
