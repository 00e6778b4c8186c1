package webhook

import (
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zonesync/zonesync/endpoint"
)

// strRef is a pending assignment of a string from the batch buffer (or of a
// constant, when off < 0) to a field.
type strRef struct {
	p      *string
	s      string
	off, n int
}

// labelRef is a pending label: key k of *l gets the batch bytes from off
// (or "" when off < 0).
type labelRef struct {
	l      *endpoint.Labels
	k      string
	off, n int
}

// span is a decoded string in the batch buffer, or a null (off < 0).
type span struct{ off, n int }

// unquote returns the value of a quoted name, valid until the next read
// or the next call.
func (d *decoder) unquote(quoted jsontext.Value) []byte {
	if inner := quoted[1 : len(quoted)-1]; plain(inner) {
		return inner
	}
	// The tokenizer has checked the syntax; the only complaints left are
	// about invalid UTF-8, which becomes U+FFFD as in encoding/json.
	d.name, _ = jsontext.AppendUnquote(d.name[:0], quoted)
	return d.name
}

// plain reports whether the inside of a quoted string is its value:
// nothing escaped, nothing to replace (ASCII, which is what names and
// addresses are; other strings go through AppendUnquote).
func plain(inner []byte) bool {
	for _, c := range inner {
		if c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// str reads a string and appends its value to the batch buffer, returning
// where it starts.
func (d *decoder) str() (off int, err error) {
	off = len(d.batch)
	quoted, err := d.dec.ReadValue()
	if err != nil {
		return off, d.fail(err)
	}
	if inner := quoted[1 : len(quoted)-1]; plain(inner) {
		// Nothing to unescape or replace (the usual case): copy.
		d.batch = append(d.batch, inner...)
		return off, nil
	}
	d.batch, _ = jsontext.AppendUnquote(d.batch, quoted) // see unquote
	return off, nil
}

// setRef queues the assignment of the batch bytes from off to *p.
func (d *decoder) setRef(p *string, off int) {
	d.refs = append(d.refs, strRef{p: p, off: off, n: len(d.batch) - off})
}

func (d *decoder) setConst(p *string, s string) {
	d.refs = append(d.refs, strRef{p: p, s: s, off: -1})
}

// flush copies the batch buffer into one string and performs the queued
// assignments in order.
func (d *decoder) flush() {
	if len(d.refs) == 0 && len(d.labelRefs) == 0 {
		d.batch = d.batch[:0]
		return
	}
	var all string
	if len(d.batch) > 0 {
		all = string(d.batch)
	}
	for i, r := range d.refs {
		if r.off < 0 {
			*r.p = r.s
		} else {
			*r.p = all[r.off : r.off+r.n]
		}
		d.refs[i] = strRef{}
	}
	for i, l := range d.labelRefs {
		if l.off < 0 {
			l.l.Set(l.k, "")
		} else {
			l.l.Set(l.k, all[l.off:l.off+l.n])
		}
		d.labelRefs[i] = labelRef{}
	}
	d.refs = d.refs[:0]
	d.labelRefs = d.labelRefs[:0]
	d.batch = d.batch[:0]
}

// stringField decodes a string or null into *p.
func (d *decoder) stringField(p *string, intern func([]byte) string) error {
	k, err := d.kind()
	if err != nil {
		return err
	}
	switch k {
	case 'n':
		return d.skip()
	case '"':
		off, err := d.str()
		if err != nil {
			return err
		}
		if intern != nil {
			if s := intern(d.batch[off:]); s != "" {
				d.batch = d.batch[:off]
				d.setConst(p, s)
				return nil
			}
		}
		if len(d.batch) == off {
			d.setConst(p, "")
			return nil
		}
		d.setRef(p, off)
		return nil
	default:
		return d.mismatch(k, "a string")
	}
}

// takeString decodes a string or null and returns it as a new string;
// null gives ok == false.
func (d *decoder) takeString() (s string, ok bool, err error) {
	k, err := d.kind()
	if err != nil {
		return "", false, err
	}
	switch k {
	case 'n':
		return "", false, d.skip()
	case '"':
		off, err := d.str()
		if err != nil {
			return "", false, err
		}
		s = string(d.batch[off:])
		d.batch = d.batch[:off]
		return s, true, nil
	default:
		return "", false, d.mismatch(k, "a string")
	}
}

// knownTypes are the record types internType shares.
var knownTypes = endpoint.KnownRecordTypes()

// internType returns the constant for a known record type, so that the
// endpoints of a body share it, or "".
func internType(b []byte) string {
	for _, t := range knownTypes {
		if string(b) == t {
			return t
		}
	}
	return ""
}

// internLabelKey returns the constant for a label key the registries
// write on every record, or "".
func internLabelKey(b []byte) string {
	switch string(b) {
	case endpoint.OwnerLabelKey:
		return endpoint.OwnerLabelKey
	case endpoint.ResourceLabelKey:
		return endpoint.ResourceLabelKey
	case "ownedRecord":
		return "ownedRecord"
	}
	return ""
}
