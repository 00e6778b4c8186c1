package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/provider/rfc2136"
)

func TestReadTSIGKey(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		want    *rfc2136.TSIG
		wantErr string
	}{
		{
			name: "as tsig-keygen writes it",
			file: "key \"zonesync-example\" {\n\talgorithm hmac-sha256;\n\tsecret \"c2VjcmV0\";\n};\n",
			want: &rfc2136.TSIG{KeyName: "zonesync-example", Algorithm: "hmac-sha256", Secret: "c2VjcmV0"},
		},
		{
			name: "comments, one line, unquoted fully qualified name",
			file: "// for the test zone\nkey zonesync.example. { algorithm hmac-sha512; secret \"c2VjcmV0\"; };\n",
			want: &rfc2136.TSIG{KeyName: "zonesync.example.", Algorithm: "hmac-sha512", Secret: "c2VjcmV0"},
		},
		{name: "no key", file: "options { };\n", wantErr: "found 0 key statements, want one"},
		{name: "two keys", file: `key "a" { algorithm hmac-sha256; secret "c2VjcmV0"; }; key "b" { algorithm hmac-sha256; secret "c2VjcmV0"; };`, wantErr: "found 2 key statements"},
		{name: "no secret", file: `key "a" { algorithm hmac-sha256; };`, wantErr: `key "a" has no secret statement`},
		{name: "no algorithm", file: `key "a" { secret "c2VjcmV0"; };`, wantErr: `key "a" has no algorithm statement`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "zonesync.key")
			writeFile(t, path, tt.file)
			got, err := readTSIGKey(path)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				assert.ErrorContains(t, err, path, "names the file")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestShippedKeyFile: the key file named.conf includes is one run.sh's
// program can read.
func TestShippedKeyFile(t *testing.T) {
	key, err := readTSIGKey("zonesync.key")
	require.NoError(t, err)
	assert.Equal(t, "zonesync-example", key.KeyName)
	assert.Equal(t, "hmac-sha256", key.Algorithm)
	_, err = rfc2136.New(rfc2136.Config{Server: "127.0.0.1:10053", Zones: []string{"example.test"}, TSIG: key})
	require.NoError(t, err, "the secret is valid base64")
}
