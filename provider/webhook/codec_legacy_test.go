package webhook

// This file keeps the hand-written encoder this package used before it
// was rebuilt on jsontext, unchanged but for names and the label loop (it
// reads labels through Labels.All, in key order), as the reference that
// TestEncoderMatchesLegacyEncoder compares the new encoder with.

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// legacyFlushSize is the size at which the encoder hands its buffer to
// the writer.
const legacyFlushSize = 32 << 10

// legacyEncoder appends the external-dns JSON form of endpoints and change
// sets to buf, byte for byte what encoding/json produces for the same
// values. It reuses its buffer, so that encoding does not allocate per
// record.
type legacyEncoder struct {
	buf []byte
	// flush, when set, is called whenever buf holds legacyFlushSize bytes or
	// more between two endpoints; it must consume buf (the encoder resets
	// it afterwards).
	flush func([]byte) error
}

func (e *legacyEncoder) maybeFlush() error {
	if e.flush == nil || len(e.buf) < legacyFlushSize {
		return nil
	}
	err := e.flush(e.buf)
	e.buf = e.buf[:0]
	return err
}

// finish writes what is left in the buffer.
func (e *legacyEncoder) finish() error {
	if e.flush == nil || len(e.buf) == 0 {
		return nil
	}
	err := e.flush(e.buf)
	e.buf = e.buf[:0]
	return err
}

// endpointList encodes eps as a JSON array (null for a nil slice, as
// encoding/json does), flushing between endpoints.
func (e *legacyEncoder) endpointList(eps []*endpoint.Endpoint) error {
	if eps == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	e.buf = append(e.buf, '[')
	for i, ep := range eps {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.endpoint(ep)
		if err := e.maybeFlush(); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, ']')
	return nil
}

// changes encodes c with the lower-case keys of external-dns v0.17 and
// later, each omitted when its list is empty. A nil c encodes as null.
func (e *legacyEncoder) changes(c *plan.Changes) error {
	if c == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	e.buf = append(e.buf, '{')
	first := true
	for _, part := range [...]struct {
		key string
		eps []*endpoint.Endpoint
	}{{`"create":`, c.Create}, {`"updateOld":`, c.UpdateOld}, {`"updateNew":`, c.UpdateNew}, {`"delete":`, c.Delete}} {
		if len(part.eps) == 0 {
			continue
		}
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		e.buf = append(e.buf, part.key...)
		if err := e.endpointList(part.eps); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

// endpoint appends one endpoint: the keys in struct order, every one
// omitted when empty, label keys sorted.
func (e *legacyEncoder) endpoint(ep *endpoint.Endpoint) {
	if ep == nil {
		e.buf = append(e.buf, "null"...)
		return
	}
	b := append(e.buf, '{')
	sep := false
	field := func(key string) {
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = append(b, key...)
	}
	if ep.DNSName != "" {
		field(`"dnsName":`)
		b = legacyAppendString(b, ep.DNSName)
	}
	if len(ep.Targets) > 0 {
		field(`"targets":[`)
		for i, t := range ep.Targets {
			if i > 0 {
				b = append(b, ',')
			}
			b = legacyAppendString(b, t)
		}
		b = append(b, ']')
	}
	if ep.RecordType != "" {
		field(`"recordType":`)
		b = legacyAppendString(b, ep.RecordType)
	}
	if ep.SetIdentifier != "" {
		field(`"setIdentifier":`)
		b = legacyAppendString(b, ep.SetIdentifier)
	}
	if ep.RecordTTL != 0 {
		field(`"recordTTL":`)
		b = legacyAppendInt(b, int64(ep.RecordTTL))
	}
	if ep.Labels.Len() > 0 {
		field(`"labels":{`)
		i := 0
		for k, v := range ep.Labels.All() {
			if i > 0 {
				b = append(b, ',')
			}
			i++
			b = legacyAppendString(b, k)
			b = append(b, ':')
			b = legacyAppendString(b, v)
		}
		b = append(b, '}')
	}
	if len(ep.ProviderSpecific) > 0 {
		field(`"providerSpecific":[`)
		for i, p := range ep.ProviderSpecific {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			if p.Name != "" {
				b = append(b, `"name":`...)
				b = legacyAppendString(b, p.Name)
			}
			if p.Value != "" {
				if p.Name != "" {
					b = append(b, ',')
				}
				b = append(b, `"value":`...)
				b = legacyAppendString(b, p.Value)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	e.buf = append(b, '}')
}

func legacyAppendInt(b []byte, v int64) []byte {
	if v < 0 {
		b = append(b, '-')
		u := uint64(-(v + 1)) + 1 // also right for the smallest int64
		return legacyAppendUint(b, u)
	}
	return legacyAppendUint(b, uint64(v))
}

func legacyAppendUint(b []byte, u uint64) []byte {
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	return append(b, tmp[i:]...)
}

const legacyHexDigits = "0123456789abcdef"

// plainByte reports whether encoding/json writes the ASCII byte c
// unescaped in HTML-safe mode: printable characters other than '"', '\\',
// '<', '>' and '&'.
func legacyPlainByte(c byte) bool {
	return c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
}

// appendString appends s as a JSON string exactly as encoding/json writes
// it: short escapes for '"', '\\', \b, \f, \n, \r and \t, \u00XX for other
// control characters and for '<', '>' and '&', \u2028 and \u2029 for the
// two line separators, \ufffd for each byte of invalid UTF-8, everything
// else as is.
func legacyAppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if legacyPlainByte(c) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', legacyHexDigits[c>>4], legacyHexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', legacyHexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// legacyEncode is what the old encoder wrote for a body: the value and a
// newline, in pieces of at least legacyFlushSize.
func legacyEncode(t testing.TB, encode func(*legacyEncoder) error) []byte {
	t.Helper()
	var out bytes.Buffer
	e := legacyEncoder{flush: func(b []byte) error { out.Write(b); return nil }}
	require.NoError(t, encode(&e))
	e.buf = append(e.buf, '\n')
	require.NoError(t, e.finish())
	return out.Bytes()
}

// legacyCorpus is a varied set of endpoint lists: random ones drawing on
// every escape rule, the workload's realistic records, and the edge
// values of every field.
func legacyCorpus() [][]*endpoint.Endpoint {
	r := rand.New(rand.NewPCG(3, 4))
	var corpus [][]*endpoint.Endpoint
	for range 2000 {
		eps := make([]*endpoint.Endpoint, r.IntN(6))
		for i := range eps {
			eps[i] = randomEndpoint(r)
		}
		corpus = append(corpus, eps)
	}
	realistic := make([]*endpoint.Endpoint, 0, 3000)
	for i := range 1000 {
		a := endpoint.NewEndpointWithTTL(fmt.Sprintf("host-%d.example.org", i), endpoint.RecordTypeA, 300, "192.0.2.1", "192.0.2.2")
		a.Labels.Set(endpoint.OwnerLabelKey, "default")
		a.Labels.Set(endpoint.ResourceLabelKey, fmt.Sprintf("service/default/app-%d", i))
		txt := endpoint.NewEndpoint("a-"+a.DNSName, endpoint.RecordTypeTXT,
			`"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app"`)
		srv := endpoint.NewEndpoint(fmt.Sprintf("_sip._tcp.%d.example.org", i), endpoint.RecordTypeSRV, "10 5 5060 sip.example.org")
		srv.SetIdentifier = "eu-west"
		srv.ProviderSpecific = endpoint.ProviderSpecific{{Name: "aws/weight", Value: "10"}, {Name: "alias", Value: ""}, {Value: "only value"}}
		realistic = append(realistic, a, txt, srv)
	}
	corpus = append(corpus, realistic, nil, []*endpoint.Endpoint{}, []*endpoint.Endpoint{nil, {}})
	edges := []*endpoint.Endpoint{
		{RecordTTL: math.MinInt64}, {RecordTTL: math.MaxInt64}, {RecordTTL: -1},
		{DNSName: strings.Repeat("x", 70<<10)}, // longer than a flush
		{Targets: endpoint.Targets{""}}, {ProviderSpecific: endpoint.ProviderSpecific{{}}},
		{DNSName: "bücher.example", Targets: endpoint.Targets{"\u2028\u2029<>&\x00\x7f\xff\xfe\xed\xa0\x80\ufffd"}},
	}
	edges[1].Labels.Set("", "")
	edges[2].Labels.Set("\xff", "<\u2029>")
	return append(corpus, edges)
}

// TestEncoderMatchesLegacyEncoder compares the jsontext encoder with the
// hand-written one it replaced, byte for byte, on endpoint lists and change
// sets.
func TestEncoderMatchesLegacyEncoder(t *testing.T) {
	for i, eps := range legacyCorpus() {
		want := legacyEncode(t, func(e *legacyEncoder) error { return e.endpointList(eps) })
		got := append(encodeEndpoints(t, eps), '\n')
		require.Equal(t, string(want), string(got), "endpoint list %d", i)

		half := len(eps) / 2
		for _, c := range []*plan.Changes{
			nil, {},
			{Create: eps},
			{Create: eps[:half], UpdateOld: eps[half:], UpdateNew: eps[half:], Delete: eps},
			{Delete: eps[half:]},
		} {
			want := legacyEncode(t, func(e *legacyEncoder) error { return e.changes(c) })
			got := append(encodeChanges(t, c), '\n')
			require.Equal(t, string(want), string(got), "change set from list %d", i)
		}
	}
}
