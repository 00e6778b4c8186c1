package webhook

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// syntaxError reports a body that is not JSON or not the JSON of the value
// expected, with the byte offset at which the decoder noticed it.
type syntaxError struct {
	offset int64
	msg    string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at offset %d: %s", e.offset, e.msg)
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
