package webhook

import (
	"bufio"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// flushSize is the size of the buffer between the encoder and the writer:
// a body is written in pieces of this size.
const flushSize = 32 << 10

// encoder writes the external-dns JSON form of endpoints and change sets,
// byte for byte what encoding/json produces for the same values followed
// by a newline (as encoding/json's Encoder writes it). The tokenizer is
// jsontext, set to escape as encoding/json does: '<', '>', '&', U+2028 and
// U+2029 as \u escapes, and each byte of invalid UTF-8 as \ufffd (which
// jsontext would refuse or write as the character itself; see str).
type encoder struct {
	enc *jsontext.Encoder
	bw  *bufio.Writer
	raw []byte // scratch for strings with invalid UTF-8
}

func newEncoder(w io.Writer) *encoder {
	bw := bufio.NewWriterSize(w, flushSize)
	enc := jsontext.NewEncoder(bw,
		jsontext.AllowDuplicateNames(true), // the names are ours and never repeat: skip the bookkeeping
		jsontext.EscapeForHTML(true),
		jsontext.EscapeForJS(true),
		jsontext.PreserveRawStrings(true), // keep the \ufffd escapes of str
	)
	return &encoder{enc: enc, bw: bw}
}

// finish writes what is left in the buffer.
func (e *encoder) finish() error { return e.bw.Flush() }

// endpointList writes eps as a JSON array (null for a nil slice, as
// encoding/json does).
func (e *encoder) endpointList(eps []*endpoint.Endpoint) error {
	if eps == nil {
		return e.enc.WriteToken(jsontext.Null)
	}
	if err := e.enc.WriteToken(jsontext.BeginArray); err != nil {
		return err
	}
	for _, ep := range eps {
		if err := e.endpoint(ep); err != nil {
			return err
		}
	}
	return e.enc.WriteToken(jsontext.EndArray)
}

// changes writes c with the lower-case keys of external-dns v0.17 and
// later, each omitted when its list is empty. A nil c is written as null.
func (e *encoder) changes(c *plan.Changes) error {
	if c == nil {
		return e.enc.WriteToken(jsontext.Null)
	}
	if err := e.enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	for i, eps := range [...][]*endpoint.Endpoint{c.Create, c.UpdateOld, c.UpdateNew, c.Delete} {
		if len(eps) == 0 {
			continue
		}
		if err := e.enc.WriteToken(jsontext.String(changesKeys[i])); err != nil {
			return err
		}
		if err := e.endpointList(eps); err != nil {
			return err
		}
	}
	return e.enc.WriteToken(jsontext.EndObject)
}

// endpoint writes one endpoint: the keys in struct order, every one
// omitted when empty, label keys sorted.
func (e *encoder) endpoint(ep *endpoint.Endpoint) error {
	if ep == nil {
		return e.enc.WriteToken(jsontext.Null)
	}
	w := tokenWriter{e: e}
	w.token(jsontext.BeginObject)
	if ep.DNSName != "" {
		w.name(endpointKeys[0])
		w.str(ep.DNSName)
	}
	if len(ep.Targets) > 0 {
		w.name(endpointKeys[1])
		w.token(jsontext.BeginArray)
		for _, t := range ep.Targets {
			w.str(t)
		}
		w.token(jsontext.EndArray)
	}
	if ep.RecordType != "" {
		w.name(endpointKeys[2])
		w.str(ep.RecordType)
	}
	if ep.SetIdentifier != "" {
		w.name(endpointKeys[3])
		w.str(ep.SetIdentifier)
	}
	if ep.RecordTTL != 0 {
		w.name(endpointKeys[4])
		w.token(jsontext.Int(int64(ep.RecordTTL)))
	}
	if ep.Labels.Len() > 0 {
		w.name(endpointKeys[5])
		w.token(jsontext.BeginObject)
		for k, v := range ep.Labels.All() { // in key order, as encoding/json sorts map keys
			w.str(k)
			w.str(v)
		}
		w.token(jsontext.EndObject)
	}
	if len(ep.ProviderSpecific) > 0 {
		w.name(endpointKeys[6])
		w.properties(ep.ProviderSpecific)
	}
	w.token(jsontext.EndObject)
	return w.err
}

// tokenWriter writes tokens until the first error, which it keeps.
type tokenWriter struct {
	e   *encoder
	err error
}

func (w *tokenWriter) token(t jsontext.Token) {
	if w.err == nil {
		w.err = w.e.enc.WriteToken(t)
	}
}

// name writes an object name of the wire format (plain ASCII).
func (w *tokenWriter) name(n string) { w.token(jsontext.String(n)) }

// str writes a string value or label key as encoding/json does.
func (w *tokenWriter) str(s string) {
	if w.err != nil {
		return
	}
	w.err = w.e.enc.WriteToken(jsontext.String(s))
	if w.err != nil && isSyntactic(w.err) {
		// Refused for its invalid UTF-8 (the only fault a string can have
		// where this encoder writes one), and the encoder left unchanged:
		// write it with the \ufffd escapes instead.
		w.e.raw = quoteInvalid(w.e.raw[:0], s)
		w.err = w.e.enc.WriteValue(w.e.raw)
	}
}

// properties writes a provider-specific list: each property an object
// with "name" and "value", each omitted when empty.
func (w *tokenWriter) properties(ps endpoint.ProviderSpecific) {
	w.token(jsontext.BeginArray)
	for _, p := range ps {
		w.token(jsontext.BeginObject)
		if p.Name != "" {
			w.name(propertyKeys[0])
			w.str(p.Name)
		}
		if p.Value != "" {
			w.name(propertyKeys[1])
			w.str(p.Value)
		}
		w.token(jsontext.EndObject)
	}
	w.token(jsontext.EndArray)
}

// quoteInvalid appends s, which holds invalid UTF-8, as a JSON string with
// each invalid byte written as the escape \ufffd, as encoding/json writes
// it. The valid runs are quoted by jsontext; the encoder adds the escapes
// for HTML and JavaScript when the value is written.
func quoteInvalid(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size != 1 {
			i += size
			continue
		}
		b = appendQuotedRun(b, s[start:i])
		b = append(b, `\ufffd`...)
		i++
		start = i
	}
	b = appendQuotedRun(b, s[start:])
	return append(b, '"')
}

// appendQuotedRun appends valid UTF-8 as the inside of a JSON string.
func appendQuotedRun(b []byte, run string) []byte {
	if run == "" {
		return b
	}
	n := len(b)
	b, _ = jsontext.AppendQuote(b, run) // valid UTF-8: no error
	// Drop the quotes around the run.
	copy(b[n:], b[n+1:len(b)-1])
	return b[:len(b)-2]
}

// isSyntactic reports an error of the tokenizer about the JSON itself, as
// opposed to one of the writer.
func isSyntactic(err error) bool {
	var serr *jsontext.SyntacticError
	return errors.As(err, &serr)
}
