package webhook

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// The decoder reads the external-dns JSON forms of an endpoint list and of
// a change set straight from a stream, accepting exactly what
// encoding/json.Unmarshal accepts for []*endpoint.Endpoint and
// *plan.Changes and producing the same values:
//
//   - object keys match case-insensitively, as encoding/json folds them
//     (so the pre-v0.17 keys "Create", "UpdateOld" ... work); unknown keys
//     are skipped after being checked for syntax;
//   - null leaves a string or a TTL unchanged and sets a list or a map to
//     nil; a null element of an endpoint list is a nil endpoint;
//   - a key given twice decodes into what the first one left (the last
//     value of a string wins, maps merge, lists are overwritten element by
//     element);
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
	maxDepth  = 10000
)

// MaxDecodedBytesPerByte bounds the memory a body may decode to: the
// decoder counts what it allocates for the values it builds (endpoints,
// target and property slots, label maps and entries, and their bookkeeping;
// the string bytes themselves are never more than the bytes read) and fails
// with [ErrBodyTooDense] once that exceeds MaxDecodedBytesPerByte bytes per
// byte read plus 1 MiB. Real bodies decode to 3 to 8 bytes per byte; a body
// of empty objects or empty strings (`[{},{},...`) to more than 40, which is
// how a hostile peer could turn a capped body into gigabytes. Together with
// the caps on body sizes ([WithMaxResponseBytes], [WithMaxRequestBytes]) it
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
	costLabels   = 320 // an empty label map
	costLabel    = 72  // a map entry and its pending assignment
	costProperty = 64  // the property, in the scratch list and the slab
)

// ErrBodyTooDense is returned (wrapped) when a body decodes to more memory
// than [MaxDecodedBytesPerByte] allows for the bytes read. The server
// answers it with 413, like a body over the size cap; for the client it is
// a plain (not soft) error, since the same server will send the same body
// again.
var ErrBodyTooDense = errors.New("body decodes to too much memory for its size")

// charge counts n bytes of decoded memory and fails once the total exceeds
// what the bytes read allow.
func (d *decoder) charge(n int64) error {
	d.charged += n
	if read := d.offset(); d.charged > MaxDecodedBytesPerByte*read+decodeSlack {
		return fmt.Errorf("%w: %d bytes of values from %d bytes read (at most %d per byte)", ErrBodyTooDense, d.charged, read, MaxDecodedBytesPerByte)
	}
	return nil
}

// SyntaxError reports malformed JSON, with the byte offset at which the
// decoder noticed it.
type SyntaxError struct {
	Offset int64
	msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at offset %d: %s", e.Offset, e.msg)
}

// strRef is a pending assignment of a string from the batch buffer (or of a
// constant, when off < 0) to a field.
type strRef struct {
	p      *string
	s      string
	off, n int
}

// labelRef is a pending label: k is set in *m to the batch bytes from off
// (or "" when off < 0).
type labelRef struct {
	m      *endpoint.Labels
	k      string
	off, n int
}

// span is a decoded string in the batch buffer, or a null (off < 0).
type span struct{ off, n int }

type decoder struct {
	r       io.Reader
	buf     []byte
	pos     int
	read    int64 // bytes consumed before buf
	readErr error
	depth   int
	charged int64 // decoded memory counted, see charge

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
	return &decoder{r: r, buf: make([]byte, 0, readSize)}
}

// fill reads more input; it reports false at the end of the input or on a
// read error (kept in readErr).
func (d *decoder) fill() bool {
	if d.readErr != nil {
		return false
	}
	if d.pos > 0 {
		d.read += int64(d.pos)
		n := copy(d.buf, d.buf[d.pos:])
		d.buf = d.buf[:n]
		d.pos = 0
	}
	if len(d.buf) == cap(d.buf) {
		d.buf = append(d.buf, 0)[:len(d.buf)]
	}
	for {
		n, err := d.r.Read(d.buf[len(d.buf):cap(d.buf)])
		d.buf = d.buf[:len(d.buf)+n]
		if err != nil {
			d.readErr = err
		}
		if n > 0 {
			return true
		}
		if err != nil {
			return false
		}
	}
}

func (d *decoder) offset() int64 { return d.read + int64(d.pos) }

func (d *decoder) syntax(format string, args ...any) error {
	return &SyntaxError{Offset: d.offset(), msg: fmt.Sprintf(format, args...)}
}

// eof is the error for input that ends inside a value: the read error when
// there was one (a size cap, a broken connection), else a syntax error.
func (d *decoder) eof() error {
	if d.readErr != nil && !errors.Is(d.readErr, io.EOF) {
		return fmt.Errorf("reading JSON at offset %d: %w", d.offset(), d.readErr)
	}
	return d.syntax("unexpected end of JSON input")
}

// peek skips white space and returns the next byte without consuming it.
func (d *decoder) peek() (byte, error) {
	for {
		for d.pos < len(d.buf) {
			switch c := d.buf[d.pos]; c {
			case ' ', '\t', '\n', '\r':
				d.pos++
			default:
				return c, nil
			}
		}
		if !d.fill() {
			return 0, d.eof()
		}
	}
}

// expect consumes the next non-space byte, which must be c.
func (d *decoder) expect(c byte) error {
	got, err := d.peek()
	if err != nil {
		return err
	}
	if got != c {
		return d.syntax("invalid character %q, expected %q", got, c)
	}
	d.pos++
	return nil
}

// end checks that nothing but white space follows the value.
func (d *decoder) end() error {
	c, err := d.peek()
	if err == nil {
		return d.syntax("invalid character %q after top-level value", c)
	}
	if d.readErr != nil && !errors.Is(d.readErr, io.EOF) {
		return err
	}
	return nil
}

func (d *decoder) push() error {
	d.depth++
	if d.depth > maxDepth {
		return d.syntax("exceeded max depth")
	}
	return nil
}

// literal consumes null, true or false.
func (d *decoder) literal(word string) error {
	for i := 0; i < len(word); i++ {
		if d.pos >= len(d.buf) && !d.fill() {
			return d.eof()
		}
		if d.buf[d.pos] != word[i] {
			return d.syntax("invalid character %q in literal %s", d.buf[d.pos], word)
		}
		d.pos++
	}
	return nil
}

// isNull consumes a null literal if one comes next.
func (d *decoder) isNull() (bool, error) {
	c, err := d.peek()
	if err != nil || c != 'n' {
		return false, err
	}
	return true, d.literal("null")
}

func (d *decoder) typeError(c byte, want string) error {
	kind := "number"
	switch c {
	case '"':
		kind = "string"
	case '{':
		kind = "object"
	case '[':
		kind = "array"
	case 't', 'f':
		kind = "bool"
	}
	return d.syntax("cannot decode a JSON %s into %s", kind, want)
}

// str decodes a JSON string (the opening quote comes next) and appends its
// value to the batch buffer, returning where it starts.
func (d *decoder) str() (off int, err error) {
	off = len(d.batch)
	if err := d.expect('"'); err != nil {
		return off, err
	}
	for {
		// Copy the run of plain bytes.
		i := d.pos
		for i < len(d.buf) {
			c := d.buf[i]
			if c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
				break
			}
			i++
		}
		d.batch = append(d.batch, d.buf[d.pos:i]...)
		d.pos = i
		if d.pos >= len(d.buf) {
			if !d.fill() {
				return off, d.eof()
			}
			continue
		}
		switch c := d.buf[d.pos]; {
		case c == '"':
			d.pos++
			return off, nil
		case c < 0x20:
			return off, d.syntax("invalid character %q in string literal", c)
		case c == '\\':
			if err := d.escape(); err != nil {
				return off, err
			}
		default:
			if err := d.multiByte(); err != nil {
				return off, err
			}
		}
	}
}

// need makes sure n bytes are buffered, if the input has them.
func (d *decoder) need(n int) bool {
	for len(d.buf)-d.pos < n {
		if !d.fill() {
			return false
		}
	}
	return true
}

// multiByte copies one UTF-8 sequence, or U+FFFD for an invalid byte.
func (d *decoder) multiByte() error {
	d.need(utf8.UTFMax) // a short read near the end is fine
	r, size := utf8.DecodeRune(d.buf[d.pos:])
	if r == utf8.RuneError && size == 1 {
		d.batch = utf8.AppendRune(d.batch, utf8.RuneError)
	} else {
		d.batch = append(d.batch, d.buf[d.pos:d.pos+size]...)
	}
	d.pos += size
	return nil
}

func (d *decoder) escape() error {
	if !d.need(2) {
		return d.eof()
	}
	c := d.buf[d.pos+1]
	switch c {
	case '"', '\\', '/':
		d.batch = append(d.batch, c)
	case 'b':
		d.batch = append(d.batch, '\b')
	case 'f':
		d.batch = append(d.batch, '\f')
	case 'n':
		d.batch = append(d.batch, '\n')
	case 'r':
		d.batch = append(d.batch, '\r')
	case 't':
		d.batch = append(d.batch, '\t')
	case 'u':
		r, err := d.hex4(2)
		if err != nil {
			return err
		}
		d.pos += 6
		if utf16.IsSurrogate(r) {
			// A valid pair is consumed whole; anything else leaves the next
			// escape to be read on its own.
			if d.need(6) && d.buf[d.pos] == '\\' && d.buf[d.pos+1] == 'u' {
				if r2, err := d.hex4(2); err == nil {
					if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
						d.pos += 6
						d.batch = utf8.AppendRune(d.batch, dec)
						return nil
					}
				}
			}
			r = unicode.ReplacementChar
		}
		d.batch = utf8.AppendRune(d.batch, r)
		return nil
	default:
		d.pos++
		return d.syntax("invalid escape character %q in string", c)
	}
	d.pos += 2
	return nil
}

// hex4 parses the four hex digits rel bytes after the current position.
func (d *decoder) hex4(rel int) (rune, error) {
	if !d.need(rel + 4) {
		return 0, d.eof()
	}
	var r rune
	for _, c := range d.buf[d.pos+rel : d.pos+rel+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, d.syntax("invalid character %q in \\u escape", c)
		}
		r = r<<4 | rune(c)
	}
	return r, nil
}

// key decodes an object key and the colon after it; the key's bytes stay
// at the end of the batch buffer until the caller drops them.
func (d *decoder) key() ([]byte, error) {
	off, err := d.str()
	if err != nil {
		return nil, err
	}
	if err := d.expect(':'); err != nil {
		return nil, err
	}
	return d.batch[off:], nil
}

// drop removes a key returned by d.key from the end of the batch buffer.
func (d *decoder) drop(key []byte) { d.batch = d.batch[:len(d.batch)-len(key)] }

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

// matchKey returns the index of the name key matches, or -1. An exact match
// is tried first.
func matchKey(key []byte, names []string) int {
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
			l.m.Set(l.k, "")
		} else {
			l.m.Set(l.k, all[l.off:l.off+l.n])
		}
		d.labelRefs[i] = labelRef{}
	}
	d.refs = d.refs[:0]
	d.labelRefs = d.labelRefs[:0]
	d.batch = d.batch[:0]
}

// stringField decodes a string or null into *p.
func (d *decoder) stringField(p *string, intern func([]byte) string) error {
	c, err := d.peek()
	if err != nil {
		return err
	}
	switch c {
	case 'n':
		return d.literal("null")
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
		if err := d.skip(); err != nil {
			return err
		}
		return d.typeError(c, "a string")
	}
}

// takeString decodes a string or null and returns it as a new string;
// null gives ok == false.
func (d *decoder) takeString(intern func([]byte) string) (s string, ok bool, err error) {
	c, err := d.peek()
	if err != nil {
		return "", false, err
	}
	switch c {
	case 'n':
		return "", false, d.literal("null")
	case '"':
		off, err := d.str()
		if err != nil {
			return "", false, err
		}
		b := d.batch[off:]
		if intern != nil {
			s = intern(b)
		}
		if s == "" {
			s = string(b)
		}
		d.batch = d.batch[:off]
		return s, true, nil
	default:
		if err := d.skip(); err != nil {
			return "", false, err
		}
		return "", false, d.typeError(c, "a string")
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

// number consumes a JSON number and returns its value when it is an
// integer literal that fits an int64.
func (d *decoder) number() (v int64, isInt bool, err error) {
	var neg, frac, overflow bool
	var u uint64
	digits := func(acc bool) (int, error) {
		n := 0
		for {
			if d.pos >= len(d.buf) && !d.fill() {
				if d.readErr != nil && !errors.Is(d.readErr, io.EOF) {
					return n, d.eof()
				}
				return n, nil
			}
			c := d.buf[d.pos]
			if c < '0' || c > '9' {
				return n, nil
			}
			if acc {
				if u > (1<<64-1)/10 || u*10 > 1<<64-1-uint64(c-'0') {
					overflow = true
				}
				u = u*10 + uint64(c-'0')
			}
			d.pos++
			n++
		}
	}
	next := func() (byte, bool) {
		if d.pos >= len(d.buf) && !d.fill() {
			return 0, false
		}
		return d.buf[d.pos], true
	}
	c, _ := next()
	if c == '-' {
		neg = true
		d.pos++
	}
	c, ok := next()
	switch {
	case !ok:
		return 0, false, d.eof()
	case c == '0':
		d.pos++
	case '1' <= c && c <= '9':
		if _, err := digits(true); err != nil {
			return 0, false, err
		}
	default:
		return 0, false, d.syntax("invalid character %q in numeric literal", c)
	}
	if c, ok := next(); ok && c == '.' {
		frac = true
		d.pos++
		if n, err := digits(false); err != nil || n == 0 {
			return 0, false, d.numberEnd(err)
		}
	}
	if c, ok := next(); ok && (c == 'e' || c == 'E') {
		frac = true
		d.pos++
		if c, ok := next(); ok && (c == '+' || c == '-') {
			d.pos++
		}
		if n, err := digits(false); err != nil || n == 0 {
			return 0, false, d.numberEnd(err)
		}
	}
	if d.readErr != nil && !errors.Is(d.readErr, io.EOF) && d.pos >= len(d.buf) {
		return 0, false, d.eof()
	}
	if frac || overflow {
		return 0, false, nil
	}
	if neg {
		switch {
		case u > 1<<63:
			return 0, false, nil
		case u == 1<<63:
			return math.MinInt64, true, nil
		}
		return -int64(u), true, nil
	}
	if u > 1<<63-1 {
		return 0, false, nil
	}
	return int64(u), true, nil
}

func (d *decoder) numberEnd(err error) error {
	if err != nil {
		return err
	}
	if d.pos >= len(d.buf) {
		return d.eof()
	}
	return d.syntax("invalid character %q in numeric literal", d.buf[d.pos])
}

// skip consumes any JSON value, checking its syntax.
func (d *decoder) skip() error {
	c, err := d.peek()
	if err != nil {
		return err
	}
	switch c {
	case '"':
		off, err := d.str()
		d.batch = d.batch[:off]
		return err
	case 'n':
		return d.literal("null")
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case '{':
		d.pos++
		if err := d.push(); err != nil {
			return err
		}
		err := d.object(func(key []byte) error {
			d.drop(key)
			return d.skip()
		})
		d.depth--
		return err
	case '[':
		d.pos++
		if err := d.push(); err != nil {
			return err
		}
		err := d.array(func(int) error { return d.skip() })
		d.depth--
		return err
	default:
		if c == '-' || ('0' <= c && c <= '9') {
			_, _, err := d.number()
			return err
		}
		d.pos++
		return d.syntax("invalid character %q looking for beginning of value", c)
	}
}

// object walks the members of an object whose '{' was consumed, calling
// member for each key (its bytes valid until member decodes the value).
func (d *decoder) object(member func(key []byte) error) error {
	c, err := d.peek()
	if err != nil {
		return err
	}
	if c == '}' {
		d.pos++
		return nil
	}
	for {
		if c, err := d.peek(); err != nil {
			return err
		} else if c != '"' {
			d.pos++
			return d.syntax("invalid character %q looking for beginning of object key string", c)
		}
		key, err := d.key()
		if err != nil {
			return err
		}
		// member drops the key from the batch buffer (d.drop) before it
		// decodes the value.
		if err := member(key); err != nil {
			return err
		}
		c, err := d.peek()
		if err != nil {
			return err
		}
		d.pos++
		switch c {
		case ',':
		case '}':
			return nil
		default:
			return d.syntax("invalid character %q after object key:value pair", c)
		}
	}
}

// array walks the elements of an array whose '[' was consumed.
func (d *decoder) array(elem func(i int) error) error {
	c, err := d.peek()
	if err != nil {
		return err
	}
	if c == ']' {
		d.pos++
		return nil
	}
	for i := 0; ; i++ {
		if err := elem(i); err != nil {
			return err
		}
		c, err := d.peek()
		if err != nil {
			return err
		}
		d.pos++
		switch c {
		case ',':
		case ']':
			return nil
		default:
			return d.syntax("invalid character %q after array element", c)
		}
	}
}

// open consumes '[' or '{' (want) or null; it reports whether a container
// follows. Anything else is a type error naming what.
func (d *decoder) open(want byte, what string) (bool, error) {
	c, err := d.peek()
	if err != nil {
		return false, err
	}
	switch c {
	case 'n':
		return false, d.literal("null")
	case want:
		d.pos++
		return true, d.push()
	default:
		if err := d.skip(); err != nil {
			return false, err
		}
		return false, d.typeError(c, what)
	}
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
			if len(chunks) == 0 || len(chunks[len(chunks)-1]) == cap(chunks[len(chunks)-1]) {
				size := 64
				if len(chunks) > 0 {
					size = min(2*cap(chunks[len(chunks)-1]), 8192)
				}
				chunks = append(chunks, make([]*endpoint.Endpoint, 0, size))
			}
			c := &chunks[len(chunks)-1]
			*c = append(*c, nil)
			slot = &(*c)[len(*c)-1]
		}
		isNull, err := d.isNull()
		if err != nil {
			return err
		}
		if isNull {
			*slot = nil
			return d.charge(costElement)
		}
		if *slot == nil {
			if err := d.charge(costEndpoint); err != nil {
				return err
			}
			*slot = d.newEndpoint()
		}
		if err := d.endpoint(*slot); err != nil {
			return fmt.Errorf("endpoint %d: %w", i, err)
		}
		if top && len(d.batch) >= batchSize {
			d.flush()
		}
		return nil
	})
	d.depth--
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

func (d *decoder) newEndpoint() *endpoint.Endpoint {
	if len(d.eps) == cap(d.eps) {
		d.eps = make([]endpoint.Endpoint, 0, slabSize)
	}
	d.eps = d.eps[:len(d.eps)+1]
	return &d.eps[len(d.eps)-1]
}

var endpointKeys = []string{"dnsName", "targets", "recordType", "setIdentifier", "recordTTL", "labels", "providerSpecific"}

// endpoint decodes an endpoint object into ep (or consumes null, leaving ep
// as it is: the caller handles null elements).
func (d *decoder) endpoint(ep *endpoint.Endpoint) error {
	ok, err := d.open('{', "an endpoint")
	if !ok || err != nil {
		return err
	}
	defer func() { d.depth-- }()
	return d.object(func(key []byte) error {
		k := matchKey(key, endpointKeys)
		d.drop(key)
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
	c, err := d.peek()
	if err != nil {
		return err
	}
	if c == 'n' {
		return d.literal("null")
	}
	if c != '-' && (c < '0' || c > '9') {
		if err := d.skip(); err != nil {
			return err
		}
		return d.typeError(c, "an int64")
	}
	v, isInt, err := d.number()
	if err != nil {
		return err
	}
	if !isInt {
		return d.syntax("number is not an int64 TTL")
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
		c, err := d.peek()
		if err != nil {
			return err
		}
		switch c {
		case 'n':
			spans = append(spans, span{off: -1})
			return d.literal("null")
		case '"':
			off, err := d.str()
			spans = append(spans, span{off: off, n: len(d.batch) - off})
			return err
		default:
			if err := d.skip(); err != nil {
				return err
			}
			return d.typeError(c, "a target string")
		}
	})
	d.depth--
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

// labels decodes a labels object into out: the labels it names are set
// when the batch is flushed (null empties out).
func (d *decoder) labels(out *endpoint.Labels) error {
	ok, err := d.open('{', "labels")
	if !ok || err != nil {
		// null: the labels of an earlier "labels" key, still pending,
		// are dropped with the ones already set.
		*out = endpoint.Labels{}
		d.labelRefs = slices.DeleteFunc(d.labelRefs, func(l labelRef) bool { return l.m == out })
		return err
	}
	defer func() { d.depth-- }()
	if out.Len() == 0 {
		if err := d.charge(costLabels); err != nil {
			return err
		}
	}
	err = d.object(func(key []byte) error {
		if err := d.charge(costLabel); err != nil {
			return err
		}
		k := internLabelKey(key)
		if k == "" {
			k = string(key)
		}
		d.drop(key)
		// The value is stored when the batch is flushed, with the other
		// strings, in the order the labels came.
		c, err := d.peek()
		if err != nil {
			return err
		}
		switch c {
		case 'n':
			d.labelRefs = append(d.labelRefs, labelRef{m: out, k: k, off: -1})
			return d.literal("null")
		case '"':
			off, err := d.str()
			if err != nil {
				return err
			}
			d.labelRefs = append(d.labelRefs, labelRef{m: out, k: k, off: off, n: len(d.batch) - off})
			return nil
		default:
			if err := d.skip(); err != nil {
				return err
			}
			return fmt.Errorf("label %q: %w", k, d.typeError(c, "a string"))
		}
	})
	return err
}

var propertyKeys = []string{"name", "value"}

func (d *decoder) providerSpecific(old endpoint.ProviderSpecific) (endpoint.ProviderSpecific, error) {
	ok, err := d.open('[', "a list of provider-specific properties")
	if !ok || err != nil {
		return nil, err
	}
	scratch := d.scratch[:0]
	err = d.array(func(i int) error {
		if err := d.charge(costProperty); err != nil {
			return err
		}
		var p endpoint.ProviderSpecificProperty
		if i < len(old) {
			p = old[i]
		}
		ok, err := d.open('{', "a provider-specific property")
		if err != nil {
			return err
		}
		if ok {
			err = d.object(func(key []byte) error {
				k := matchKey(key, propertyKeys)
				d.drop(key)
				if k < 0 {
					return d.skip()
				}
				s, ok, err := d.takeString(nil)
				if ok {
					if k == 0 {
						p.Name = s
					} else {
						p.Value = s
					}
				}
				return err
			})
			d.depth--
		}
		scratch = append(scratch, p)
		return err
	})
	d.depth--
	defer func() {
		clear(scratch)
		d.scratch = scratch[:0]
	}()
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

var changesKeys = []string{"create", "updateOld", "updateNew", "delete"}

func (d *decoder) changes(c *plan.Changes) error {
	ok, err := d.open('{', "a change set")
	if !ok || err != nil {
		return err
	}
	defer func() { d.depth-- }()
	return d.object(func(key []byte) error {
		k := matchKey(key, changesKeys)
		d.drop(key)
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
