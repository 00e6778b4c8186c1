package connector

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
	"github.com/zonesync/zonesync/source"
)

// encUint encodes x as gob encodes unsigned integers.
func encUint(x uint64) []byte {
	if x < 0x80 {
		return []byte{byte(x)}
	}
	var be []byte
	for v := x; v > 0; v >>= 8 {
		be = append([]byte{byte(v)}, be...)
	}
	return append([]byte{byte(-len(be))}, be...)
}

// hostileList returns a gob stream holding the type definitions of
// []*endpoint.Endpoint followed by a value message whose body after the
// top-level delta is value (which starts with the declared list length).
func hostileList(t testing.TB, value []byte) []byte {
	// A second Encode of the same value sends the value message alone.
	var b bytes.Buffer
	enc := gob.NewEncoder(&b)
	require.NoError(t, enc.Encode(toWire([]*endpoint.Endpoint{{}})))
	first := b.Len()
	require.NoError(t, enc.Encode(toWire([]*endpoint.Endpoint{{}})))
	all := b.Bytes()
	valueMsg := all[first:]
	good := all[:first]
	last := len(good) - len(valueMsg)
	require.Equal(t, valueMsg, good[last:])
	body := valueMsg[1:] // a short message: its length is one byte
	// body: type id, singleton delta 0, count 1, the empty struct's 0.
	require.Equal(t, []byte{0, 1, 0}, body[len(body)-3:])
	head := body[:len(body)-2]
	msg := append(append([]byte{}, head...), value...)
	return append(append(append([]byte{}, good[:last]...), encUint(uint64(len(msg)))...), msg...)
}

// allocated returns the bytes allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

type chain struct {
	DNSName string
	Next    *chain
}

// TestDecodeHostile feeds streams that are cheap to send and were
// dear to decode. Each fails (or succeeds, for valid data) with its memory
// within the documented bound: MaxDecodedPerByte bytes per byte of
// the stream plus 1 MiB, plus the stream itself held while it is decoded
// (counted four times here, for the buffer's growth and the test's copy),
// plus 4 MiB for the rest.
func TestDecodeHostile(t *testing.T) {
	const n = 2 << 20 // elements, one byte each on the wire
	zeros := make([]byte, n)
	tests := []struct {
		name    string
		stream  func(t *testing.T) []byte
		wantErr error  // nil: any error; with ok, no error
		errText string // in the error
		ok      bool
	}{
		{name: "2 Mi empty endpoints", stream: func(t *testing.T) []byte {
			return hostileList(t, append(encUint(n), zeros...))
		}, wantErr: ErrTooDense},
		{name: "huge declared list length", stream: func(t *testing.T) []byte {
			return hostileList(t, append(encUint(1<<40), 0, 0, 0))
		}, errText: "1099511627776 elements declared"},
		{name: "huge declared target count", stream: func(t *testing.T) []byte {
			// One endpoint whose Targets (field 1: delta 2) claims 2^31.
			return hostileList(t, append(append([]byte{1, 2}, encUint(1<<31)...), 0, 0))
		}, errText: "elements declared"},
		{name: "huge declared label count", stream: func(t *testing.T) []byte {
			// Labels is field 5 (delta 6).
			return hostileList(t, append(append([]byte{1, 6}, encUint(1<<28)...), 0, 0))
		}, errText: "elements declared"},
		{name: "huge declared string length", stream: func(t *testing.T) []byte {
			return hostileList(t, append(append([]byte{1, 1}, encUint(1<<40)...), 'x', 0))
		}, errText: "string of 1099511627776 bytes declared"},
		{name: "2 Mi empty targets", stream: func(t *testing.T) []byte {
			return hostileList(t, append(append(append([]byte{1, 2}, encUint(n)...), zeros...), 0))
		}, wantErr: ErrTooDense},
		{name: "1 Mi colliding labels", stream: func(t *testing.T) []byte {
			return hostileList(t, append(append(append([]byte{1, 6}, encUint(n/2)...), zeros...), 0))
		}, wantErr: ErrTooDense},
		{name: "deeply nested unknown field", stream: func(t *testing.T) []byte {
			var c *chain
			for range 1000 {
				c = &chain{DNSName: "x", Next: c}
			}
			var b bytes.Buffer
			require.NoError(t, gob.NewEncoder(&b).Encode([]*chain{c}))
			return b.Bytes()
		}, errText: "nested deeper than"},
		{name: "one long name repeated", stream: func(t *testing.T) []byte {
			name := strings.Repeat("a", 60) + "." + strings.Repeat("b", 60) + ".example.com"
			eps := make([]*endpoint.Endpoint, 20000)
			for i := range eps {
				eps[i] = endpoint.NewEndpoint(name, endpoint.RecordTypeA, "192.0.2.1")
			}
			return encodeWire(t, eps)
		}, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stream := tt.stream(t)
			var eps []*endpoint.Endpoint
			var err error
			used := allocated(func() {
				var wire []*endpoint.Endpoint
				wire, err = decodeList(bytes.NewReader(stream), DefaultMaxBytes)
				if err == nil {
					eps, _ = convert("test:1", wire)
				}
			})
			bound := uint64(MaxDecodedPerByte*len(stream) + decodeSlack + 4*len(stream) + 4<<20)
			assert.Less(t, used, bound, "allocated %d bytes for a %d-byte stream", used, len(stream))
			if tt.ok {
				require.NoError(t, err)
				assert.Len(t, eps, 1, "all merged")
				return
			}
			require.Error(t, err)
			if tt.wantErr != nil {
				assert.True(t, errors.Is(err, tt.wantErr), "%v", err)
			}
			if tt.errText != "" {
				assert.Contains(t, err.Error(), tt.errText)
			}
		})
	}
}

// TestConvertManyBadTargets: an endpoint with a million invalid
// targets is refused after a few are named.
func TestConvertManyBadTargets(t *testing.T) {
	targets := make([]string, 1<<20)
	for i := range targets {
		targets[i] = "not-an-ip"
	}
	var failed *source.PartialError
	used := allocated(func() {
		_, failed = convert("test:1", []*endpoint.Endpoint{{DNSName: "a.example.com", RecordType: "A", Targets: targets}})
	})
	require.NotNil(t, failed)
	msg := failed.Error()
	assert.Contains(t, msg, "targets[9]")
	assert.Contains(t, msg, "targets[10:] not checked")
	assert.Less(t, len(msg), 4096)
	assert.Less(t, used, uint64(64<<20), "one copy of the targets, not an error each")
}
