package webhook

import (
	"bytes"
	"fmt"
	"io"
	"testing"

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
// decoding them from memory.
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
}
