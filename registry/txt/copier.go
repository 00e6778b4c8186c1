package txt

import "github.com/zonesync/zonesync/endpoint"

// recordCopier deep-copies the records a [provider.RecordVisitor] shows,
// which are views valid only during the visit, into slabs: one of
// endpoints, one of targets and one of provider-specific properties, each
// allocated at the size of the previous read and extended a chunk at a
// time beyond it. A steady-state read thus allocates about as often as
// the bulk copy of a provider's Records, and no more per record. Targets
// and properties are sliced with a capacity equal to their length, so
// appending to one record's slice cannot overwrite its neighbour's.
// Strings and Labels are shared with the view: both are immutable.
type recordCopier struct {
	eps     []endpoint.Endpoint
	targets []string
	props   []endpoint.ProviderSpecificProperty
}

// copyChunk is the size of the slabs allocated beyond the previous read's.
const copyChunk = 1024

func newRecordCopier(hint readSizes) recordCopier {
	var c recordCopier
	if hint.records > 0 {
		c.eps = make([]endpoint.Endpoint, 0, hint.records)
	}
	if hint.targets > 0 {
		c.targets = make([]string, 0, hint.targets)
	}
	if hint.props > 0 {
		c.props = make([]endpoint.ProviderSpecificProperty, 0, hint.props)
	}
	return c
}

// copy returns a deep copy of ep, as [endpoint.Endpoint.DeepCopy] makes
// it: nil slices stay nil.
func (c *recordCopier) copy(ep *endpoint.Endpoint) *endpoint.Endpoint {
	if len(c.eps) == cap(c.eps) {
		c.eps = make([]endpoint.Endpoint, 0, copyChunk)
	}
	c.eps = append(c.eps, *ep)
	e := &c.eps[len(c.eps)-1]
	e.Targets = carve(&c.targets, ep.Targets)
	e.ProviderSpecific = carve(&c.props, ep.ProviderSpecific)
	return e
}

// carve appends src to *slab, which it replaces by a new one when src
// does not fit, and returns the copy, with a capacity equal to its length;
// nil gives nil.
func carve[T any](slab *[]T, src []T) []T {
	if src == nil {
		return nil
	}
	if cap(*slab)-len(*slab) < len(src) {
		*slab = make([]T, 0, max(len(src), copyChunk))
	}
	start := len(*slab)
	*slab = append(*slab, src...)
	return (*slab)[start:len(*slab):len(*slab)]
}
