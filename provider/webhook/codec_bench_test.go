package webhook

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/zonesync/zonesync/endpoint"
)

// codecBenchEndpoints is N A records with owner and resource labels and
// their N ownership TXT records, as a change set from the TXT registry
// carries them.
func codecBenchEndpoints(n int) []*endpoint.Endpoint {
	eps := make([]*endpoint.Endpoint, 0, 2*n)
	for i := range n {
		a := endpoint.NewEndpointWithTTL(fmt.Sprintf("host-%d.example.org", i), endpoint.RecordTypeA, 300, "192.0.2.1")
		a.Labels.Set(endpoint.OwnerLabelKey, "default")
		a.Labels.Set(endpoint.ResourceLabelKey, fmt.Sprintf("service/default/app-%d", i))
		txt := endpoint.NewEndpoint("a-"+a.DNSName, endpoint.RecordTypeTXT,
			`"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app"`)
		eps = append(eps, a, txt)
	}
	return eps
}

// BenchmarkCodec measures the codec alone, without HTTP: encoding 2N
// endpoints to io.Discard (and the same with the legacy encoder) and
// decoding them from memory (and the same with json v2's UnmarshalDecode,
// the generic decoder the hand-written one is measured against).
func BenchmarkCodec(b *testing.B) {
	const n = 100_000
	eps := codecBenchEndpoints(n)
	var body bytes.Buffer
	e := newEncoder(&body)
	if err := e.endpointList(eps); err != nil {
		b.Fatal(err)
	}
	if err := e.finish(); err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("op=encode/N=%d", n), func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(body.Len()))
		for b.Loop() {
			e := newEncoder(io.Discard)
			if err := e.endpointList(eps); err != nil {
				b.Fatal(err)
			}
			if err := e.finish(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(fmt.Sprintf("op=encode-legacy/N=%d", n), func(b *testing.B) {
		// The hand-written encoder this package used before jsontext, for
		// comparison (see codec_legacy_test.go).
		b.ReportAllocs()
		b.SetBytes(int64(body.Len()))
		for b.Loop() {
			e := legacyEncoder{flush: func([]byte) error { return nil }}
			if err := e.endpointList(eps); err != nil {
				b.Fatal(err)
			}
			if err := e.finish(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(fmt.Sprintf("op=decode/N=%d", n), func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(body.Len()))
		for b.Loop() {
			got, err := decodeEndpoints(bytes.NewReader(body.Bytes()))
			if err != nil || len(got) != len(eps) {
				b.Fatalf("decoded %d endpoints, err %v", len(got), err)
			}
		}
	})
	b.Run(fmt.Sprintf("op=decode-jsonv2/N=%d", n), func(b *testing.B) {
		// What decoding would cost with the generic decoder (see the
		// comment at the top of decode.go).
		b.ReportAllocs()
		b.SetBytes(int64(body.Len()))
		for b.Loop() {
			got, err := decodeEndpointsJSONv2(bytes.NewReader(body.Bytes()))
			if err != nil || len(got) != len(eps) {
				b.Fatalf("decoded %d endpoints, err %v", len(got), err)
			}
		}
	})
}

// jsonv2Options make json v2 decode as encoding/json does (the v1
// options: keys matched case-insensitively, null leaving strings alone,
// values merged into what a repeated key left), with labels read straight
// from the tokens (Labels.UnmarshalJSON would go through a map and
// encoding/json, which costs another 40%).
var jsonv2Options = jsonv2.JoinOptions(
	jsonv1.DefaultOptionsV1(),
	jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, l *endpoint.Labels) error {
		switch dec.PeekKind() {
		case 'n':
			*l = endpoint.Labels{}
			_, err := dec.ReadToken()
			return err
		case '{':
		default:
			return jsonv2.SkipFunc
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for dec.PeekKind() != '}' {
			name, err := dec.ReadToken()
			if err != nil {
				return err
			}
			key := name.String()
			v, err := dec.ReadToken()
			if err != nil {
				return err
			}
			switch v.Kind() {
			case '"':
				l.Set(key, v.String())
			case 'n':
				l.Set(key, "")
			default:
				return errors.New("a label value is not a string")
			}
		}
		_, err := dec.ReadToken()
		return err
	})),
)

// decodeEndpointsJSONv2 decodes an endpoint list with json v2's
// UnmarshalDecode, from the same buffered reader as decodeEndpoints.
func decodeEndpointsJSONv2(r io.Reader) ([]*endpoint.Endpoint, error) {
	dec := jsontext.NewDecoder(bufio.NewReaderSize(r, readSize), jsonv2Options)
	var eps []*endpoint.Endpoint
	if err := jsonv2.UnmarshalDecode(dec, &eps, jsonv2Options); err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("after the list: %v", err)
	}
	return eps, nil
}

// TestJSONv2DecodesAlike backs the comparison in BenchmarkCodec: on the
// decoder's cases json v2 with jsonv2Options accepts and refuses what the
// decoder does and gives the same endpoints, so the benchmark compares the
// same work.
func TestJSONv2DecodesAlike(t *testing.T) {
	for _, in := range decodeCases {
		want, wantErr := decodeEndpoints(bytes.NewReader([]byte(in)))
		got, err := decodeEndpointsJSONv2(bytes.NewReader([]byte(in)))
		checkSame(t, []byte(in), wantErr, err, normalise(want), normalise(got))
	}
}
