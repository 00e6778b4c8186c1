package connector

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/zonesync/zonesync/endpoint"
)

// MaxDecodedPerByte bounds what a [Connector] response may decode to: the
// decoder counts the memory of the endpoints it builds (the endpoint, its
// target, label and property slots, label maps, and what converting and
// merging them costs; the string bytes themselves are never more than the
// bytes read) and fails the read with [ErrTooDense] once that exceeds
// MaxDecodedPerByte bytes per byte of the response plus 1 MiB. Real lists
// decode to 3 to 10 bytes per byte; a stream of empty endpoints or empty
// strings, one byte each on the wire, would decode to more than 100. With
// the size limit ([Options.MaxBytes], default [DefaultMaxBytes]) it bounds
// the memory of one read to about MaxDecodedPerByte+2 times the limit (the
// response itself is held while it is decoded).
const MaxDecodedPerByte = 16

// ErrTooDense is returned (wrapped) by [Connector.Endpoints] when a
// response decodes to more memory than [MaxDecodedPerByte] allows.
var ErrTooDense = errors.New("connector: response decodes to too much memory for its size")

// decodeSlack is what a response may decode to beyond its ratio, so that a
// short list of sparse endpoints is never refused.
const decodeSlack = 1 << 20

// What the connector's decoder counts for each value (see
// MaxDecodedPerByte).
const (
	gobCostEndpoint = 384 // the endpoint, its pointer, its converted copy, its merge-map entry
	gobCostString   = 32  // a target: its string header, and its copy
	gobCostLabels   = 320 // an empty label map
	gobCostLabel    = 64  // one map entry
	gobCostProperty = 32  // one provider-specific property
	gobCostType     = 128 // one type definition
)

// Limits of the gob decoder on what a peer may declare.
const (
	gobMaxTypes = 1024 // type definitions in one stream
	gobMaxDepth = 64   // nesting of values being skipped
	gobMaxDefs  = 4096 // fields of one struct definition
)

// Type ids gob predefines (encoding/gob's wire format).
const (
	gobBool      = 1
	gobInt       = 2
	gobUint      = 3
	gobFloat     = 4
	gobBytes     = 5
	gobString    = 6
	gobComplex   = 7
	gobInterface = 8
	// 9 to 15 are reserved; 16 to 23 describe types (wireType and its parts)
	// and are never sent as values by an endpoint list.
	gobFirstUser = 64
)

// gobKind is what a user type id was defined as.
type gobKind int

const (
	gobKindArray gobKind = iota + 1
	gobKindSlice
	gobKindStruct
	gobKindMap
	gobKindEncoder // GobEncoder, BinaryMarshaler, TextMarshaler: a byte string
)

type gobField struct {
	name string
	id   int
}

// gobType is a type definition received from the peer.
type gobType struct {
	kind      gobKind
	name      string
	elem, key int // array, slice, map
	length    int // array
	fields    []gobField
}

// gobDecoder reads the one gob value of a connector response: an endpoint
// list, []*Endpoint on the wire. It reads each message whole (its length
// checked against the bytes still allowed), and decodes values itself from
// the type definitions the peer sends, so that it checks every count the
// peer declares against the bytes that remain before allocating for it and
// counts the memory it builds (see MaxDecodedPerByte): encoding/gob sizes
// maps from declared counts and turns one byte of an empty element into a
// hundred bytes of memory without any such check.
type gobDecoder struct {
	r       *bufio.Reader
	left    int64 // bytes the response may still have
	read    int64 // bytes of the response read so far
	types   map[int]*gobType
	charged int64

	msg []byte // the message being decoded
	pos int
}

// errGobTooLarge marks a message that would exceed the byte limit.
var errGobTooLarge = errors.New("over the size limit")

func (d *gobDecoder) charge(n int64) error {
	d.charged += n
	if d.charged > MaxDecodedPerByte*d.read+decodeSlack {
		return fmt.Errorf("%w: %d bytes of endpoints from %d bytes read (at most %d per byte)", ErrTooDense, d.charged, d.read, MaxDecodedPerByte)
	}
	return nil
}

// streamUint reads a gob unsigned integer from the stream (a message
// length).
func (d *gobDecoder) streamUint() (uint64, error) {
	b, err := d.streamByte()
	if err != nil {
		return 0, err
	}
	if b < 0x80 {
		return uint64(b), nil
	}
	n := -int(int8(b))
	if n > 8 {
		return 0, errors.New("invalid message length")
	}
	var x uint64
	for range n {
		c, err := d.streamByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		x = x<<8 | uint64(c)
	}
	return x, nil
}

func (d *gobDecoder) streamByte() (byte, error) {
	if d.left <= 0 {
		return 0, errGobTooLarge
	}
	b, err := d.r.ReadByte()
	if err != nil {
		return 0, err
	}
	d.left--
	d.read++
	return b, nil
}

// readMessage reads the next message whole. Its buffer grows with the bytes
// that arrive, never to a declared length first.
func (d *gobDecoder) readMessage() error {
	n, err := d.streamUint()
	if err != nil {
		return err
	}
	if n == 0 {
		return errors.New("empty message")
	}
	if n > uint64(d.left) {
		// Refused without reading it.
		return fmt.Errorf("a message of %d bytes declared, %d bytes allowed: %w", n, d.left, errGobTooLarge)
	}
	d.msg = d.msg[:0]
	const chunk = 1 << 20
	for remaining := int(n); remaining > 0; {
		k := min(remaining, chunk)
		start := len(d.msg)
		d.msg = append(d.msg, make([]byte, k)...)
		if _, err := io.ReadFull(d.r, d.msg[start:]); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		remaining -= k
	}
	d.left -= int64(n)
	d.read += int64(n)
	d.pos = 0
	return nil
}

var errGobShort = errors.New("message ends inside a value")

func (d *gobDecoder) remaining() int { return len(d.msg) - d.pos }

func (d *gobDecoder) uint() (uint64, error) {
	if d.pos >= len(d.msg) {
		return 0, errGobShort
	}
	b := d.msg[d.pos]
	d.pos++
	if b < 0x80 {
		return uint64(b), nil
	}
	n := -int(int8(b))
	if n > 8 || n > d.remaining() {
		return 0, errors.New("invalid unsigned integer")
	}
	var x uint64
	for _, c := range d.msg[d.pos : d.pos+n] {
		x = x<<8 | uint64(c)
	}
	d.pos += n
	return x, nil
}

func (d *gobDecoder) int() (int64, error) {
	u, err := d.uint()
	if u&1 != 0 {
		return ^int64(u >> 1), err
	}
	return int64(u >> 1), err
}

// count reads a declared element count and checks it against the bytes left
// in the message, minBytes per element.
func (d *gobDecoder) count(what string, minBytes int) (int, error) {
	u, err := d.uint()
	if err != nil {
		return 0, err
	}
	if u > uint64(d.remaining()/minBytes) {
		return 0, fmt.Errorf("%s: %d elements declared, %d bytes left", what, u, d.remaining())
	}
	return int(u), nil
}

// bytes reads a length-prefixed byte string, as a view into the message.
func (d *gobDecoder) bytes() ([]byte, error) {
	u, err := d.uint()
	if err != nil {
		return nil, err
	}
	if u > uint64(d.remaining()) {
		return nil, fmt.Errorf("string of %d bytes declared, %d left", u, d.remaining())
	}
	b := d.msg[d.pos : d.pos+int(u)]
	d.pos += int(u)
	return b, nil
}

func (d *gobDecoder) string() (string, error) {
	b, err := d.bytes()
	return string(b), err
}

func (d *gobDecoder) typeID() (int, error) {
	v, err := d.int()
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, fmt.Errorf("type id %d out of range", v)
	}
	return int(v), nil
}

// structFields walks the fields of a struct value, calling field with each
// field number, until the terminating zero delta.
func (d *gobDecoder) structFields(field func(num int) error) error {
	num := -1
	for {
		delta, err := d.uint()
		if err != nil {
			return err
		}
		if delta == 0 {
			return nil
		}
		if delta > gobMaxDefs {
			return fmt.Errorf("field delta %d too large", delta)
		}
		num += int(delta)
		if err := field(num); err != nil {
			return err
		}
	}
}

// typeDefinition decodes a wireType (a struct of seven optional parts, each
// a struct starting with a CommonType) into d.types[id].
func (d *gobDecoder) typeDefinition(id int) error {
	if id < gobFirstUser {
		return fmt.Errorf("definition of predefined type id %d", id)
	}
	if _, ok := d.types[id]; ok {
		return fmt.Errorf("type id %d defined twice", id)
	}
	if len(d.types) >= gobMaxTypes {
		return fmt.Errorf("more than %d type definitions", gobMaxTypes)
	}
	if err := d.charge(gobCostType); err != nil {
		return err
	}
	t := &gobType{}
	err := d.structFields(func(part int) error {
		if t.kind != 0 {
			return errors.New("type definition with two parts")
		}
		kind, err := wireTypeKind(part)
		if err != nil {
			return err
		}
		t.kind = kind
		return d.structFields(func(f int) error { return d.wireTypeField(t, f) })
	})
	if err != nil {
		return fmt.Errorf("type definition %d: %w", id, err)
	}
	if t.kind == 0 {
		return fmt.Errorf("type definition %d: empty", id)
	}
	d.types[id] = t
	return nil
}

// wireTypeKind returns the kind a part of gob's wireType stands for: the
// field number of its ArrayT, SliceT, StructT, MapT or one of the three
// encoder types.
func wireTypeKind(part int) (gobKind, error) {
	switch part {
	case 0:
		return gobKindArray, nil
	case 1:
		return gobKindSlice, nil
	case 2:
		return gobKindStruct, nil
	case 3:
		return gobKindMap, nil
	case 4, 5, 6:
		return gobKindEncoder, nil
	}
	return 0, fmt.Errorf("unknown type definition part %d", part)
}

// wireTypeField reads field f of the part of a type definition whose kind t
// already holds.
func (d *gobDecoder) wireTypeField(t *gobType, f int) error {
	switch {
	case f == 0: // CommonType{Name, Id}
		return d.commonType(t)
	case f == 1 && t.kind == gobKindStruct: // Field []fieldType
		return d.structFieldTypes(t)
	case f == 1 && t.kind == gobKindMap:
		var err error
		t.key, err = d.typeID()
		return err
	case f == 1 && (t.kind == gobKindArray || t.kind == gobKindSlice):
		var err error
		t.elem, err = d.typeID()
		return err
	case f == 2 && t.kind == gobKindMap:
		var err error
		t.elem, err = d.typeID()
		return err
	case f == 2 && t.kind == gobKindArray:
		n, err := d.int()
		if err == nil && (n < 0 || n > math.MaxInt32) {
			err = fmt.Errorf("array length %d", n)
		}
		t.length = int(n)
		return err
	}
	return fmt.Errorf("unknown field %d of a type definition", f)
}

// commonType reads gob's CommonType{Name, Id} into t.name; the id is
// checked and dropped.
func (d *gobDecoder) commonType(t *gobType) error {
	return d.structFields(func(c int) error {
		switch c {
		case 0:
			var err error
			t.name, err = d.string()
			return err
		case 1:
			_, err := d.typeID()
			return err
		}
		return fmt.Errorf("unknown CommonType field %d", c)
	})
}

// structFieldTypes reads the []fieldType{Name, Id} of a struct type into
// t.fields.
func (d *gobDecoder) structFieldTypes(t *gobType) error {
	n, err := d.count("struct fields", 1)
	if err == nil && n > gobMaxDefs {
		err = fmt.Errorf("struct of %d fields", n)
	}
	for i := 0; err == nil && i < n; i++ {
		var fld gobField
		err = d.structFields(func(c int) error {
			var err error
			switch c {
			case 0:
				fld.name, err = d.string()
			case 1:
				fld.id, err = d.typeID()
			default:
				err = fmt.Errorf("unknown fieldType field %d", c)
			}
			return err
		})
		t.fields = append(t.fields, fld)
	}
	return err
}

func (d *gobDecoder) userType(id int) (*gobType, error) {
	t, ok := d.types[id]
	if !ok {
		return nil, fmt.Errorf("undefined type id %d", id)
	}
	return t, nil
}

// isSliceOf reports whether id is a slice whose elements have type elem.
func (d *gobDecoder) isSliceOf(id, elem int) bool {
	t, ok := d.types[id]
	return ok && t.kind == gobKindSlice && t.elem == elem
}

// skip consumes a value of type id without keeping it.
func (d *gobDecoder) skip(id, depth int) error {
	if depth > gobMaxDepth {
		return fmt.Errorf("values nested deeper than %d", gobMaxDepth)
	}
	switch id {
	case gobBool, gobInt, gobUint, gobFloat:
		_, err := d.uint()
		return err
	case gobComplex:
		if _, err := d.uint(); err != nil {
			return err
		}
		_, err := d.uint()
		return err
	case gobBytes, gobString:
		_, err := d.bytes()
		return err
	case gobInterface:
		return errors.New("interface values are not supported")
	}
	t, err := d.userType(id)
	if err != nil {
		return err
	}
	switch t.kind {
	case gobKindArray, gobKindSlice:
		n, err := d.count("list", 1)
		if err != nil {
			return err
		}
		for range n {
			if err := d.skip(t.elem, depth+1); err != nil {
				return err
			}
		}
		return nil
	case gobKindMap:
		n, err := d.count("map", 2)
		if err != nil {
			return err
		}
		for range n {
			if err := d.skip(t.key, depth+1); err != nil {
				return err
			}
			if err := d.skip(t.elem, depth+1); err != nil {
				return err
			}
		}
		return nil
	case gobKindStruct:
		return d.structFields(func(num int) error {
			if num >= len(t.fields) {
				return fmt.Errorf("field %d of a struct of %d", num, len(t.fields))
			}
			return d.skip(t.fields[num].id, depth+1)
		})
	default: // gobKindEncoder
		_, err := d.bytes()
		return err
	}
}

// wrongType is the error for a known field sent with another type.
func wrongType(field, want string) error {
	return fmt.Errorf("field %s: wire type is not %s", field, want)
}

// endpointList decodes the value of the message: a slice of endpoint
// structs.
func (d *gobDecoder) endpointList(id int) ([]*endpoint.Endpoint, error) {
	list, err := d.userType(id)
	if err != nil {
		return nil, err
	}
	if list.kind != gobKindSlice {
		return nil, errors.New("the value is not a list")
	}
	elem, err := d.userType(list.elem)
	if err != nil {
		return nil, err
	}
	if elem.kind != gobKindStruct {
		return nil, errors.New("the value is not a list of endpoints")
	}
	if delta, err := d.uint(); err != nil || delta != 0 {
		return nil, errors.New("corrupted value: non-zero delta for a top-level list")
	}
	n, err := d.count("endpoint list", 1)
	if err != nil {
		return nil, err
	}
	// Counted (and so bounded) before any allocation for the list.
	if err := d.charge(int64(n) * gobCostEndpoint); err != nil {
		return nil, err
	}
	out := make([]*endpoint.Endpoint, 0, n)
	for i := range n {
		ep := &endpoint.Endpoint{}
		if err := d.endpoint(elem, ep); err != nil {
			return nil, fmt.Errorf("endpoint %d: %w", i, err)
		}
		out = append(out, ep)
	}
	return out, nil
}

func (d *gobDecoder) endpoint(t *gobType, ep *endpoint.Endpoint) error {
	return d.structFields(func(num int) error {
		if num >= len(t.fields) {
			return fmt.Errorf("field %d of a struct of %d", num, len(t.fields))
		}
		f := t.fields[num]
		var err error
		switch f.name {
		case "DNSName", "RecordType", "SetIdentifier":
			if f.id != gobString {
				return wrongType(f.name, "string")
			}
			var s string
			s, err = d.string()
			switch f.name {
			case "DNSName":
				ep.DNSName = s
			case "RecordType":
				ep.RecordType = s
			default:
				ep.SetIdentifier = s
			}
		case "RecordTTL":
			if f.id != gobInt {
				return wrongType(f.name, "int")
			}
			var v int64
			v, err = d.int()
			ep.RecordTTL = endpoint.TTL(v)
		case "Targets":
			if !d.isSliceOf(f.id, gobString) {
				return wrongType(f.name, "a list of strings")
			}
			ep.Targets, err = d.strings()
		case "Labels":
			mt, ok := d.types[f.id]
			if !ok || mt.kind != gobKindMap || mt.key != gobString || mt.elem != gobString {
				return wrongType(f.name, "a map of strings")
			}
			ep.Labels, err = d.labels()
		case "ProviderSpecific":
			st, ok := d.types[f.id]
			if !ok || st.kind != gobKindSlice {
				return wrongType(f.name, "a list of properties")
			}
			pt, ok := d.types[st.elem]
			if !ok || pt.kind != gobKindStruct {
				return wrongType(f.name, "a list of properties")
			}
			ep.ProviderSpecific, err = d.properties(pt)
		default:
			err = d.skip(f.id, 1)
		}
		if err != nil {
			// An unknown field's name is the sender's text.
			return fmt.Errorf("field %s: %w", endpoint.Printable(f.name), err)
		}
		return nil
	})
}

func (d *gobDecoder) strings() ([]string, error) {
	n, err := d.count("targets", 1)
	if err != nil {
		return nil, err
	}
	if err := d.charge(int64(n) * gobCostString); err != nil {
		return nil, err
	}
	out := make([]string, n)
	for i := range out {
		if out[i], err = d.string(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// labels decodes a gob map of strings. The entries come in the sender's map
// order and a key given twice keeps its last value, as gob decodes them
// into a map.
func (d *gobDecoder) labels() (endpoint.Labels, error) {
	n, err := d.count("labels", 2)
	if err != nil {
		return endpoint.Labels{}, err
	}
	if err := d.charge(gobCostLabels + int64(n)*gobCostLabel); err != nil {
		return endpoint.Labels{}, err
	}
	// Sized from the count, which the bytes left have vouched for.
	m := make(map[string]string, n)
	for range n {
		k, err := d.string()
		if err != nil {
			return endpoint.Labels{}, err
		}
		v, err := d.string()
		if err != nil {
			return endpoint.Labels{}, err
		}
		m[k] = v
	}
	return endpoint.LabelsFromMap(m), nil
}

func (d *gobDecoder) properties(t *gobType) (endpoint.ProviderSpecific, error) {
	n, err := d.count("provider-specific properties", 1)
	if err != nil {
		return nil, err
	}
	if err := d.charge(int64(n) * gobCostProperty); err != nil {
		return nil, err
	}
	out := make(endpoint.ProviderSpecific, n)
	for i := range out {
		p := &out[i]
		err := d.structFields(func(num int) error {
			if num >= len(t.fields) {
				return fmt.Errorf("field %d of a struct of %d", num, len(t.fields))
			}
			f := t.fields[num]
			switch f.name {
			case "Name", "Value":
				if f.id != gobString {
					return wrongType(f.name, "string")
				}
				s, err := d.string()
				if f.name == "Name" {
					p.Name = s
				} else {
					p.Value = s
				}
				return err
			}
			return d.skip(f.id, 1)
		})
		if err != nil {
			return nil, fmt.Errorf("property %d: %w", i, err)
		}
	}
	return out, nil
}

// decode reads messages until the first value, which must be an endpoint
// list, and decodes it. Nothing after it is read.
func (d *gobDecoder) decode() ([]*endpoint.Endpoint, error) {
	for {
		if err := d.readMessage(); err != nil {
			return nil, err
		}
		id, err := d.typeID()
		if err != nil {
			return nil, err
		}
		if id < 0 {
			if err := d.typeDefinition(-id); err != nil {
				return nil, err
			}
		} else {
			eps, err := d.endpointList(id)
			if err != nil {
				return nil, err
			}
			if d.remaining() != 0 {
				return nil, fmt.Errorf("%d bytes after the endpoint list", d.remaining())
			}
			return eps, nil
		}
		if d.remaining() != 0 {
			return nil, fmt.Errorf("%d bytes after a type definition", d.remaining())
		}
	}
}

// decodeList reads one gob value, a list of endpoints, from r, reading at
// most maxBytes bytes and decoding to at most MaxDecodedPerByte bytes of
// endpoints per byte read (plus 1 MiB). The endpoints it returns are fresh;
// Labels is empty when an endpoint has none on the wire.
func decodeList(r io.Reader, maxBytes int64) ([]*endpoint.Endpoint, error) {
	d := &gobDecoder{r: bufio.NewReaderSize(io.LimitReader(r, maxBytes), 4096), left: maxBytes, types: map[int]*gobType{}}
	eps, err := d.decode()
	switch {
	case err == nil:
		return eps, nil
	case errors.Is(err, errGobTooLarge) && err != errGobTooLarge:
		return nil, fmt.Errorf("%v: %w", err, ErrTooLarge)
	case errors.Is(err, errGobTooLarge):
		return nil, fmt.Errorf("more than %d bytes: %w", maxBytes, ErrTooLarge)
	case errors.Is(err, ErrTooDense):
		return nil, err
	}
	return nil, fmt.Errorf("decoding endpoints at byte %d: %w", d.read, err)
}
