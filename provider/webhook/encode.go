package webhook

import (
	"unicode/utf8"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// flushSize is the size at which the streaming encoders hand their buffer
// to the writer.
const flushSize = 32 << 10

// encoder appends the external-dns JSON form of endpoints and change sets to
// buf, byte for byte what encoding/json produces for the same values. It
// reuses its buffer, so that encoding does not allocate per record (labels
// are kept in key order).
type encoder struct {
	buf []byte
	// flush, when set, is called whenever buf holds flushSize bytes or
	// more between two endpoints; it must consume buf (the encoder resets
	// it afterwards).
	flush func([]byte) error
}

func (e *encoder) maybeFlush() error {
	if e.flush == nil || len(e.buf) < flushSize {
		return nil
	}
	err := e.flush(e.buf)
	e.buf = e.buf[:0]
	return err
}

// finish writes what is left in the buffer.
func (e *encoder) finish() error {
	if e.flush == nil || len(e.buf) == 0 {
		return nil
	}
	err := e.flush(e.buf)
	e.buf = e.buf[:0]
	return err
}

// endpointList encodes eps as a JSON array (null for a nil slice, as
// encoding/json does), flushing between endpoints.
func (e *encoder) endpointList(eps []*endpoint.Endpoint) error {
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
func (e *encoder) changes(c *plan.Changes) error {
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
func (e *encoder) endpoint(ep *endpoint.Endpoint) {
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
		b = appendString(b, ep.DNSName)
	}
	if len(ep.Targets) > 0 {
		field(`"targets":[`)
		for i, t := range ep.Targets {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, t)
		}
		b = append(b, ']')
	}
	if ep.RecordType != "" {
		field(`"recordType":`)
		b = appendString(b, ep.RecordType)
	}
	if ep.SetIdentifier != "" {
		field(`"setIdentifier":`)
		b = appendString(b, ep.SetIdentifier)
	}
	if ep.RecordTTL != 0 {
		field(`"recordTTL":`)
		b = appendInt(b, int64(ep.RecordTTL))
	}
	if ep.Labels.Len() > 0 {
		field(`"labels":{`)
		first := true
		for k, v := range ep.Labels.All() {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendString(b, k)
			b = append(b, ':')
			b = appendString(b, v)
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
				b = appendString(b, p.Name)
			}
			if p.Value != "" {
				if p.Name != "" {
					b = append(b, ',')
				}
				b = append(b, `"value":`...)
				b = appendString(b, p.Value)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	e.buf = append(b, '}')
}

func appendInt(b []byte, v int64) []byte {
	if v < 0 {
		b = append(b, '-')
		u := uint64(-(v + 1)) + 1 // also right for the smallest int64
		return appendUint(b, u)
	}
	return appendUint(b, uint64(v))
}

func appendUint(b []byte, u uint64) []byte {
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

const hexDigits = "0123456789abcdef"

// plainByte reports whether encoding/json writes the ASCII byte c
// unescaped in HTML-safe mode: printable characters other than '"', '\\',
// '<', '>' and '&'.
func plainByte(c byte) bool {
	return c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
}

// appendString appends s as a JSON string exactly as encoding/json writes
// it: short escapes for '"', '\\', \b, \f, \n, \r and \t, \u00XX for other
// control characters and for '<', '>' and '&', \u2028 and \u2029 for the
// two line separators, \ufffd for each byte of invalid UTF-8, everything
// else as is.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plainByte(c) {
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
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
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
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
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
