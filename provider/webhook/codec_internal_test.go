package webhook

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// normalise maps empty lists and maps to nil, the one difference between
// decoding `[]` and `null` that no caller can observe through len.
func normalise(eps []*endpoint.Endpoint) []*endpoint.Endpoint {
	if len(eps) == 0 {
		return nil
	}
	out := make([]*endpoint.Endpoint, len(eps))
	for i, ep := range eps {
		if ep == nil {
			continue
		}
		c := *ep
		if len(c.Targets) == 0 {
			c.Targets = nil
		}
		if c.Labels.Len() == 0 {
			var none endpoint.Labels
			c.Labels = none
		}
		if len(c.ProviderSpecific) == 0 {
			c.ProviderSpecific = nil
		}
		out[i] = &c
	}
	return out
}

func normaliseChanges(c *plan.Changes) *plan.Changes {
	return &plan.Changes{Create: normalise(c.Create), UpdateOld: normalise(c.UpdateOld),
		UpdateNew: normalise(c.UpdateNew), Delete: normalise(c.Delete)}
}

// checkEndpointsLikeStdlib decodes in with both decoders and fails unless
// both fail or both give the same endpoints. It reads through a reader that
// returns one byte at a time too, so that every buffer boundary is hit.
func checkEndpointsLikeStdlib(t *testing.T, in []byte) {
	t.Helper()
	var want []*endpoint.Endpoint
	wantErr := json.Unmarshal(in, &want)
	for _, r := range []func() *bytes.Reader{func() *bytes.Reader { return bytes.NewReader(in) }} {
		got, err := decodeEndpoints(r())
		checkSame(t, in, wantErr, err, normalise(want), normalise(got))
		got, err = decodeEndpoints(iotest.OneByteReader(r()))
		checkSame(t, in, wantErr, err, normalise(want), normalise(got))
	}
}

func checkChangesLikeStdlib(t *testing.T, in []byte) {
	t.Helper()
	var want plan.Changes
	wantErr := json.Unmarshal(in, &want)
	got, err := decodeChanges(bytes.NewReader(in))
	if err != nil {
		got = &plan.Changes{}
	}
	checkSame(t, in, wantErr, err, normaliseChanges(&want), normaliseChanges(got))
	got, err = decodeChanges(iotest.OneByteReader(bytes.NewReader(in)))
	if err != nil {
		got = &plan.Changes{}
	}
	checkSame(t, in, wantErr, err, normaliseChanges(&want), normaliseChanges(got))
}

func checkSame[T any](t *testing.T, in []byte, wantErr, gotErr error, want, got T) {
	t.Helper()
	if wantErr != nil || gotErr != nil {
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("input %q: encoding/json error %v, ours %v", in, wantErr, gotErr)
		}
		return
	}
	if !assert.Equal(t, want, got, "input %q", in) {
		t.FailNow()
	}
}

var decodeCases = []string{
	`[]`, `null`, ` [ ] `, `[null]`, `[{}]`, `[{"dnsName":"foo"}]`,
	`[{"dnsName":"app.example.com","targets":["192.0.2.10","192.0.2.11"],"recordType":"A","setIdentifier":"eu-west","recordTTL":300,"labels":{"owner":"default","resource":"service/default/app"},"providerSpecific":[{"name":"record-type","value":"ptr"},{"name":"webhook/priority","value":"10"}]}]`,
	`[{"DNSName":"foo","TARGETS":["x"],"recordtype":"CNAME","SetIdentifier":"s","RecordTTL":5,"Labels":{"owner":"o"},"ProviderSpecific":[{"Name":"n","VALUE":"v"}]}]`,
	`[{"dnſName":"long s folds to S","recordTtl":1}]`,
	`[{"dnsName":"a","dnsName":"b","recordType":"A","recordType":null}]`,
	`[{"targets":["a","b"],"targets":[null]}]`,
	`[{"targets":["a"],"targets":[null,"c"]}]`,
	`[{"targets":["a"],"targets":[]}]`,
	`[{"labels":{"a":"1"},"labels":{"b":"2","a":null}}]`,
	`[{"labels":{"a":"1"},"labels":null}]`,
	`[{"providerSpecific":[{"name":"a","value":"1"}],"providerSpecific":[{"value":"2"},null]}]`,
	`[{"providerSpecific":[null,{}]}]`,
	`[{"dnsName":"\u0041\ud83d\ude00\ud800\udc00x\ud800y\udc00\ud800\u0041","targets":["\"\\\/\b\f\n\r\t"]}]`,
	"[{\"dnsName\":\"bad \xff utf8 \xed\xa0\x80 \xe2\x82\"}]",
	`[{"dnsName":"bücher.example","targets":["<a&b>` + "\u2028" + `"]}]`,
	`[{"recordTTL":-9223372036854775808},{"recordTTL":9223372036854775807},{"recordTTL":-0}]`,
	`[{"recordTTL":9223372036854775808}]`, `[{"recordTTL":1.5}]`, `[{"recordTTL":1e2}]`, `[{"recordTTL":"300"}]`,
	`[{"recordTTL":01}]`, `[{"recordTTL":-}]`, `[{"recordTTL":1.}]`, `[{"recordTTL":null}]`,
	`[{"unknown":{"a":[1,2.5e-3,true,false,null,"x",{"b":[]}]},"dnsName":"k"}]`,
	`[{"targets":"a"}]`, `[{"labels":[]}]`, `[{"labels":{"a":1}}]`, `{}`, `[1]`, `["x"]`, `[[]]`,
	`[{"dnsName":1}]`, `[{"dnsName":true}]`, `[{"providerSpecific":[1]}]`, `[{"providerSpecific":[{"name":1}]}]`,
	`[`, `[{`, `[{"dnsName"`, `[{"dnsName":`, `[{"dnsName":"x`, `[{"dnsName":"x"`, `[{"dnsName":"x"}`, `[{"dnsName":"x"},]`,
	`[{"dnsName":"x",}]`, `[{,}]`, `[{"dnsName" "x"}]`, `[] x`, `[] []`, `[]]`, "[\"\x01\"]", `["\x"]`, `["\u12"]`, `["\u12g4"]`,
	`[{"a":nul}]`, `[{"a":nulls}]`, `[{"a":tru}]`, `[{"a":-01}]`, `[{"a":1e+}]`, `[{"a":.5}]`, `[{"a":+1}]`,
	"\t\n\r [ \t{ \"dnsName\" : \"a\" } ]\n", ``, ` `, `nul`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	`[{"x":` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `}]`,
	`[{"x":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}]`,
}

func TestDecodeEndpointsLikeEncodingJSON(t *testing.T) {
	for _, in := range decodeCases {
		checkEndpointsLikeStdlib(t, []byte(in))
	}
}

func TestDecodeChangesLikeEncodingJSON(t *testing.T) {
	cases := []string{
		`{}`, `null`, `{"create":[{"dnsName":"a"}]}`,
		`{"Create":[{"dnsName":"a"}],"updateOld":[{"dnsName":"b"}],"UpdateNew":[{"dnsName":"b","recordTTL":5}],"Delete":[{"dnsName":"c"}]}`,
		`{"Create":null,"UpdateOld":null,"UpdateNew":null,"Delete":null}`,
		`{"create":[{"dnsName":"a","recordType":"A"}],"create":[{"dnsName":"b"}]}`,
		`{"create":[{"dnsName":"a"}],"create":[null,{"dnsName":"c"}]}`,
		`{"create":[{"dnsName":"a"}],"create":[]}`,
		`{"create":{}}`, `[]`, `{"create":[1]}`, `{"unknown":[{"x":1}],"delete":[{"dnsName":"d"}]}`, `{"create":[}`,
	}
	for _, in := range append(cases, decodeCases...) {
		checkChangesLikeStdlib(t, []byte(in))
	}
}

// randomString draws from characters that exercise every escape rule.
func randomString(r *rand.Rand) string {
	pieces := []string{"a", "Z", "0", ".", "-", "\"", "\\", "/", "<", ">", "&", "\b", "\f", "\n", "\r", "\t",
		"\x00", "\x1f", "\x7f", "é", "📈", "\u2028", "\u2029", "\xff", "\xed\xa0\x80", "\xe2\x82", "\ufffd", " "}
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func randomEndpoint(r *rand.Rand) *endpoint.Endpoint {
	if r.IntN(20) == 0 {
		return nil
	}
	ep := &endpoint.Endpoint{DNSName: randomString(r), RecordType: randomString(r), SetIdentifier: randomString(r)}
	if r.IntN(3) > 0 {
		ep.RecordTTL = endpoint.TTL(r.Int64() >> r.IntN(64))
		if r.IntN(2) == 0 {
			ep.RecordTTL = -ep.RecordTTL
		}
	}
	for range r.IntN(4) {
		ep.Targets = append(ep.Targets, randomString(r))
	}
	for range r.IntN(4) {
		ep.Labels.Set(randomString(r), randomString(r))
	}
	for range r.IntN(3) {
		ep.ProviderSpecific = append(ep.ProviderSpecific, endpoint.ProviderSpecificProperty{Name: randomString(r), Value: randomString(r)})
	}
	return ep
}

// encodeEndpoints encodes eps as the server does, without the final
// newline (json.Marshal writes none).
func encodeEndpoints(t testing.TB, eps []*endpoint.Endpoint) []byte {
	return encodeWith(t, func(e *encoder) error { return e.endpointList(eps) })
}

func encodeChanges(t testing.TB, c *plan.Changes) []byte {
	return encodeWith(t, func(e *encoder) error { return e.changes(c) })
}

func encodeWith(t testing.TB, encode func(*encoder) error) []byte {
	t.Helper()
	var out bytes.Buffer
	e := newEncoder(&out)
	require.NoError(t, encode(e))
	require.NoError(t, e.finish())
	b := out.Bytes()
	require.True(t, bytes.HasSuffix(b, []byte("\n")), "the body ends with a newline")
	return b[:len(b)-1]
}

func TestEncoderMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		eps := make([]*endpoint.Endpoint, r.IntN(4))
		for i := range eps {
			eps[i] = randomEndpoint(r)
		}
		want, err := json.Marshal(eps)
		require.NoError(t, err)
		got := encodeEndpoints(t, eps)
		require.Equal(t, string(want), string(got))
		// And the decoder reads back what encoding/json reads back.
		checkEndpointsLikeStdlib(t, got)

		c := &plan.Changes{Create: eps[:r.IntN(len(eps)+1)], Delete: eps[r.IntN(len(eps)+1):]}
		if r.IntN(2) == 0 {
			c.UpdateOld, c.UpdateNew = c.Delete, c.Create
		}
		want, err = json.Marshal(c)
		require.NoError(t, err)
		got = encodeChanges(t, c)
		require.Equal(t, string(want), string(got))
		checkChangesLikeStdlib(t, got)
	}
	assert.Equal(t, "null", string(encodeEndpoints(t, nil)))
	assert.Equal(t, "null", string(encodeChanges(t, nil)))
}

func TestEncoderFlushesBetweenEndpoints(t *testing.T) {
	eps := make([]*endpoint.Endpoint, 3000)
	for i := range eps {
		eps[i] = endpoint.NewEndpoint("svc.example.org", endpoint.RecordTypeTXT, strings.Repeat("x", 50))
	}
	var out bytes.Buffer
	flushes := 0
	e := newEncoder(writerFunc(func(b []byte) (int, error) { flushes++; return out.Write(b) }))
	require.NoError(t, e.changes(&plan.Changes{Create: eps}))
	require.NoError(t, e.finish())
	want, err := json.Marshal(&plan.Changes{Create: eps})
	require.NoError(t, err)
	assert.Equal(t, string(want)+"\n", out.String())
	assert.Greater(t, flushes, 3, "a large body is written in pieces")
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func FuzzDecodeEndpoints(f *testing.F) {
	for _, in := range decodeCases[:40] {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkEndpointsLikeStdlib(t, in)
	})
}

func FuzzDecodeChanges(f *testing.F) {
	f.Add([]byte(`{"Create":[{"dnsName":"a","targets":["1.2.3.4"]}],"updateOld":[{"dnsName":"b"}],"UpdateNew":null}`))
	f.Add([]byte(`{"create":[{"dnsName":"a"}],"create":[null,{"labels":{"k":"v"}}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		checkChangesLikeStdlib(t, in)
	})
}

// FuzzEncodeEndpoint checks the encoder against encoding/json on endpoints
// built from arbitrary strings.
func FuzzEncodeEndpoint(f *testing.F) {
	f.Add("app.example.com", "192.0.2.1", "A", "", int64(300), "owner", "default", "alias", "true")
	f.Add("<&>", "\x00\u2028\xff", "TXT", "id", int64(-1), "", "", "", "")
	f.Fuzz(func(t *testing.T, name, target, typ, setID string, ttl int64, lk, lv, pn, pv string) {
		ep := &endpoint.Endpoint{DNSName: name, Targets: endpoint.Targets{target, name}, RecordType: typ,
			SetIdentifier: setID, RecordTTL: endpoint.TTL(ttl),
			ProviderSpecific: endpoint.ProviderSpecific{{Name: pn, Value: pv}}}
		ep.Labels.Set(lk, lv)
		ep.Labels.Set(lv, lk)
		eps := []*endpoint.Endpoint{ep, nil}
		want, err := json.Marshal(eps)
		require.NoError(t, err)
		got := encodeEndpoints(t, eps)
		require.Equal(t, string(want), string(got))
		checkEndpointsLikeStdlib(t, got)
	})
}
