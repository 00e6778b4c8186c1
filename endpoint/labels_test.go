package endpoint_test

import (
	"bytes"
	"compress/gzip"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
)

// Upstream test vector of COMPAT.md §3.8.
const (
	vectorKey       = ")K_Fy|?Z.64#UuHm`}[d!GC%WJM_fs{_"
	vectorPlain     = "heritage=external-dns,external-dns/owner=foo-owner,external-dns/resource=foo-resource"
	vectorEncrypted = "+lvP8q9KHJ6BS6O81i2Q6DLNdf2JSKy8j/gbZKviTZlGYj7q+yDoYMgkQ1hPn6urtGllM5bfFMcaaHto52otQtiOYrX8990J3kQqg4s47m3bH3Ejl8RSxSSuWJM3HJtPghQzYg0/LSOsdQ0="
	vectorNonce     = "+lvP8q9KHJ6BS6O8"
)

func TestParseLabels(t *testing.T) {
	tests := []struct {
		name string
		text string
		want endpoint.Labels
	}{
		{"quoted", `"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/web"`,
			endpoint.LabelsFromMap(map[string]string{"owner": "default", "resource": "ingress/default/web"})},
		{"unquoted", `heritage=external-dns,external-dns/owner=default`, endpoint.LabelsFromMap(map[string]string{"owner": "default"})},
		{"several quotes stripped", `""heritage=external-dns,external-dns/owner=default""`, endpoint.LabelsFromMap(map[string]string{"owner": "default"})},
		{"heritage only", `"heritage=external-dns"`, endpoint.Labels{}},
		{"heritage anywhere", `external-dns/owner=a,heritage=external-dns`, endpoint.LabelsFromMap(map[string]string{"owner": "a"})},
		{"tokens without = are skipped", `heritage=external-dns,,garbage,external-dns/owner=a,`, endpoint.LabelsFromMap(map[string]string{"owner": "a"})},
		{"other keys are skipped", `heritage=external-dns,foo=bar,owner=x,external-dns/owner=a`, endpoint.LabelsFromMap(map[string]string{"owner": "a"})},
		{"key with external-dns prefix but no slash", `heritage=external-dns,external-dnsfoo=1,external-dns.io/x=2`,
			endpoint.LabelsFromMap(map[string]string{"external-dnsfoo": "1", "external-dns.io/x": "2"})},
		{"values may contain =", `heritage=external-dns,external-dns/resource=a=b=c`, endpoint.LabelsFromMap(map[string]string{"resource": "a=b=c"})},
		{"empty value", `heritage=external-dns,external-dns/owner=`, endpoint.LabelsFromMap(map[string]string{"owner": ""})},
		{"empty key after prefix", `heritage=external-dns,external-dns/=x`, endpoint.LabelsFromMap(map[string]string{"": "x"})},
		{"quotes inside a value are kept", `"heritage=external-dns,external-dns/a=x"y,external-dns/b=z"`, endpoint.LabelsFromMap(map[string]string{"a": `x"y`, "b": "z"})},
		{"later duplicates win", `heritage=external-dns,external-dns/owner=a,external-dns/owner=b`, endpoint.LabelsFromMap(map[string]string{"owner": "b"})},
		{"white space is not trimmed", `heritage=external-dns, external-dns/owner=a,external-dns/resource= r `, endpoint.LabelsFromMap(map[string]string{"resource": " r "})},
		{"multiple heritage tokens", `heritage=external-dns,heritage=external-dns,external-dns/owner=a`, endpoint.LabelsFromMap(map[string]string{"owner": "a"})},
		{"nonce label is parsed like any other", `heritage=external-dns,external-dns/txt-encryption-nonce=abc`,
			endpoint.LabelsFromMap(map[string]string{endpoint.TxtEncryptionNonceLabelKey: "abc"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := endpoint.ParseLabels(tt.text)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseLabelsNotOurs(t *testing.T) {
	for _, text := range []string{
		``,
		`""`,
		`"v=spf1 -all"`,
		`external-dns/owner=default`,
		`heritage=someone-else,external-dns/owner=default`,
		`heritage=External-DNS,external-dns/owner=default`,
		`heritage=external-dns,heritage=other`,
		`heritage=other,heritage=external-dns`,
		`heritage =external-dns`,
		`heritage=external-dns ,external-dns/owner=a`,
	} {
		t.Run(text, func(t *testing.T) {
			got, err := endpoint.ParseLabels(text)
			require.ErrorIs(t, err, endpoint.ErrInvalidHeritage)
			assert.Equal(t, endpoint.Labels{}, got)
			assert.Contains(t, err.Error(), `label text "`+strings.ReplaceAll(text, `"`, `\"`)+`"`, "the error quotes the text")
		})
	}
}

func TestLabelsSerialize(t *testing.T) {
	tests := []struct {
		name   string
		labels endpoint.Labels
		want   string
	}{
		{"empty", endpoint.Labels{}, "heritage=external-dns"},
		{"COMPAT §3.4 example", endpoint.LabelsFromMap(map[string]string{"owner": "default", "resource": "ingress/default/web"}),
			"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/web"},
		{"ownedRecord before owner", endpoint.LabelsFromMap(map[string]string{"owner": "o", "ownedRecord": "a.example.com"}),
			"heritage=external-dns,external-dns/ownedRecord=a.example.com,external-dns/owner=o"},
		{"upper case before lower case", endpoint.LabelsFromMap(map[string]string{"b": "1", "Z": "2", "a": "3", "A": "4"}),
			"heritage=external-dns,external-dns/A=4,external-dns/Z=2,external-dns/a=3,external-dns/b=1"},
		{"nonce excluded", endpoint.LabelsFromMap(map[string]string{"owner": "o", endpoint.TxtEncryptionNonceLabelKey: vectorNonce}),
			"heritage=external-dns,external-dns/owner=o"},
		{"empty value", endpoint.LabelsFromMap(map[string]string{"x": ""}), "heritage=external-dns,external-dns/x="},
		// What ParseLabels can return is written back as it is, even where
		// ValidateLabels refuses it.
		{"values with = (parsed from a TXT record)", endpoint.LabelsFromMap(map[string]string{"resource": "a=b"}), "heritage=external-dns,external-dns/resource=a=b"},
		{"quote inside a value", endpoint.LabelsFromMap(map[string]string{"zz": `x"y`}), `heritage=external-dns,external-dns/zz=x"y`},
		// Labels that would not read back as themselves are left out,
		// never written in a form that parses as other labels.
		{"injected owner left out", endpoint.LabelsFromMap(map[string]string{"owner": "me", "zz": "x,external-dns/owner=victim"}),
			"heritage=external-dns,external-dns/owner=me"},
		{"key with = left out", endpoint.LabelsFromMap(map[string]string{"owner": "me", "zz=x,external-dns/owner": "victim"}),
			"heritage=external-dns,external-dns/owner=me"},
		{"key with , left out", endpoint.LabelsFromMap(map[string]string{"owner": "me", "a,external-dns/owner": "victim"}),
			"heritage=external-dns,external-dns/owner=me"},
		{"value ending with a quote left out", endpoint.LabelsFromMap(map[string]string{"owner": "me", "zz": `x"`}), "heritage=external-dns,external-dns/owner=me"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.labels.Serialize(false))
			assert.Equal(t, `"`+tt.want+`"`, tt.labels.Serialize(true))
		})
	}
}

func TestLabelsRoundTrip(t *testing.T) {
	for _, m := range []map[string]string{
		{},
		{"owner": "default"},
		{"owner": "default", "resource": "service/default/app", "ownedRecord": "app.example.com"},
		{"owner": "o", "custom": "a:b/c", "Upper": "x y", "external-dnsfoo": "1", "idn": "bücher"},
	} {
		labels := endpoint.LabelsFromMap(m)
		for _, quoted := range []bool{false, true} {
			text := labels.Serialize(quoted)
			got, err := endpoint.ParseLabels(text)
			require.NoError(t, err, text)
			assert.Equal(t, labels, got, text)
			assert.Equal(t, text, got.Serialize(quoted), "canonical text is stable")
		}
	}
}

func TestParseEncryptionKey(t *testing.T) {
	t.Run("32 raw bytes used verbatim", func(t *testing.T) {
		key, err := endpoint.ParseEncryptionKey([]byte(vectorKey))
		require.NoError(t, err)
		assert.Equal(t, []byte(vectorKey), key)
	})
	t.Run("raw key is copied", func(t *testing.T) {
		in := []byte(vectorKey)
		key, err := endpoint.ParseEncryptionKey(in)
		require.NoError(t, err)
		in[0] = 'X'
		assert.Equal(t, byte(')'), key[0])
	})
	t.Run("standard base64", func(t *testing.T) {
		key, err := endpoint.ParseEncryptionKey([]byte("ZPitL0NGVQBZbTD6DwXJzD8RiStSazzYXQsdUowLURY="))
		require.NoError(t, err)
		require.Len(t, key, 32)
		assert.Equal(t, []byte{0x64, 0xf8, 0xad, 0x2f}, key[:4])
	})
	t.Run("base64 with + and /", func(t *testing.T) {
		raw := bytes.Repeat([]byte{0xfb, 0xff, 0xbf}, 11)[:32]
		enc := base64.StdEncoding.EncodeToString(raw)
		require.True(t, strings.ContainsAny(enc, "+/"), enc)
		key, err := endpoint.ParseEncryptionKey([]byte(enc))
		require.NoError(t, err)
		assert.Equal(t, raw, key)

		_, err = endpoint.ParseEncryptionKey([]byte(base64.URLEncoding.EncodeToString(raw)))
		require.Error(t, err, "the URL-safe alphabet is rejected")
		assert.Contains(t, err.Error(), "neither 32 bytes nor standard base64")
	})
	t.Run("wrong length after decoding", func(t *testing.T) {
		_, err := endpoint.ParseEncryptionKey([]byte(base64.StdEncoding.EncodeToString(make([]byte, 16))))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "decodes from base64 to 16 bytes, want 32")
	})
	t.Run("wrong raw length", func(t *testing.T) {
		for _, in := range []string{"", "short", strings.Repeat("x", 31), strings.Repeat("x", 33)} {
			_, err := endpoint.ParseEncryptionKey([]byte(in))
			assert.Error(t, err, "%q", in)
		}
	})
}

func TestEncryptionVector(t *testing.T) {
	key := []byte(vectorKey)

	t.Run("decrypt", func(t *testing.T) {
		plain, nonce, err := endpoint.DecryptText(vectorEncrypted, key)
		require.NoError(t, err)
		assert.Equal(t, vectorPlain, plain)
		assert.Equal(t, vectorNonce, nonce)
	})

	t.Run("parse with key, quoted and unquoted", func(t *testing.T) {
		for _, text := range []string{vectorEncrypted, `"` + vectorEncrypted + `"`} {
			labels, err := endpoint.ParseLabelsWithKey(text, key)
			require.NoError(t, err)
			assert.Equal(t, endpoint.LabelsFromMap(map[string]string{
				"owner":                             "foo-owner",
				"resource":                          "foo-resource",
				endpoint.TxtEncryptionNonceLabelKey: vectorNonce,
			}), labels)
		}
	})

	t.Run("encrypt reproduces the value", func(t *testing.T) {
		nonce, err := base64.StdEncoding.DecodeString(vectorNonce)
		require.NoError(t, err)
		got, err := endpoint.EncryptText(vectorPlain, key, nonce)
		require.NoError(t, err)
		assert.Equal(t, vectorEncrypted, got)

		decoded, err := base64.StdEncoding.DecodeString(got)
		require.NoError(t, err)
		assert.Len(t, decoded, 107)
	})

	t.Run("serialize with the nonce label reproduces the value", func(t *testing.T) {
		labels, err := endpoint.ParseLabelsWithKey(`"`+vectorEncrypted+`"`, key)
		require.NoError(t, err)
		got, err := labels.SerializeEncrypted(key, true)
		require.NoError(t, err)
		assert.Equal(t, `"`+vectorEncrypted+`"`, got)
		got, err = labels.SerializeEncrypted(key, false)
		require.NoError(t, err)
		assert.Equal(t, vectorEncrypted, got)
	})
}

// openSealed decrypts an EncryptText result independently of the package.
func openSealed(t *testing.T, text string, key []byte) []byte {
	t.Helper()
	data, err := base64.StdEncoding.DecodeString(text)
	require.NoError(t, err)
	block, err := aes.NewCipher(key)
	require.NoError(t, err)
	aead, err := cipher.NewGCM(block)
	require.NoError(t, err)
	out, err := aead.Open(nil, data[:12], data[12:], nil)
	require.NoError(t, err)
	return out
}

func TestEncryptTextGzipLayout(t *testing.T) {
	key := []byte(vectorKey)
	for _, plain := range []string{vectorPlain, "", "heritage=external-dns", strings.Repeat("heritage=external-dns,", 100)} {
		text, err := endpoint.EncryptText(plain, key, make([]byte, 12))
		require.NoError(t, err)
		compressed := openSealed(t, text, key)
		require.Greater(t, len(compressed), 10+9+8)
		assert.Equal(t, []byte{0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff}, compressed[:10], "gzip header")
		trailerStart := len(compressed) - 8
		assert.Equal(t, []byte{0x00, 0x00, 0xff, 0xff, 0x01, 0x00, 0x00, 0xff, 0xff}, compressed[trailerStart-9:trailerStart],
			"sync flush block, then the final empty stored block")
		zr, err := gzip.NewReader(bytes.NewReader(compressed))
		require.NoError(t, err)
		out, err := io.ReadAll(zr)
		require.NoError(t, err)
		assert.Equal(t, plain, string(out))
	}
}

func TestEncryptTextErrors(t *testing.T) {
	_, err := endpoint.EncryptText("x", []byte(vectorKey), make([]byte, 11))
	assert.ErrorContains(t, err, "nonce is 11 bytes, want 12")
	_, err = endpoint.EncryptText("x", []byte("short"), make([]byte, 12))
	assert.ErrorContains(t, err, "AES key is 5 bytes, want 32")
}

func TestDecryptTextErrors(t *testing.T) {
	key := []byte(vectorKey)
	tampered := []byte(vectorEncrypted)
	tampered[40] ^= 1 // still base64, wrong tag
	tests := map[string]string{
		"not base64": "not base64!",
		"too short":  base64.StdEncoding.EncodeToString(make([]byte, 27)),
		"tampered":   string(tampered),
		"plain text": vectorPlain,
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := endpoint.DecryptText(text, key)
			assert.ErrorIs(t, err, endpoint.ErrDecryption)
		})
	}
	t.Run("wrong key", func(t *testing.T) {
		_, _, err := endpoint.DecryptText(vectorEncrypted, bytes.Repeat([]byte("k"), 32))
		assert.ErrorIs(t, err, endpoint.ErrDecryption)
	})
	t.Run("bad key length", func(t *testing.T) {
		_, _, err := endpoint.DecryptText(vectorEncrypted, []byte("short"))
		assert.ErrorContains(t, err, "AES key is 5 bytes, want 32")
	})
	t.Run("not gzip", func(t *testing.T) {
		block, err := aes.NewCipher(key)
		require.NoError(t, err)
		aead, err := cipher.NewGCM(block)
		require.NoError(t, err)
		nonce := make([]byte, 12)
		text := base64.StdEncoding.EncodeToString(aead.Seal(nonce, nonce, []byte("plain, not gzip"), nil))
		_, _, err = endpoint.DecryptText(text, key)
		assert.ErrorIs(t, err, endpoint.ErrDecryption)
		assert.ErrorContains(t, err, "decompressing")
	})
}

func TestSerializeEncryptedRandomNonce(t *testing.T) {
	key := []byte(vectorKey)
	labels := endpoint.LabelsFromMap(map[string]string{"owner": "foo-owner", "resource": "foo-resource"})
	a, err := labels.SerializeEncrypted(key, false)
	require.NoError(t, err)
	b, err := labels.SerializeEncrypted(key, false)
	require.NoError(t, err)
	assert.NotEqual(t, a, b, "a fresh nonce each time")
	assert.NotEqual(t, a[:16], b[:16], "the first 16 characters encode the nonce")
	assert.Equal(t, endpoint.LabelsFromMap(map[string]string{"owner": "foo-owner", "resource": "foo-resource"}), labels, "labels are not modified")

	for _, text := range []string{a, b} {
		plain, nonce, err := endpoint.DecryptText(text, key)
		require.NoError(t, err)
		assert.Equal(t, vectorPlain, plain)
		assert.Equal(t, text[:16], nonce)
	}

	quoted, err := labels.SerializeEncrypted(key, true)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(quoted, `"`) && strings.HasSuffix(quoted, `"`))
}

func TestSerializeEncryptedErrors(t *testing.T) {
	key := []byte(vectorKey)
	_, err := endpoint.LabelsFromMap(map[string]string{endpoint.TxtEncryptionNonceLabelKey: "not-base64!"}).SerializeEncrypted(key, true)
	assert.ErrorContains(t, err, `label txt-encryption-nonce="not-base64!": not a base64 12-byte nonce`)
	_, err = endpoint.LabelsFromMap(map[string]string{endpoint.TxtEncryptionNonceLabelKey: base64.StdEncoding.EncodeToString(make([]byte, 8))}).SerializeEncrypted(key, true)
	assert.ErrorContains(t, err, "not a base64 12-byte nonce")
	_, err = endpoint.LabelsFromMap(map[string]string{"owner": "x"}).SerializeEncrypted([]byte("short"), true)
	assert.ErrorContains(t, err, "AES key is 5 bytes, want 32")
}

func TestParseLabelsWithKeyFallsBackToPlain(t *testing.T) {
	key := []byte(vectorKey)

	labels, err := endpoint.ParseLabelsWithKey(`"heritage=external-dns,external-dns/owner=default"`, key)
	require.NoError(t, err)
	assert.Equal(t, endpoint.LabelsFromMap(map[string]string{"owner": "default"}), labels, "plain text with a key configured; no nonce label")

	_, err = endpoint.ParseLabelsWithKey(`"`+vectorEncrypted+`"`, bytes.Repeat([]byte("k"), 32))
	assert.ErrorIs(t, err, endpoint.ErrInvalidHeritage, "wrong key: parsed as plain text, which is not ours")

	labels, err = endpoint.ParseLabelsWithKey(vectorPlain, nil)
	require.NoError(t, err)
	assert.Equal(t, endpoint.LabelsFromMap(map[string]string{"owner": "foo-owner", "resource": "foo-resource"}), labels, "no key: plain parsing")

	// Decrypts, but the plaintext is not an ownership text.
	text, err := endpoint.EncryptText("v=spf1 -all", key, make([]byte, 12))
	require.NoError(t, err)
	_, err = endpoint.ParseLabelsWithKey(text, key)
	assert.ErrorIs(t, err, endpoint.ErrInvalidHeritage)
}

// TestParseLabelsAllocations: a plain ownership value costs the slice of
// labels and nothing else; a text without labels costs nothing.
func TestParseLabelsAllocations(t *testing.T) {
	for in, want := range map[string]float64{
		`"heritage=external-dns"`: 0,
		`"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/web"`: 1,
		`external-dns/resource=r,heritage=external-dns,external-dns/owner=default`:                     1,
		`heritage=external-dns,external-dns/a=1,external-dns/b=2,external-dns/c=3,external-dns/d=4,` +
			`external-dns/e=5,external-dns/f=6,external-dns/g=7,external-dns/h=8,,x,other=y`: 1,
	} {
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := endpoint.ParseLabels(in); err != nil {
				t.Fatal(err)
			}
		})
		assert.Equal(t, want, allocs, in)
	}
}

func TestValidateLabels(t *testing.T) {
	tests := []struct {
		name    string
		labels  endpoint.Labels
		wantErr []string // substrings; nil means valid
	}{
		{"empty", endpoint.Labels{}, nil},
		{"usual labels", endpoint.LabelsFromMap(map[string]string{"owner": "default", "resource": "crd/default/web", "ownedRecord": "*.example.com"}), nil},
		{"white space, slash, Unicode", endpoint.LabelsFromMap(map[string]string{"team name": "a b/c", "bücher": "ünïcode", "x": ""}), nil},
		{"nonce label", endpoint.LabelsFromMap(map[string]string{endpoint.TxtEncryptionNonceLabelKey: vectorNonce}), nil},
		// The injection of issue 21: the value would add a second owner.
		{"comma in value", endpoint.LabelsFromMap(map[string]string{"zz": "x,external-dns/owner=victim"}),
			[]string{`label "zz": value "x,external-dns/owner=victim" contains ',' (U+002C at offset 1)`}},
		{"equals in value", endpoint.LabelsFromMap(map[string]string{"zz": "a=b"}), []string{`label "zz": value "a=b" contains '=' (U+003D at offset 1)`}},
		{"quote in value", endpoint.LabelsFromMap(map[string]string{"zz": `x"`}), []string{`label "zz": value "x\"" contains '"' (U+0022 at offset 1)`}},
		{"backslash in value", endpoint.LabelsFromMap(map[string]string{"zz": `x\044y`}), []string{`label "zz": value "x\\044y" contains '\\' (U+005C at offset 1)`}},
		{"NUL in value", endpoint.LabelsFromMap(map[string]string{"zz": "x\x00"}), []string{`label "zz": value "x\x00" contains '\x00' (U+0000 at offset 1)`}},
		{"newline in value", endpoint.LabelsFromMap(map[string]string{"zz": "x\ny"}), []string{`contains '\n' (U+000A at offset 1)`}},
		{"DEL in value", endpoint.LabelsFromMap(map[string]string{"zz": "\x7f"}), []string{`contains '\x7f' (U+007F at offset 0)`}},
		{"C1 control in value", endpoint.LabelsFromMap(map[string]string{"zz": "a\u0085"}), []string{`contains control character '\u0085' (U+0085 at offset 1)`}},
		{"invalid UTF-8 in value", endpoint.LabelsFromMap(map[string]string{"zz": "a\xff"}), []string{`value "a\xff" is not valid UTF-8 (byte 0xff at offset 1)`}},
		{"empty key", endpoint.LabelsFromMap(map[string]string{"": "x"}), []string{`label "": key is empty`}},
		{"comma in key", endpoint.LabelsFromMap(map[string]string{"a,external-dns/owner": "victim"}),
			[]string{`label "a,external-dns/owner": key contains ',' (U+002C at offset 1)`}},
		{"equals in key", endpoint.LabelsFromMap(map[string]string{"owner=victim,external-dns/x": "y"}), []string{`label "owner=victim,external-dns/x": key contains '=' (U+003D at offset 5)`}},
		{"tab in key", endpoint.LabelsFromMap(map[string]string{"a\tb": "y"}), []string{`label "a\tb": key contains '\t' (U+0009 at offset 1)`}},
		{"all bad labels named, in key order", endpoint.LabelsFromMap(map[string]string{"ok": "1", "b": "x,y", "a": `"`}),
			[]string{`label "a": value`, `label "b": value`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := endpoint.ValidateLabels(tt.labels)
			if tt.wantErr == nil {
				require.NoError(t, err)
				text := tt.labels.Serialize(true)
				got, err := endpoint.ParseLabels(text)
				require.NoError(t, err)
				want := tt.labels
				want.Delete(endpoint.TxtEncryptionNonceLabelKey)
				assert.Equal(t, want, got, "valid labels read back as themselves from %s", text)
				return
			}
			require.Error(t, err)
			last := -1
			for _, want := range tt.wantErr {
				i := strings.Index(err.Error(), want)
				assert.Greater(t, i, last, "%q in order in %q", want, err.Error())
				last = i
			}
			assert.NotContains(t, err.Error(), `"ok"`, "valid labels are not named")
		})
	}
}

// TestRegression_LabelInjection: a label value with "," and "=" used to be
// written as it is, so the ownership text named a second owner, the last
// of which wins when parsed (issue 21, finding 4).
func TestRegression_LabelInjection(t *testing.T) {
	labels := endpoint.LabelsFromMap(map[string]string{"owner": "me", "resource": "crd/default/x", "zz": "x,external-dns/owner=victim"})
	require.Error(t, endpoint.ValidateLabels(labels))

	for _, text := range []string{labels.Serialize(false), labels.Serialize(true)} {
		got, err := endpoint.ParseLabels(text)
		require.NoError(t, err)
		assert.Equal(t, "me", labelValue(got, endpoint.OwnerLabelKey), "owner read back from %s", text)
		assert.NotContains(t, text, "victim")
	}
	key := []byte(vectorKey)
	enc, err := labels.SerializeEncrypted(key, true)
	require.NoError(t, err)
	got, err := endpoint.ParseLabelsWithKey(enc, key)
	require.NoError(t, err)
	assert.Equal(t, "me", labelValue(got, endpoint.OwnerLabelKey))
	_, hasZZ := got.Get("zz")
	assert.False(t, hasZZ)
}

func TestIsReservedLabelKey(t *testing.T) {
	for _, k := range []string{endpoint.OwnerLabelKey, endpoint.ResourceLabelKey, endpoint.OwnedRecordLabelKey, endpoint.TxtEncryptionNonceLabelKey} {
		assert.True(t, endpoint.IsReservedLabelKey(k), k)
	}
	for _, k := range []string{"", "team", "Owner", "owner ", "external-dns/owner", "heritage"} {
		assert.False(t, endpoint.IsReservedLabelKey(k), k)
	}
}

// labelValue returns the value of key in l, "" when it is not set.
func labelValue(l endpoint.Labels, key string) string {
	v, _ := l.Get(key)
	return v
}

func TestLabelsString(t *testing.T) {
	for _, tc := range []struct {
		in   map[string]string
		want string
	}{
		{in: nil, want: "map[]"},
		{in: map[string]string{"owner": "default"}, want: "map[owner:default]"},
		{in: map[string]string{"resource": "service/default/web", "owner": "a"}, want: "map[owner:a resource:service/default/web]"},
	} {
		l := endpoint.LabelsFromMap(tc.in)
		assert.Equal(t, tc.want, l.String())
		assert.Equal(t, fmt.Sprint(tc.in), fmt.Sprint(l), "prints as the map would")
	}
}
