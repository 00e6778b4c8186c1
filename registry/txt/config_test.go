package txt_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/registry/txt"
)

// TestNewErrorsSayWhatToChange: each configuration error names the field,
// says what to set it to and, where records already exist, what the
// setting does to the records owned today.
func TestNewErrorsSayWhatToChange(t *testing.T) {
	tests := []struct {
		name string
		cfg  txt.Config
		want []string
	}{
		{
			name: "no owner id",
			cfg:  txt.Config{},
			want: []string{"OwnerID must not be empty", "--txt-owner-id", `"default"`},
		},
		{
			name: "old owner id equals the owner id",
			cfg:  txt.Config{OwnerID: "me", OldOwnerID: "me"},
			want: []string{`OldOwnerID "me" equals OwnerID`, "set OldOwnerID to the owner id whose records this instance takes over, or leave it empty"},
		},
		{
			name: "comma in the owner id",
			cfg:  txt.Config{OwnerID: "a,b"},
			want: []string{`OwnerID "a,b" must not contain ","`, "choose an owner id without it"},
		},
		{
			name: "prefix and suffix",
			cfg:  txt.Config{OwnerID: "me", Prefix: "p-", Suffix: "-s"},
			want: []string{"mutually exclusive", "keep the one the zone's ownership TXT records were written with", "unowned"},
		},
		{
			name: "encryption key of the wrong size",
			cfg:  txt.Config{OwnerID: "me", EncryptionKey: []byte("c2hvcnQ=")},
			want: []string{"EncryptionKey", "decodes from base64 to 5 bytes", "--txt-encrypt-aes-key", "records they own are left unowned"},
		},
		{
			name: "decrypt only without a key",
			cfg:  txt.Config{OwnerID: "me", EncryptionMode: txt.EncryptionDecryptOnly},
			want: []string{"needs an EncryptionKey", "set the key the values were encrypted with"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := txt.New(newZone(), tt.cfg)
			require.ErrorIs(t, err, txt.ErrInvalidConfig)
			for _, part := range tt.want {
				assert.Contains(t, err.Error(), part)
			}
		})
	}
}
