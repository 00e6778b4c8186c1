package webhook

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// The decoder reads the external-dns JSON forms of an endpoint list and of
// a change set straight from a stream, accepting exactly what
// encoding/json.Unmarshal accepts for []*endpoint.Endpoint and
// *plan.Changes and producing the same values. The tokenizer is jsontext
// (with duplicate names and invalid UTF-8 allowed, as encoding/json allows
// them); this file maps its tokens onto endpoints with encoding/json's
// rules:
//
//   - object keys match case-insensitively, as encoding/json folds them
//     (so the pre-v0.17 keys "Create", "UpdateOld" ... work); unknown keys
//     are skipped after being checked for syntax;
//   - null leaves a string or a TTL unchanged and sets a list or a map to
//     its zero value; a null element of an endpoint list is a nil endpoint;
//   - a key given twice decodes into what the first one left (the last
//     value of a string wins, labels merge, lists are overwritten element
//     by element);
//   - strings are unescaped as encoding/json does, surrogate pairs
//     combined, lone surrogates and invalid UTF-8 replaced by U+FFFD;
//   - recordTTL takes an integer literal that fits an int64;
//   - anything but white space after the value is an error; so is nesting
//     deeper than 10000 levels.
//
// To keep allocations to a few per record, endpoints, target lists and
// provider-specific lists are cut from shared backing arrays (each slice
// capped, so that appending to one never writes into another), record types
// and well-known label keys are interned, and the strings of many endpoints
// are copied out of one batch buffer with a single allocation. A caller that
// keeps one decoded endpoint therefore keeps its neighbours' memory too.

const (
	readSize  = 64 << 10
	batchSize = 16 << 10
	slabSize  = 512
)

// MaxDecodedBytesPerByte bounds the memory a body may decode to: the
// decoder counts what it allocates for the values it builds (endpoints,
// target and property slots, labels and their entries, and their
// bookkeeping; the string bytes themselves are never more than the bytes
// read; each label also as if it copied the labels of its endpoint before
// it, which bounds endpoints with thousands of labels) and fails with
// [ErrBodyTooDense] once that exceeds
// MaxDecodedBytesPerByte bytes per byte read plus 1 MiB. Real bodies decode
// to 3 to 8 bytes per byte; a body of empty objects or empty strings
// (`[{},{},...`) to more than 40, which is how a hostile peer could turn a
// capped body into gigabytes. Together with the caps on body sizes
// ([ClientOptions.MaxResponseBytes], [ServerOptions.MaxRequestBytes]) it
// bounds the memory of one request or response.
const MaxDecodedBytesPerByte = 16

// decodeSlack is the memory a body may decode to beyond its ratio, so that
// a short body of sparse endpoints is never refused.
const decodeSlack = 1 << 20

// What the decoder counts for each value it builds (see
// MaxDecodedBytesPerByte): about what it allocates, temporaries included.
const (
	costEndpoint = 168 // the endpoint, its pointer, its slot in a chunk
	costElement  = 8   // a null element of an endpoint list
	costTarget   = 56  // the string header, its span and pending assignment
	costLabels   = 320 // an empty set of labels
	costLabel    = 72  // a label entry and its pending assignment
	// costLabelCopy is counted once more for every label an object has
	// already given: a label set that copies its entries on each Set (as
	// a compact, copy-on-write one does) costs time and garbage quadratic
	// in the number of labels, and this makes one endpoint with thousands
	// of them too dense rather than slow.
	costLabelCopy = 32
	costProperty  = 64 // the property, in the scratch list and the slab
)

// ErrBodyTooDense is returned (wrapped) when a body decodes to more memory
// than [MaxDecodedBytesPerByte] allows for the bytes read. The server
// answers it with 413, like a body over the size cap; for the client it is
// a plain (not soft) error, since the same server will send the same body
// again.
var ErrBodyTooDense = errors.New("body decodes to too much memory for its size")

// syntaxError reports a body that is not JSON or not the JSON of the value
// expected, with the byte offset at which the decoder noticed it.
type syntaxError struct {
	offset int64
	msg    string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at offset %d: %s", e.offset, e.msg)
}

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

type decoder struct {
	dec     *jsontext.Decoder
	charged int64 // decoded memory counted, see charge
	name    []byte

	batch     []byte
	refs      []strRef
	labelRefs []labelRef
	spans     []span

	eps     []endpoint.Endpoint
	targets []string
	props   []endpoint.ProviderSpecificProperty
	scratch []endpoint.ProviderSpecificProperty
}

func newDecoder(r io.Reader) *decoder {
	// The tokenizer reads a few KiB at a time: the buffer turns that into
	// reads of readSize from the connection, far fewer system calls.
	br := bufio.NewReaderSize(r, readSize)
	// encoding/json accepts both; the tokenizer must too.
	return &decoder{dec: jsontext.NewDecoder(br, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))}
}

// charge counts n bytes of decoded memory and fails once the total exceeds
// what the bytes read allow.
func (d *decoder) charge(n int64) error {
	d.charged += n
	if read := d.dec.InputOffset(); d.charged > MaxDecodedBytesPerByte*read+decodeSlack {
		return fmt.Errorf("%w: %d bytes of values from %d bytes read (at most %d per byte)", ErrBodyTooDense, d.charged, read, MaxDecodedBytesPerByte)
	}
	return nil
}

// fail turns an error of the tokenizer into the decoder's own: a syntax
// error (the input ending inside a value included) into a syntaxError, a
// read error (a size cap, a broken connection) into an error wrapping it.
func (d *decoder) fail(err error) error {
	var serr *jsontext.SyntacticError
	switch {
	case errors.As(err, &serr):
		msg := serr.Error()
		if serr.Err != nil {
			msg = serr.Err.Error()
		}
		return &syntaxError{offset: serr.ByteOffset, msg: msg}
	case errors.Is(err, io.EOF):
		// The input ended before the value began.
		return &syntaxError{offset: d.dec.InputOffset(), msg: "unexpected end of JSON input"}
	}
	return fmt.Errorf("reading JSON at offset %d: %w", d.dec.InputOffset(), err)
}

// kind returns the kind of the next value (or of the closing delimiter)
// without consuming it.
func (d *decoder) kind() (jsontext.Kind, error) {
	// In compact JSON the next byte, after at most a ':' or ',', starts the
	// value: its kind is known without asking the tokenizer, which checks
	// the delimiter when the value is read.
	if next := d.dec.UnreadBuffer(); len(next) >= 2 {
		c := next[0]
		if c == ':' || c == ',' {
			c = next[1]
		}
		switch c {
		case '"', '{', '}', '[', ']', 'n':
			return jsontext.Kind(c), nil
		}
	}
	if k := d.dec.PeekKind(); k != 0 {
		return k, nil
	}
	// The peek failed; reading returns why.
	if _, err := d.dec.ReadValue(); err != nil {
		return 0, d.fail(err)
	}
	return 0, &syntaxError{offset: d.dec.InputOffset(), msg: "no value"}
}

// token reads a delimiter whose kind was peeked.
func (d *decoder) token() error {
	if _, err := d.dec.ReadToken(); err != nil {
		return d.fail(err)
	}
	return nil
}

// skip consumes the next value, checking its syntax.
func (d *decoder) skip() error {
	if err := d.dec.SkipValue(); err != nil {
		return d.fail(err)
	}
	return nil
}

// mismatch skips a value of kind k and reports that it cannot become what.
func (d *decoder) mismatch(k jsontext.Kind, what string) error {
	off := d.dec.InputOffset()
	if err := d.skip(); err != nil {
		return err
	}
	kind := "number"
	switch k {
	case '"':
		kind = "string"
	case '{':
		kind = "object"
	case '[':
		kind = "array"
	case 't', 'f':
		kind = "bool"
	}
	return &syntaxError{offset: off, msg: fmt.Sprintf("cannot decode a JSON %s into %s", kind, what)}
}

// end checks that nothing but white space follows the value.
func (d *decoder) end() error {
	if k := d.dec.PeekKind(); k != 0 {
		return &syntaxError{offset: d.dec.InputOffset(), msg: fmt.Sprintf("%s after top-level value", k)}
	}
	if _, err := d.dec.ReadToken(); !errors.Is(err, io.EOF) {
		return d.fail(err)
	}
	return nil
}

// open reads '[' or '{' (want) or null; it reports whether a container
// follows. Any other value is a type error naming what.
func (d *decoder) open(want jsontext.Kind, what string) (bool, error) {
	k, err := d.kind()
	if err != nil {
		return false, err
	}
	switch k {
	case 'n':
		return false, d.skip()
	case want:
		return true, d.token()
	default:
		return false, d.mismatch(k, what)
	}
}

// object walks the members of an object whose '{' was read, calling member
// with each quoted name (valid until member reads the value).
func (d *decoder) object(member func(name jsontext.Value) error) error {
	for {
		k, err := d.kind()
		if err != nil {
			return err
		}
		if k == '}' {
			return d.token()
		}
		name, err := d.dec.ReadValue()
		if err != nil {
			return d.fail(err)
		}
		if err := member(name); err != nil {
			return err
		}
	}
}

// array walks the elements of an array whose '[' was read.
func (d *decoder) array(elem func(i int) error) error {
	for i := 0; ; i++ {
		k, err := d.kind()
		if err != nil {
			return err
		}
		if k == ']' {
			return d.token()
		}
		if err := elem(i); err != nil {
			return err
		}
	}
}

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

// matchKey returns the index of the field name a quoted object name
// matches, or -1. An exact match is tried first, then encoding/json's
// case folding.
func (d *decoder) matchKey(quoted jsontext.Value, names []string) int {
	raw := quoted[1 : len(quoted)-1]
	for i, n := range names {
		if string(raw) == n {
			return i
		}
	}
	key := d.unquote(quoted)
	for i, n := range names {
		if string(key) == n {
			return i
		}
	}
	for i, n := range names {
		if foldEqual(key, n) {
			return i
		}
	}
	return -1
}

// foldEqual reports whether key equals name (an ASCII field name) under the
// case folding encoding/json uses to match keys to fields: every rune of
// the key is mapped through ToLower then ToUpper, ASCII letters to upper
// case.
func foldEqual(key []byte, name string) bool {
	j := 0
	for i := 0; i < len(key); {
		c := key[i]
		var r rune
		if c < utf8.RuneSelf {
			r = rune(c)
			i++
		} else {
			var size int
			r, size = utf8.DecodeRune(key[i:])
			i += size
		}
		r = unicode.ToUpper(unicode.ToLower(r))
		if j >= len(name) || r >= utf8.RuneSelf {
			return false
		}
		n := name[j]
		if 'a' <= n && n <= 'z' {
			n -= 'a' - 'A'
		}
		if byte(r) != n {
			return false
		}
		j++
	}
	return j == len(name)
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

func internType(b []byte) string {
	switch string(b) {
	case endpoint.RecordTypeA:
		return endpoint.RecordTypeA
	case endpoint.RecordTypeAAAA:
		return endpoint.RecordTypeAAAA
	case endpoint.RecordTypeCNAME:
		return endpoint.RecordTypeCNAME
	case endpoint.RecordTypeTXT:
		return endpoint.RecordTypeTXT
	case endpoint.RecordTypeSRV:
		return endpoint.RecordTypeSRV
	case endpoint.RecordTypeNS:
		return endpoint.RecordTypeNS
	case endpoint.RecordTypePTR:
		return endpoint.RecordTypePTR
	case endpoint.RecordTypeMX:
		return endpoint.RecordTypeMX
	case endpoint.RecordTypeNAPTR:
		return endpoint.RecordTypeNAPTR
	case endpoint.RecordTypeDNAME:
		return endpoint.RecordTypeDNAME
	case endpoint.RecordTypeTLSA:
		return endpoint.RecordTypeTLSA
	}
	return ""
}

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

// parseInt returns the value of a JSON number (its syntax already checked)
// when it is an integer literal that fits an int64, as encoding/json
// requires of an int64 field.
func parseInt(num []byte) (int64, bool) {
	neg := len(num) > 0 && num[0] == '-'
	if neg {
		num = num[1:]
	}
	if len(num) == 0 {
		return 0, false
	}
	var u uint64
	for _, c := range num {
		if c < '0' || c > '9' {
			return 0, false // a fraction or an exponent
		}
		if u > (1<<63)/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
		if u > 1<<63 {
			return 0, false
		}
	}
	switch {
	case neg:
		return int64(-u), true // also right for -1<<63
	case u > 1<<63-1:
		return 0, false
	}
	return int64(u), true
}

// endpointList decodes an array of endpoints into old (nil for a fresh
// list), as encoding/json decodes into an existing []*Endpoint.
func (d *decoder) endpointList(old []*endpoint.Endpoint, top bool) ([]*endpoint.Endpoint, error) {
	ok, err := d.open('[', "a list of endpoints")
	if !ok || err != nil {
		return nil, err
	}
	if len(old) > 0 {
		d.flush()
	}
	// Elements within old are decoded in place; the rest are collected in
	// chunks of growing size and copied once into a slice of the exact
	// length, which leaves less garbage than growing one slice by append.
	head := old[:len(old):len(old)]
	var chunks [][]*endpoint.Endpoint
	n := 0
	err = d.array(func(i int) error {
		n = i + 1
		var slot **endpoint.Endpoint
		if i < len(head) {
			slot = &head[i]
		} else {
			slot = nextSlot(&chunks)
		}
		if err := d.element(slot); err != nil {
			return fmt.Errorf("endpoint %d: %w", i, err)
		}
		if top && len(d.batch) >= batchSize {
			d.flush()
		}
		return nil
	})
	switch {
	case err != nil:
		return nil, err
	case n == 0:
		return []*endpoint.Endpoint{}, nil
	case n <= len(head):
		return head[:n], nil
	}
	out := make([]*endpoint.Endpoint, n)
	k := copy(out, head)
	for _, c := range chunks {
		k += copy(out[k:], c)
	}
	return out, nil
}

// nextSlot appends a nil slot to the last chunk, starting a new chunk
// (twice as large, up to 8192) when it is full.
func nextSlot(chunks *[][]*endpoint.Endpoint) **endpoint.Endpoint {
	cs := *chunks
	if len(cs) == 0 || len(cs[len(cs)-1]) == cap(cs[len(cs)-1]) {
		size := 64
		if len(cs) > 0 {
			size = min(2*cap(cs[len(cs)-1]), 8192)
		}
		cs = append(cs, make([]*endpoint.Endpoint, 0, size))
		*chunks = cs
	}
	c := &cs[len(cs)-1]
	*c = append(*c, nil)
	return &(*c)[len(*c)-1]
}

// element decodes one element of an endpoint list into *slot: null gives
// a nil endpoint, an object decodes into the endpoint already there or a
// new one.
func (d *decoder) element(slot **endpoint.Endpoint) error {
	k, err := d.kind()
	if err != nil {
		return err
	}
	if k == 'n' {
		*slot = nil
		if err := d.skip(); err != nil {
			return err
		}
		return d.charge(costElement)
	}
	if *slot == nil {
		if err := d.charge(costEndpoint); err != nil {
			return err
		}
		*slot = d.newEndpoint()
	}
	return d.endpoint(*slot)
}

func (d *decoder) newEndpoint() *endpoint.Endpoint {
	if len(d.eps) == cap(d.eps) {
		d.eps = make([]endpoint.Endpoint, 0, slabSize)
	}
	d.eps = d.eps[:len(d.eps)+1]
	return &d.eps[len(d.eps)-1]
}

// The JSON field names of an endpoint, in the order of the struct (see
// docs/compatibility.md).
var endpointKeys = []string{"dnsName", "targets", "recordType", "setIdentifier", "recordTTL", "labels", "providerSpecific"}

// endpoint decodes an endpoint object into ep (or consumes null, leaving ep
// as it is: the caller handles null elements).
func (d *decoder) endpoint(ep *endpoint.Endpoint) error {
	ok, err := d.open('{', "an endpoint")
	if !ok || err != nil {
		return err
	}
	return d.object(func(name jsontext.Value) error {
		k := d.matchKey(name, endpointKeys)
		var err error
		switch k {
		case 0:
			err = d.stringField(&ep.DNSName, nil)
		case 1:
			ep.Targets, err = d.targetList(ep.Targets)
		case 2:
			err = d.stringField(&ep.RecordType, internType)
		case 3:
			err = d.stringField(&ep.SetIdentifier, nil)
		case 4:
			err = d.ttl(&ep.RecordTTL)
		case 5:
			err = d.labels(&ep.Labels)
		case 6:
			ep.ProviderSpecific, err = d.providerSpecific(ep.ProviderSpecific)
		default:
			return d.skip()
		}
		if err != nil {
			return fmt.Errorf("field %s: %w", endpointKeys[k], err)
		}
		return nil
	})
}

func (d *decoder) ttl(p *endpoint.TTL) error {
	k, err := d.kind()
	if err != nil {
		return err
	}
	switch k {
	case 'n':
		return d.skip()
	case '0':
	default:
		return d.mismatch(k, "an int64")
	}
	off := d.dec.InputOffset()
	num, err := d.dec.ReadValue()
	if err != nil {
		return d.fail(err)
	}
	v, ok := parseInt(num)
	if !ok {
		return &syntaxError{offset: off, msg: fmt.Sprintf("number %s is not an int64 TTL", num)}
	}
	*p = endpoint.TTL(v)
	return nil
}

func (d *decoder) targetList(old endpoint.Targets) (endpoint.Targets, error) {
	ok, err := d.open('[', "a list of targets")
	if !ok || err != nil {
		return nil, err
	}
	if len(old) > 0 {
		d.flush()
	}
	spans := d.spans[:0]
	err = d.array(func(int) error {
		if err := d.charge(costTarget); err != nil {
			return err
		}
		k, err := d.kind()
		if err != nil {
			return err
		}
		switch k {
		case 'n':
			spans = append(spans, span{off: -1})
			return d.skip()
		case '"':
			off, err := d.str()
			spans = append(spans, span{off: off, n: len(d.batch) - off})
			return err
		default:
			return d.mismatch(k, "a target string")
		}
	})
	d.spans = spans[:0]
	if err != nil {
		return nil, err
	}
	n := len(spans)
	if n == 0 {
		return endpoint.Targets{}, nil
	}
	if cap(d.targets)-len(d.targets) < n {
		d.targets = make([]string, 0, max(slabSize, n))
	}
	start := len(d.targets)
	d.targets = d.targets[:start+n]
	out := d.targets[start : start+n : start+n]
	for i, sp := range spans {
		switch {
		case sp.off >= 0:
			d.refs = append(d.refs, strRef{p: &out[i], off: sp.off, n: sp.n})
		case i < len(old):
			out[i] = old[i]
		}
	}
	return endpoint.Targets(out), nil
}

// labels decodes a labels object into *l, merging with the labels already
// there; null empties *l.
func (d *decoder) labels(l *endpoint.Labels) error {
	k, err := d.kind()
	if err != nil {
		return err
	}
	if k == 'n' {
		// Labels of an earlier key of the same endpoint are still queued:
		// they must land before null empties the set.
		d.flush()
		var none endpoint.Labels
		*l = none
		return d.skip()
	}
	ok, err := d.open('{', "labels")
	if !ok || err != nil {
		return err
	}
	if err := d.charge(costLabels); err != nil {
		return err
	}
	n := int64(l.Len()) // labels set before the next one (queued ones counted below)
	return d.object(func(name jsontext.Value) error {
		if err := d.charge(costLabel + costLabelCopy*n); err != nil {
			return err
		}
		n++
		raw := d.unquote(name)
		key := internLabelKey(raw)
		if key == "" {
			key = string(raw)
		}
		// The value is stored when the batch is flushed, with the other
		// strings, in the order the labels came.
		k, err := d.kind()
		if err != nil {
			return err
		}
		switch k {
		case 'n':
			d.labelRefs = append(d.labelRefs, labelRef{l: l, k: key, off: -1})
			return d.skip()
		case '"':
			off, err := d.str()
			if err != nil {
				return err
			}
			d.labelRefs = append(d.labelRefs, labelRef{l: l, k: key, off: off, n: len(d.batch) - off})
			return nil
		default:
			return fmt.Errorf("label %q: %w", key, d.mismatch(k, "a string"))
		}
	})
}

// The JSON field names of a provider-specific property.
var propertyKeys = []string{"name", "value"}

func (d *decoder) providerSpecific(old endpoint.ProviderSpecific) (endpoint.ProviderSpecific, error) {
	ok, err := d.open('[', "a list of provider-specific properties")
	if !ok || err != nil {
		return nil, err
	}
	scratch := d.scratch[:0]
	defer func() {
		clear(scratch)
		d.scratch = scratch[:0]
	}()
	err = d.array(func(i int) error {
		if err := d.charge(costProperty); err != nil {
			return err
		}
		var p endpoint.ProviderSpecificProperty
		if i < len(old) {
			p = old[i]
		}
		err := d.property(&p)
		scratch = append(scratch, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	n := len(scratch)
	if n == 0 {
		return endpoint.ProviderSpecific{}, nil
	}
	if cap(d.props)-len(d.props) < n {
		d.props = make([]endpoint.ProviderSpecificProperty, 0, max(slabSize/4, n))
	}
	start := len(d.props)
	d.props = append(d.props, scratch...)
	return endpoint.ProviderSpecific(d.props[start : start+n : start+n]), nil
}

// property decodes a provider-specific property object (or null, leaving
// p as it is) into p.
func (d *decoder) property(p *endpoint.ProviderSpecificProperty) error {
	ok, err := d.open('{', "a provider-specific property")
	if !ok || err != nil {
		return err
	}
	return d.object(func(name jsontext.Value) error {
		k := d.matchKey(name, propertyKeys)
		if k < 0 {
			return d.skip()
		}
		s, ok, err := d.takeString()
		if ok {
			if k == 0 {
				p.Name = s
			} else {
				p.Value = s
			}
		}
		return err
	})
}

// The JSON field names of a change set, as external-dns v0.17 and later
// write them (older versions capitalise them; the match ignores case).
var changesKeys = []string{"create", "updateOld", "updateNew", "delete"}

func (d *decoder) changes(c *plan.Changes) error {
	ok, err := d.open('{', "a change set")
	if !ok || err != nil {
		return err
	}
	return d.object(func(name jsontext.Value) error {
		k := d.matchKey(name, changesKeys)
		var p *[]*endpoint.Endpoint
		switch k {
		case 0:
			p = &c.Create
		case 1:
			p = &c.UpdateOld
		case 2:
			p = &c.UpdateNew
		case 3:
			p = &c.Delete
		default:
			return d.skip()
		}
		eps, err := d.endpointList(*p, true)
		if err != nil {
			return fmt.Errorf("%s: %w", changesKeys[k], err)
		}
		*p = eps
		return nil
	})
}

// decodeEndpoints reads a JSON array of endpoints (or null) from r, up to
// the end of the input.
func decodeEndpoints(r io.Reader) ([]*endpoint.Endpoint, error) {
	d := newDecoder(r)
	eps, err := d.endpointList(nil, true)
	if err == nil {
		err = d.end()
	}
	if err != nil {
		return nil, err
	}
	d.flush()
	return eps, nil
}

// decodeChanges reads a change set (or null) from r, up to the end of the
// input.
func decodeChanges(r io.Reader) (*plan.Changes, error) {
	d := newDecoder(r)
	c := &plan.Changes{}
	err := d.changes(c)
	if err == nil {
		err = d.end()
	}
	if err != nil {
		return nil, err
	}
	d.flush()
	return c, nil
}
