package zonesync

import (
	"strconv"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

// invalidEndpoints collects the desired endpoints of a cycle that fail
// validation, with their errors.
type invalidEndpoints struct {
	eps  []*endpoint.Endpoint
	errs []error // errs[i] is the validation error of eps[i]
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
func (v *invalidEndpoints) split(eps, checked []*endpoint.Endpoint) []*endpoint.Endpoint {
	var valid []*endpoint.Endpoint
	for i, ep := range eps {
		var err error
		if i >= len(checked) || checked[i] != ep || ep == nil {
			err = v.validate(ep)
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
	out := (&source.PartialError{Failed: map[string]error{}}).Merge(partial)
	var carried map[string]bool // resource labels of the current records
	for i, ep := range v.eps {
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
