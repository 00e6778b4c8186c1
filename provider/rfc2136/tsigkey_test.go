package rfc2136_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/provider/rfc2136"
)

// badSecret is a secret that is not base64; no error may show it.
const badSecret = "not*base64*secret"

// TestParseTSIGKey runs each key file through ParseTSIGKey and
// LoadTSIGKeyFile: the same key, or the same error with the file's path in
// front.
func TestParseTSIGKey(t *testing.T) {
	const sha256Key = "key \"zonesync-example\" {\n\talgorithm hmac-sha256;\n\tsecret \"c2VjcmV0\";\n};\n"
	tests := []struct {
		name    string
		file    string
		want    *rfc2136.TSIG
		wantErr []string
	}{
		{
			name: "as tsig-keygen writes it",
			file: sha256Key,
			want: &rfc2136.TSIG{KeyName: "zonesync-example", Algorithm: "hmac-sha256", Secret: "c2VjcmV0"},
		},
		{
			name: "one line, unquoted fully qualified name, // comment",
			file: "// for the test zone\nkey zonesync.example. { algorithm hmac-sha512; secret \"c2VjcmV0\"; };\n",
			want: &rfc2136.TSIG{KeyName: "zonesync.example.", Algorithm: "hmac-sha512", Secret: "c2VjcmV0"},
		},
		{
			name: "# and /* */ comments, a key inside a comment",
			file: "# made by tsig-keygen\n/* key \"old\" { algorithm hmac-sha512;\n secret \"b2xk\"; }; */\n" +
				"key \"k\" { # the key\n algorithm /* inline */ hmac-sha256; // sha256\n secret \"c2VjcmV0\"; };",
			want: &rfc2136.TSIG{KeyName: "k", Algorithm: "hmac-sha256", Secret: "c2VjcmV0"},
		},
		{
			name: "upper-case keywords, quoted algorithm, unquoted secret",
			file: `KEY "k" { ALGORITHM "HMAC-SHA512."; Secret c2VjcmV0; };`,
			want: &rfc2136.TSIG{KeyName: "k", Algorithm: "HMAC-SHA512.", Secret: "c2VjcmV0"},
		},
		{
			name: "CRLF line ends and a byte order mark",
			file: "\ufeffkey \"k\" {\r\n\talgorithm hmac-sha256;\r\n\tsecret \"c2VjcmV0\";\r\n};\r\n",
			want: &rfc2136.TSIG{KeyName: "k", Algorithm: "hmac-sha256", Secret: "c2VjcmV0"},
		},
		{
			name: "other statements of named.conf are skipped",
			file: "options { directory \"/var/cache/bind\"; listen-on { 127.0.0.1; }; };\n" +
				"zone \"example.org\" { type primary; update-policy { grant k zonesub ANY; }; };\n" + sha256Key,
			want: &rfc2136.TSIG{KeyName: "zonesync-example", Algorithm: "hmac-sha256", Secret: "c2VjcmV0"},
		},
		{
			name: "escaped quote in the name, blanks around the values",
			file: `key "a\"b" { algorithm " hmac-sha256 "; secret " c2VjcmV0 "; };`,
			want: &rfc2136.TSIG{KeyName: `a"b`, Algorithm: "hmac-sha256", Secret: "c2VjcmV0"},
		},
		{
			name: "exactly 64 KiB",
			file: sha256Key + "#" + strings.Repeat("x", rfc2136.MaxTSIGKeyFileSize-len(sha256Key)-1),
			want: &rfc2136.TSIG{KeyName: "zonesync-example", Algorithm: "hmac-sha256", Secret: "c2VjcmV0"},
		},
		{name: "empty", file: "", wantErr: []string{"no key statement", `key "name" { algorithm hmac-sha256; secret "..."; };`}},
		{name: "no key", file: "options { };\n", wantErr: []string{"no key statement"}},
		{
			name:    "two keys",
			file:    "key \"a\" { algorithm hmac-sha256; secret \"c2VjcmV0\"; };\nkey \"b\" { algorithm hmac-sha256; secret \"c2VjcmV0\"; };",
			wantErr: []string{`2 key statements, "a" (line 1), "b" (line 2): want one`},
		},
		{name: "no secret", file: `key "a" { algorithm hmac-sha256; };`, wantErr: []string{`line 1: key "a" has no secret`}},
		{name: "no algorithm", file: `key "a" { secret "c2VjcmV0"; };`, wantErr: []string{`line 1: key "a" has no algorithm`}},
		{name: "no name", file: `key { secret "c2VjcmV0"; };`, wantErr: []string{"line 1: key statement without a name"}},
		{name: "empty name", file: `key "" { algorithm hmac-sha256; secret "c2VjcmV0"; };`, wantErr: []string{"key name is empty"}},
		{
			name:    "unknown algorithm",
			file:    "key \"a\" {\n algorithm hmac-md5;\n secret \"c2VjcmV0\";\n};",
			wantErr: []string{`line 2: key "a": algorithm "hmac-md5" is not supported: use hmac-sha256 or hmac-sha512`},
		},
		{
			name:    "bad base64",
			file:    "key \"a\" {\n algorithm hmac-sha256;\n secret \"" + badSecret + "\";\n};",
			wantErr: []string{`line 3: key "a": secret is not standard base64`},
		},
		{name: "empty secret", file: `key "a" { algorithm hmac-sha256; secret ""; };`, wantErr: []string{`key "a": secret is empty`}},
		{
			name:    "misspelt field",
			file:    `key "a" { algorithm hmac-sha256; secrets "c2VjcmV0"; };`,
			wantErr: []string{`key "a": unknown field "secrets": a key statement holds algorithm and secret`},
		},
		{
			name:    "field given twice",
			file:    "key \"a\" {\n algorithm hmac-sha256;\n algorithm hmac-sha512;\n secret \"c2VjcmV0\"; };",
			wantErr: []string{`line 3: key "a": algorithm given twice (first on line 2)`},
		},
		{
			name:    "two words as the secret",
			file:    `key "a" { algorithm hmac-sha256; secret ` + badSecret + ` more; };`,
			wantErr: []string{`key "a": want ";" after the secret value`},
		},
		{name: "no semicolon after the block", file: `key "a" { algorithm hmac-sha256; secret "c2VjcmV0"; }`, wantErr: []string{`want ";" after "}", found the end of the input`}},
		{name: "block not closed", file: `key "a" { algorithm hmac-sha256; secret "c2VjcmV0";`, wantErr: []string{"want algorithm or secret, found the end of the input"}},
		{name: "stray brace", file: "};\n" + sha256Key, wantErr: []string{`line 1: unexpected "}"`}},
		{name: "other statement not closed", file: "options {\n directory \"/x\";\n", wantErr: []string{`line 1: statement "options": a "{" is not closed`}},
		{name: "unterminated comment", file: sha256Key + "\n/* to do", wantErr: []string{`line 6: comment "/*" not terminated`}},
		{name: "unterminated string", file: `key "a { algorithm hmac-sha256; };`, wantErr: []string{`line 1: quoted string not terminated`}},
		{
			name:    "larger than 64 KiB",
			file:    sha256Key + "#" + strings.Repeat("x", rfc2136.MaxTSIGKeyFileSize-len(sha256Key)),
			wantErr: []string{"larger than 65536 bytes (64 KiB)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "zonesync.key")
			require.NoError(t, os.WriteFile(path, []byte(tt.file), 0o600))
			parsed, parseErr := rfc2136.ParseTSIGKey([]byte(tt.file))
			loaded, loadErr := rfc2136.LoadTSIGKeyFile(path)
			if tt.wantErr != nil {
				require.Error(t, parseErr)
				require.Error(t, loadErr)
				assert.Nil(t, parsed)
				assert.Nil(t, loaded)
				assert.True(t, strings.HasPrefix(parseErr.Error(), "rfc2136: TSIG key: "), parseErr.Error())
				assert.True(t, strings.HasPrefix(loadErr.Error(), "rfc2136: TSIG key file "+path+": "), "names the file: %s", loadErr)
				for _, part := range tt.wantErr {
					assert.Contains(t, parseErr.Error(), part)
					assert.Contains(t, loadErr.Error(), part)
				}
				assert.NotContains(t, loadErr.Error(), badSecret, "the secret never shows")
				return
			}
			require.NoError(t, parseErr)
			require.NoError(t, loadErr)
			assert.Equal(t, tt.want, parsed)
			assert.Equal(t, tt.want, loaded)
			_, err := rfc2136.New(rfc2136.Config{Server: "192.0.2.53", Zones: []string{"example.org"}, TSIG: loaded})
			assert.NoError(t, err, "the key plugs into Config.TSIG")
		})
	}
}

// TestLoadTSIGKeyFileErrors: errors about the file itself, not its
// content.
func TestLoadTSIGKeyFileErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		path   string
		check  func(t *testing.T, err error)
		wantIn string
	}{
		{
			name:   "missing file",
			path:   filepath.Join(dir, "missing.key"),
			check:  func(t *testing.T, err error) { assert.ErrorIs(t, err, fs.ErrNotExist) },
			wantIn: "missing.key",
		},
		{
			name:   "a directory",
			path:   dir,
			wantIn: dir,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, err := rfc2136.LoadTSIGKeyFile(tt.path)
			require.Error(t, err)
			assert.Nil(t, key)
			assert.Contains(t, err.Error(), "rfc2136: TSIG key file")
			assert.Contains(t, err.Error(), tt.wantIn)
			if tt.check != nil {
				tt.check(t, err)
			}
		})
	}
}

// FuzzParseTSIGKey feeds arbitrary files to ParseTSIGKey: it must not
// panic, a key it returns must be accepted by New, and that key written
// back in tsig-keygen's format must parse to itself.
func FuzzParseTSIGKey(f *testing.F) {
	for _, s := range []string{
		"key \"zonesync\" {\n\talgorithm hmac-sha256;\n\tsecret \"c2VjcmV0\";\n};\n",
		"# c\nkey k. { algorithm hmac-sha512; /* x */ secret c2VjcmV0; }; // end",
		`options { a { b; }; }; key "a\"b" { secret "c2VjcmV0"; algorithm "HMAC-SHA256."; };`,
		`key "a" { algorithm hmac-sha256; secret "not base64"; };`,
		"key \"a\" { algorithm hmac-sha256; secret \"c2Vj\ncmV0\"; };",
		"/* unterminated",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		key, err := rfc2136.ParseTSIGKey(data)
		if err != nil {
			require.Nil(t, key)
			return
		}
		_, err = rfc2136.New(rfc2136.Config{Server: "192.0.2.53", Zones: []string{"example.org"}, TSIG: key})
		require.NoError(t, err, "a parsed key plugs into Config.TSIG")
		again, err := rfc2136.ParseTSIGKey([]byte(keyFile(key)))
		require.NoError(t, err, "written back: %q", keyFile(key))
		require.Equal(t, key, again)
	})
}

// keyFile writes k as tsig-keygen does, every value quoted.
func keyFile(k *rfc2136.TSIG) string {
	q := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return "key \"" + q.Replace(k.KeyName) + "\" {\n\talgorithm \"" + q.Replace(k.Algorithm) +
		"\";\n\tsecret \"" + q.Replace(k.Secret) + "\";\n};\n"
}
