package connector

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
)

// encodeWire gob-encodes eps in the connector wire format: the fields of
// external-dns's endpoint, labels as a map of strings.
func encodeWire(t testing.TB, eps []*endpoint.Endpoint) []byte {
	var buf bytes.Buffer
	require.NoError(t, gob.NewEncoder(&buf).Encode(toWire(eps)))
	return buf.Bytes()
}

// TestDecodeHugeMapCount feeds a stream whose label map claims
// 2^28 entries: gob would size the map from that count before reading any
// entry; decodeList must fail without allocating for it.
func TestDecodeHugeMapCount(t *testing.T) {
	good := encodeWire(t, []*endpoint.Endpoint{{DNSName: "a", Labels: endpoint.LabelsFromMap(map[string]string{"k": "v"})}})
	// The labels are encoded as: count 1, "k" (length 1), "v" (length 1).
	i := bytes.Index(good, []byte{0x01, 0x01, 'k', 0x01, 'v'})
	require.Positive(t, i)
	bad := append(append(append([]byte{}, good[:i]...), 0xfc, 0x10, 0x00, 0x00, 0x00), good[i+1:]...)
	// The last message's length byte precedes the value; it grew by 4.
	// The value is the last message; its one-byte length grows by 4.
	bad[lastMessage(good)] += 4

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := decodeList(bytes.NewReader(bad), DefaultMaxBytes)
	runtime.ReadMemStats(&after)
	require.Error(t, err)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "allocated for a claimed count")
}

// lastMessage returns the index of the length byte of the last message of
// a gob stream whose last message is shorter than 128 bytes.
func lastMessage(stream []byte) int {
	for pos := len(stream) - 2; pos >= 0; pos-- {
		if int(stream[pos]) == len(stream)-pos-1 {
			return pos
		}
	}
	return -1
}

func TestDecodeRoundTrip(t *testing.T) {
	in := []*endpoint.Endpoint{
		endpoint.NewEndpointWithTTL("a.example.com", endpoint.RecordTypeA, 60, "192.0.2.1").
			WithSetIdentifier("x").WithLabel("owner", "o").WithLabel("resource", "r").WithProviderSpecific("alias", "true"),
		{DNSName: "b.example.com"},
	}
	got, err := decodeList(bytes.NewReader(encodeWire(t, in)), 1<<20)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, &endpoint.Endpoint{
		DNSName: "a.example.com", Targets: endpoint.Targets{"192.0.2.1"}, RecordType: "A", SetIdentifier: "x", RecordTTL: 60,
		Labels: endpoint.LabelsFromMap(map[string]string{"owner": "o", "resource": "r"}), ProviderSpecific: endpoint.ProviderSpecific{{Name: "alias", Value: "true"}},
	}, got[0])
	assert.Empty(t, got[1].Labels)
}

func TestDecodeCap(t *testing.T) {
	data := encodeWire(t, []*endpoint.Endpoint{endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1")})
	_, err := decodeList(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err, "exactly the limit is fine")
	_, err = decodeList(bytes.NewReader(data), int64(len(data)-1))
	require.ErrorIs(t, err, ErrTooLarge)
}

// FuzzDecode feeds arbitrary bytes to the connector's decoder and
// conversion: they must fail cleanly or produce endpoints, never panic, and
// never read past the limit.
func FuzzDecode(f *testing.F) {
	f.Add(encodeWire(f, []*endpoint.Endpoint{
		endpoint.NewEndpointWithTTL("a.example.com", endpoint.RecordTypeA, 60, "192.0.2.1").WithLabel("owner", "o").WithProviderSpecific("alias", "true"),
		endpoint.NewEndpoint("c.example.com", endpoint.RecordTypeCNAME, "a.example.com"),
	}))
	f.Add(encodeWire(f, nil))
	f.Add([]byte{})
	f.Add([]byte("not gob at all"))
	const limit = 1 << 16
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		wire, err := decodeList(r, limit)
		if read := int64(len(data)) - int64(r.Len()); read > limit {
			t.Fatalf("read %d bytes, limit %d", read, limit)
		}
		if err != nil {
			// A stream may be refused as too large before it is read when
			// it declares a message longer than the limit.
			if len(data) <= limit && errors.Is(err, ErrTooLarge) && !strings.Contains(err.Error(), "declared") {
				t.Fatalf("too large for %d bytes: %v", len(data), err)
			}
			return
		}
		eps, failed := convert("fuzz:1", wire)
		for _, ep := range eps {
			if ep == nil {
				t.Fatal("nil endpoint")
			}
		}
		if failed != nil {
			_ = failed.Error()
		}
	})
}

// realisticList is n endpoints as a Kubernetes cluster's sources give
// them: A records with two targets, the owner and resource labels, every
// fourth with a provider-specific property.
func realisticList(n int) []*endpoint.Endpoint {
	eps := make([]*endpoint.Endpoint, n)
	for i := range eps {
		ep := endpoint.NewEndpointWithTTL(fmt.Sprintf("app-%05d.team-%02d.example.com", i, i%50), endpoint.RecordTypeA, 300,
			fmt.Sprintf("10.%d.%d.1", i/256%256, i%256), fmt.Sprintf("10.%d.%d.2", i/256%256, i%256)).
			WithLabel(endpoint.OwnerLabelKey, "cluster-a").
			WithLabel(endpoint.ResourceLabelKey, fmt.Sprintf("service/team-%02d/app-%05d", i%50, i))
		if i%4 == 0 {
			ep = ep.WithProviderSpecific("aws/evaluate-target-health", "true")
		}
		eps[i] = ep
	}
	return eps
}

// gobDecodeList is what decodeList would be with encoding/gob behind the
// same byte limit: the comparison BenchmarkDecode makes (see the package
// documentation for why the package does not use it).
func gobDecodeList(r io.Reader, maxBytes int64) ([]*endpoint.Endpoint, error) {
	var wire []*wireEndpoint
	if err := gob.NewDecoder(io.LimitReader(r, maxBytes)).Decode(&wire); err != nil {
		return nil, err
	}
	out := make([]*endpoint.Endpoint, len(wire))
	for i, w := range wire {
		ep := &endpoint.Endpoint{DNSName: w.DNSName, Targets: w.Targets, RecordType: w.RecordType,
			SetIdentifier: w.SetIdentifier, RecordTTL: endpoint.TTL(w.RecordTTL), Labels: endpoint.LabelsFromMap(w.Labels)}
		for _, p := range w.ProviderSpecific {
			ep.ProviderSpecific = append(ep.ProviderSpecific, endpoint.ProviderSpecificProperty{Name: p.Name, Value: p.Value})
		}
		out[i] = ep
	}
	return out, nil
}

// BenchmarkDecode decodes the response of a server with n realistic
// endpoints with this package's decoder and with encoding/gob behind an
// io.LimitReader, the alternative issue 36 asked to measure.
func BenchmarkDecode(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		data := encodeWire(b, realisticList(n))
		for _, dec := range []struct {
			name string
			fn   func(io.Reader, int64) ([]*endpoint.Endpoint, error)
		}{{"hand-written", decodeList}, {"encoding-gob", gobDecodeList}} {
			b.Run(fmt.Sprintf("N=%d/%s", n, dec.name), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					eps, err := dec.fn(bytes.NewReader(data), DefaultMaxBytes)
					if err != nil || len(eps) != n {
						b.Fatal(len(eps), err)
					}
				}
			})
		}
	}
}
