package source

import (
	"bytes"
	"encoding/gob"
	"errors"
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
	require.NoError(t, gob.NewEncoder(&buf).Encode(connectorWire(eps)))
	return buf.Bytes()
}

// TestDecodeConnectorHugeMapCount feeds a stream whose label map claims
// 2^28 entries: gob would size the map from that count before reading any
// entry; decodeConnector must fail without allocating for it.
func TestDecodeConnectorHugeMapCount(t *testing.T) {
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
	_, err := decodeConnector(bytes.NewReader(bad), DefaultConnectorMaxBytes)
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

func TestDecodeConnectorRoundTrip(t *testing.T) {
	in := []*endpoint.Endpoint{
		endpoint.NewEndpointWithTTL("a.example.com", endpoint.RecordTypeA, 60, "192.0.2.1").
			WithSetIdentifier("x").WithLabel("owner", "o").WithLabel("resource", "r").WithProviderSpecific("alias", "true"),
		{DNSName: "b.example.com"},
	}
	got, err := decodeConnector(bytes.NewReader(encodeWire(t, in)), 1<<20)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, &endpoint.Endpoint{
		DNSName: "a.example.com", Targets: endpoint.Targets{"192.0.2.1"}, RecordType: "A", SetIdentifier: "x", RecordTTL: 60,
		Labels: endpoint.LabelsFromMap(map[string]string{"owner": "o", "resource": "r"}), ProviderSpecific: endpoint.ProviderSpecific{{Name: "alias", Value: "true"}},
	}, got[0])
	assert.Empty(t, got[1].Labels)
}

func TestDecodeConnectorCap(t *testing.T) {
	data := encodeWire(t, []*endpoint.Endpoint{endpoint.NewEndpoint("a.example.com", endpoint.RecordTypeA, "192.0.2.1")})
	_, err := decodeConnector(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err, "exactly the limit is fine")
	_, err = decodeConnector(bytes.NewReader(data), int64(len(data)-1))
	require.ErrorIs(t, err, ErrConnectorTooLarge)
}

// FuzzDecodeConnector feeds arbitrary bytes to the connector's decoder and
// conversion: they must fail cleanly or produce endpoints, never panic, and
// never read past the limit.
func FuzzDecodeConnector(f *testing.F) {
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
		wire, err := decodeConnector(r, limit)
		if read := int64(len(data)) - int64(r.Len()); read > limit {
			t.Fatalf("read %d bytes, limit %d", read, limit)
		}
		if err != nil {
			// A stream may be refused as too large before it is read when
			// it declares a message longer than the limit.
			if len(data) <= limit && errors.Is(err, ErrConnectorTooLarge) && !strings.Contains(err.Error(), "declared") {
				t.Fatalf("too large for %d bytes: %v", len(data), err)
			}
			return
		}
		eps, failed := convertConnector("fuzz:1", wire)
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
