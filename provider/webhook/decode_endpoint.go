package webhook

import (
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zonesync/zonesync/endpoint"
)

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
	// The tokenizer has checked the syntax of the number: what ParseInt
	// refuses is a fraction, an exponent or a value beyond an int64, as
	// encoding/json refuses them for an int64 field.
	v, perr := strconv.ParseInt(string(num), 10, 64)
	if perr != nil {
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
