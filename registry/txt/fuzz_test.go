package txt_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/registry/txt"
)

// FuzzParseTXTName parses arbitrary TXT names under arbitrary affixes: it
// must never panic, a match must come from a name carrying the affix, and
// with the affixes that cannot be ambiguous every typed name of a known
// type reads back as the name and type it was built from.
func FuzzParseTXTName(f *testing.F) {
	f.Add("", false, "a-app.example.com", "app.example.com", uint8(0))
	f.Add("txt-", false, "txt-cname-www.example.com", "www.example.com", uint8(2))
	f.Add("-%{record_type}", true, "api-cname.example.com", "api.example.com", uint8(2))
	f.Add("extdns-%{record_type}.", false, "extdns-a.example.com", "example.com", uint8(0))
	f.Add(".%{record_type}", true, "app.aaaa.example.com", "app.example.com", uint8(1))
	f.Add("%{record_type}", false, "aaaafoo.example.com", "aaaafoo.example.com", uint8(1))
	f.Add("-own", true, "app-own", "x", uint8(9))
	f.Add("a.b.c", true, "x.y", "", uint8(5))
	f.Add("", false, "xn--a-bcher-p2a.example.com", "xn--bcher-kva.example.com", uint8(0))
	f.Add("own-", false, "xn--own-a-bcher-zhb.example.com", "xn--a-bcher-p2a.xn--strae-oqa.de", uint8(2))
	f.Add("-own", true, "xn--a-bcher-own-vhb.example.com", "xn--xyz", uint8(1))
	f.Fuzz(func(t *testing.T, affix string, suffix bool, txtName, name string, typeIdx uint8) {
		prefix, suf := affix, ""
		if suffix {
			prefix, suf = "", affix
		}
		n, err := txt.NewNamer(prefix, suf, "")
		require.NoError(t, err)

		gotName, gotType, ok := n.ParseTXTName(txtName)
		if !ok {
			assert.Empty(t, gotName)
			assert.Empty(t, gotType)
		}
		if gotType != "" {
			assert.Contains(t, endpoint.KnownRecordTypes(), gotType)
		}

		// Round trip with unambiguous affixes: the template (if any) is
		// followed by a separator, so no type's expansion is a prefix of
		// another's.
		types := endpoint.KnownRecordTypes()
		typ := types[int(typeIdx)%len(types)]
		name = strings.ToLower(name)
		for _, cfg := range []struct{ prefix, suffix string }{
			{}, {prefix: "txt-"}, {prefix: "x-%{record_type}."}, {suffix: "-%{record_type}"}, {suffix: "-own"},
		} {
			rn, err := txt.NewNamer(cfg.prefix, cfg.suffix, "")
			require.NoError(t, err)
			back, backType, ok := rn.ParseTXTName(rn.TXTName(name, typ))
			require.True(t, ok, "%+v %q %s", cfg, name, typ)
			assert.Equal(t, name, back, "%+v %s", cfg, typ)
			assert.Equal(t, typ, backType, "%+v %q", cfg, name)
		}
	})
}

// fuzzKey is the fixed key of FuzzParseLabels (the test key of external-dns's encryption vectors).
const fuzzKey = ")K_Fy|?Z.64#UuHm`}[d!GC%WJM_fs{_"

// FuzzParseLabels parses arbitrary ownership values, plain and with a key:
// no panic, and every successful parse round-trips through serialisation
// (plain, and encrypted with the same nonce).
func FuzzParseLabels(f *testing.F) {
	f.Add(`"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app"`)
	f.Add(`heritage=external-dns,external-dns/owner=default`)
	f.Add(`"+lvP8q9KHJ6BS6O81i2Q6DLNdf2JSKy8j/gbZKviTZlGYj7q+yDoYMgkQ1hPn6urtGllM5bfFMcaaHto52otQtiOYrX8990J3kQqg4s47m3bH3Ejl8RSxSSuWJM3HJtPghQzYg0/LSOsdQ0="`)
	f.Add(`heritage=someone-else`)
	f.Add(`"heritage=external-dns,heritage=external-dns,,=,external-dns/=x,external-dnsx=y,other=z"`)
	f.Add(`""""`)
	f.Add(`v=spf1 -all`)
	key := []byte(fuzzKey)
	f.Fuzz(func(t *testing.T, text string) {
		plain, errPlain := endpoint.ParseLabels(text)
		labels, err := endpoint.ParseLabelsWithKey(text, key)
		if errPlain == nil {
			require.NoError(t, err, "a plain value parses with a key too")
		}
		if err != nil {
			require.ErrorIs(t, err, endpoint.ErrInvalidHeritage)
			return
		}
		if errPlain == nil && labelValue(labels, endpoint.TxtEncryptionNonceLabelKey) == labelValue(plain, endpoint.TxtEncryptionNonceLabelKey) {
			assert.Equal(t, plain, labels)
		}
		// The format has no escaping: a last value ending in a quote loses
		// it. Only check the round trip where the format can express it.
		for _, v := range labels.All() {
			if strings.HasSuffix(v, `"`) || strings.HasPrefix(v, `"`) {
				return
			}
		}
		want := endpoint.Labels{}
		for k, v := range labels.All() {
			if k != endpoint.TxtEncryptionNonceLabelKey {
				want.Set(k, v)
			}
		}
		again, err := endpoint.ParseLabels(labels.Serialize(true))
		require.NoError(t, err)
		assert.Equal(t, want, again)

		if nonce, ok := labels.Get(endpoint.TxtEncryptionNonceLabelKey); ok {
			enc, err := labels.SerializeEncrypted(key, true)
			if raw, decErr := base64.StdEncoding.DecodeString(nonce); decErr != nil || len(raw) != 12 {
				// Only a plain value can carry a bad nonce label; it cannot
				// be used to encrypt.
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			back, err := endpoint.ParseLabelsWithKey(enc, key)
			require.NoError(t, err)
			assert.Equal(t, labels, back)
			reenc, err := back.SerializeEncrypted(key, true)
			require.NoError(t, err)
			assert.Equal(t, enc, reenc, "same nonce, same bytes")
		}
	})
}

// FuzzParseContribution reads arbitrary TXT values as contributions to
// shared record sets: it must never panic, and a contribution it accepts
// must be named as its owner would name it and write back to the same
// value.
func FuzzParseContribution(f *testing.F) {
	key := endpoint.Key{DNSName: "app.example.com", RecordType: "A"}
	f.Add(`"heritage=external-dns,external-dns/owner=zonesync-shared,external-dns/shared=1,external-dns/shared-owner=c1,external-dns/shared-record=app.example.com,`+
		`external-dns/shared-refresh=300,external-dns/shared-seen=1795934925,external-dns/shared-targets=192.0.2.1;192.0.2.2,external-dns/shared-ttl=60,external-dns/shared-type=A"`,
		txt.ContributionName("c1", key), "")
	f.Add(`"heritage=external-dns,external-dns/owner=zonesync-shared,external-dns/shared=1,external-dns/shared-owner=a%2Cb,external-dns/shared-props=aws%2Fweight!10,`+
		`external-dns/shared-record=%2A.x,external-dns/shared-refresh=0,external-dns/shared-seen=0,external-dns/shared-targets=%25zz,external-dns/shared-ttl=0,external-dns/shared-type=TXT"`,
		"_zs-aaaaaaaaaaaa-txt-w.x", "s")
	f.Add(`"heritage=external-dns,external-dns/owner=zonesync-shared,external-dns/shared=2"`, "x", "")
	f.Fuzz(func(t *testing.T, value, name, setID string) {
		labels, err := endpoint.ParseLabels(value)
		if err != nil {
			return
		}
		k, c, err := txt.ParseContribution(labels, name, setID)
		if err != nil {
			return
		}
		require.Equal(t, strings.ToLower(strings.TrimSuffix(name, ".")), strings.ToLower(txt.ContributionName(c.Owner, k)))
		require.NotEmpty(t, c.Targets)
		k2, c2, err := txt.ParseContribution(txt.ContributionLabels(k, c), name, setID)
		require.NoError(t, err)
		assert.Equal(t, k, k2)
		assert.Equal(t, c.Targets, c2.Targets)
		assert.Equal(t, c.Owner, c2.Owner)
	})
}
