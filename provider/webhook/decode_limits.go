package webhook

import (
	"errors"
	"fmt"
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

// charge counts n bytes of decoded memory and fails once the total exceeds
// what the bytes read allow.
func (d *decoder) charge(n int64) error {
	d.charged += n
	if read := d.dec.InputOffset(); d.charged > MaxDecodedBytesPerByte*read+decodeSlack {
		return fmt.Errorf("%w: %d bytes of values from %d bytes read (at most %d per byte)", ErrBodyTooDense, d.charged, read, MaxDecodedBytesPerByte)
	}
	return nil
}
