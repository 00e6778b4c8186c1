package webhook

import (
	"bufio"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// The decoder reads the external-dns JSON forms of an endpoint list and of
// a change set straight from a stream, accepting exactly what
// encoding/json.Unmarshal accepts for []*endpoint.Endpoint and
// *plan.Changes and producing the same values. The tokenizer is jsontext
// (with duplicate names and invalid UTF-8 allowed, as encoding/json allows
// them); the decoder maps its tokens onto endpoints with encoding/json's
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
//
// Why not json.UnmarshalDecode of github.com/go-json-experiment/json with
// its encoding/json (v1) options: it gives the same values (the cases of
// codec_internal_test.go agree, TestJSONv2DecodesAlike), but it allocates
// every endpoint and every string on its own. On BenchmarkCodec
// (op=decode-jsonv2 against op=decode, 200k endpoints) that is 6.4 times
// the allocations, 2.1 times the bytes and 1.7 times the time (median of
// five alternating runs, 392 ms against 229 ms), where the budget was 1.2
// times. And it counts nothing it allocates, so the memory bound
// (decode_limits.go) would need a hook on every type: as it is, a body of
// empty objects decodes to about 65 bytes per byte read, four times what
// MaxDecodedBytesPerByte allows.
//
// The pieces, by concern:
//
//   - decode.go: the entry points and the change set;
//   - decode_endpoint.go: endpoint lists, endpoints and their fields;
//   - decode_strings.go: strings, the batch buffer they are copied out of,
//     interning;
//   - decode_tokens.go: walking jsontext's tokens, and syntax errors;
//   - decode_limits.go: the memory bound (ErrBodyTooDense);
//   - keys.go: the JSON field names, shared with the encoder, and
//     encoding/json's case-insensitive matching of keys to them.

const (
	readSize  = 64 << 10 // the bytes read from the body at a time
	batchSize = 16 << 10 // the batch buffer is copied out once this full
	slabSize  = 512      // endpoints (and targets) per shared backing array
)

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

// changes decodes a change set object (or null, leaving c empty) into c;
// a list named twice decodes into what the first one left, as in
// encoding/json.
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
