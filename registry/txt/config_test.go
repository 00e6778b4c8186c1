package txt_test

import (
	"strings"
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

// TestNewAffixes: New refuses a Prefix or Suffix with which no record could
// have a valid ownership TXT name, naming the field and the value, and
// accepts every affix external-dns users rely on; with an accepted affix a
// short record name is ownable.
func TestNewAffixes(t *testing.T) {
	long := strings.Repeat("p", 64)
	tests := []struct {
		name   string
		cfg    txt.Config
		record string   // checked with CheckOwnable when accepted; default app.example.com
		want   []string // parts of the error; nil: accepted
	}{
		{name: "no affix", cfg: txt.Config{}},
		{name: "dotted prefix", cfg: txt.Config{Prefix: "txt."}},
		{name: "dashed prefix", cfg: txt.Config{Prefix: "txt-"}},
		{name: "templated prefix as the default", cfg: txt.Config{Prefix: "%{record_type}-"}},
		{name: "bare template", cfg: txt.Config{Prefix: "%{record_type}"}},
		{name: "underscore label prefix", cfg: txt.Config{Prefix: "_owner."}},
		{name: "templated prefix ending in a dot", cfg: txt.Config{Prefix: "prefix-%{record_type}."}, record: "example.com"},
		{name: "upper case", cfg: txt.Config{Prefix: "TXT-"}},
		{name: "digits and underscores", cfg: txt.Config{Prefix: "v2_own-"}},
		{name: "dashed suffix", cfg: txt.Config{Suffix: "-own"}},
		{name: "templated suffix", cfg: txt.Config{Suffix: "-%{record_type}"}},
		{name: "suffix starting with a dot", cfg: txt.Config{Suffix: ".own"}},
		{name: "longest prefix a one-character name fits", cfg: txt.Config{Prefix: strings.Repeat("p", 59) + "-"}, record: "x.example.com"},
		{
			name: "exclamation mark",
			cfg:  txt.Config{Prefix: "edns!"},
			want: []string{`Prefix "edns!" cannot form the name of any ownership TXT record`, `'!'`, `"edns!a-x.example.com"`, "no record could be owned"},
		},
		{
			name: "space",
			cfg:  txt.Config{Prefix: "ed ns-"},
			want: []string{`Prefix "ed ns-"`, "white space"},
		},
		{
			name: "space in a suffix",
			cfg:  txt.Config{Suffix: "-ed ns"},
			want: []string{`Suffix "-ed ns"`, "white space"},
		},
		{
			name: "misspelt template",
			cfg:  txt.Config{Prefix: "%{recordtype}-"},
			want: []string{`Prefix "%{recordtype}-"`, `'%'`, `"%{record_type}" stands for the record type`},
		},
		{
			name: "prefix label over 63 octets",
			cfg:  txt.Config{Prefix: long + "."},
			want: []string{`Prefix "` + long + `."`, "64 octets (at most 63 allowed)"},
		},
		{
			name: "prefix that leaves no room for a first label",
			cfg:  txt.Config{Prefix: strings.Repeat("p", 60) + "-"},
			want: []string{"64 octets (at most 63 allowed)"},
		},
		{
			name: "prefix of a dot alone",
			cfg:  txt.Config{Prefix: "."},
			want: []string{`Prefix "."`, "empty label"},
		},
		{
			name: "prefix ending in two dots",
			cfg:  txt.Config{Prefix: "txt.."},
			want: []string{`Prefix "txt.."`, "empty label"},
		},
		{
			name: "suffix ending in a dot",
			cfg:  txt.Config{Suffix: "-own."},
			want: []string{`Suffix "-own."`, "empty label"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.OwnerID = "me"
			reg, err := txt.New(newZone(), tt.cfg)
			if tt.want != nil {
				require.ErrorIs(t, err, txt.ErrInvalidConfig)
				require.ErrorIs(t, err, txt.ErrTXTName)
				for _, part := range tt.want {
					assert.Contains(t, err.Error(), part)
				}
				return
			}
			require.NoError(t, err)
			record := tt.record
			if record == "" {
				record = "app.example.com"
			}
			assert.NoError(t, reg.CheckOwnable(a(record, "192.0.2.1")))
		})
	}
}
