package zonesync

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

// invalidEndpoints collects the desired endpoints of a cycle that fail
// validation, with their errors.
type invalidEndpoints struct {
	eps  []*endpoint.Endpoint
	errs []error // errs[i] is the validation error of eps[i]
	// adjusted is the number of eps, at the end, that were valid as the
	// source built them and invalid after AdjustEndpoints changed them.
	adjusted int
	// registry is the registry's own check of desired endpoints
	// ([registry.DesiredChecker]); nil when it has none.
	registry func(*endpoint.Endpoint) error
}

// validate returns the validation error of the desired endpoint ep:
// [endpoint.Endpoint.ValidateDesired], then the registry's check.
func (v *invalidEndpoints) validate(ep *endpoint.Endpoint) error {
	if err := ep.ValidateDesired(); err != nil {
		return err
	}
	if v.registry != nil {
		return v.registry(ep)
	}
	return nil
}

// split returns the valid endpoints of eps and keeps the others. An
// endpoint that is checked[i] itself (the same pointer at the same index)
// was validated before and is not validated again. eps is not modified;
// without invalid endpoints it is returned as is.
//
// With checked set, eps are what AdjustEndpoints returned for checked: an
// endpoint refused then was changed (or added) by the registry and its
// provider, not built so by the source, and its error says so
// ([errAdjusted]).
func (v *invalidEndpoints) split(eps, checked []*endpoint.Endpoint) []*endpoint.Endpoint {
	var valid []*endpoint.Endpoint
	for i, ep := range eps {
		var err error
		if i >= len(checked) || checked[i] != ep || ep == nil {
			err = v.validate(ep)
			if err != nil && checked != nil {
				err = &adjustedError{err: err}
				v.adjusted++
			}
		}
		if err == nil {
			if valid != nil {
				valid = append(valid, ep)
			}
			continue
		}
		if valid == nil {
			valid = make([]*endpoint.Endpoint, i, len(eps)-1)
			copy(valid, eps[:i])
		}
		v.eps = append(v.eps, ep)
		v.errs = append(v.errs, err)
	}
	if valid == nil {
		return eps
	}
	return valid
}

// verdict returns the validation error of a desired endpoint that split
// kept as invalid, nil for every other endpoint (split validated them).
func (v *invalidEndpoints) verdict() func(*endpoint.Endpoint) error {
	if len(v.eps) == 0 {
		return func(*endpoint.Endpoint) error { return nil }
	}
	errs := make(map[*endpoint.Endpoint]error, len(v.eps))
	for i, ep := range v.eps {
		errs[ep] = v.errs[i]
	}
	return func(ep *endpoint.Endpoint) error { return errs[ep] }
}

// adjustedError is the validation error of a desired endpoint that was
// valid as the source built it and invalid after AdjustEndpoints changed
// it: the layer that refused it is named, so that it never reads as a
// failure of the source.
type adjustedError struct{ err error }

func (e *adjustedError) Error() string {
	return "refused after AdjustEndpoints (the registry's provider changed the endpoint; the source built a valid one): " + e.err.Error()
}

func (e *adjustedError) Unwrap() error { return e.err }

// invalidKeyPrefix starts the key under which an invalid endpoint without a
// resource label is reported in the cycle's [*source.PartialError].
const invalidKeyPrefix = "zonesync/invalid-endpoint/"

// merge returns a new PartialError holding the failures of partial (nil:
// none) and one failure per object with invalid endpoints: keyed by the
// endpoints' resource label, so that the records of that object are
// protected, or, for an endpoint without one, by a key of its own that no
// current record carries, so that the planner holds every delete (see
// [plan.Plan.Protected]). Each object's error is flat and bounded
// ([source.PartialError.Add]).
func (v *invalidEndpoints) merge(partial *source.PartialError, current []*endpoint.Endpoint) *source.PartialError {
	return v.mergeRange(partial, current, 0, len(v.eps))
}

// mergeRange is merge for the invalid endpoints v.eps[from:to].
func (v *invalidEndpoints) mergeRange(partial *source.PartialError, current []*endpoint.Endpoint, from, to int) *source.PartialError {
	out := (&source.PartialError{Failed: map[string]error{}}).Merge(partial)
	var carried map[string]bool // resource labels of the current records
	for i := from; i < to; i++ {
		ep := v.eps[i]
		key := ""
		if ep != nil {
			key, _ = ep.Labels.Get(endpoint.ResourceLabelKey)
		}
		if key == "" {
			name := "<nil>"
			if ep != nil {
				name = ep.Key().String()
			}
			if carried == nil {
				carried = map[string]bool{}
				for _, cur := range current {
					if cur == nil {
						continue
					}
					if res, _ := cur.Labels.Get(endpoint.ResourceLabelKey); res != "" {
						carried[res] = true
					}
				}
			}
			key = invalidKeyPrefix + strconv.QuoteToASCII(name)
			for n := 2; carried[key]; n++ {
				key = invalidKeyPrefix + strconv.QuoteToASCII(name) + "#" + strconv.Itoa(n)
			}
		}
		out = out.Add(key, v.errs[i]) // Validate names the endpoint; causes stay flat and bounded
	}
	return out
}

// cycleError returns the cycle's partial error: the objects the source
// could not read (partial, as the source returned it; nil: none) and those
// with invalid endpoints, all in one [*source.PartialError] that the error
// wraps (merged: what merge returned). Its message names the layer at
// fault: endpoints that AdjustEndpoints made invalid are reported apart
// from the source's failures.
func (v *invalidEndpoints) cycleError(partial, merged *source.PartialError, current []*endpoint.Endpoint) error {
	if v.adjusted == 0 {
		return &partialError{err: fmt.Errorf("zonesync: planned without the objects the source could not read: %w", merged)}
	}
	n := len(v.eps) - v.adjusted
	fromSource := v.mergeRange(partial, current, 0, n)
	adjusted := v.mergeRange(nil, current, n, len(v.eps))
	var b strings.Builder
	b.WriteString("zonesync: planned without ")
	if len(fromSource.Failed) > 0 {
		b.WriteString("the objects the source could not read (")
		b.WriteString(fromSource.Error())
		b.WriteString(") and ")
	}
	fmt.Fprintf(&b, "%d object(s) whose endpoints the registry's AdjustEndpoints (its provider) made invalid, not the source: %s",
		len(adjusted.Failed), adjusted.Causes())
	return &partialError{err: fmt.Errorf("zonesync: planned without some objects: %w", merged), msg: b.String()}
}

// canonicalNames puts the DNS names of eps in the form written to DNS
// ([endpoint.ToALabel]: lower-case A-labels, no trailing dot), so
// that the planner, the registry's ownership records and the provider all
// see one spelling. It is one of the two places where names are put in that
// form (the other: providers, for the records they return); everything
// after it takes them as they are. An endpoint that is done[i] itself (the
// same pointer at the same index: one AdjustEndpoints returned unchanged)
// was converted already and is skipped.
func canonicalNames(eps, done []*endpoint.Endpoint) {
	for i, ep := range eps {
		if ep != nil && (i >= len(done) || done[i] != ep) {
			ep.DNSName = endpoint.ToALabel(ep.DNSName)
		}
	}
}
