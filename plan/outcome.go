package plan

import "github.com/zonesync/zonesync/endpoint"

// Outcome is what a calculated plan decided about one desired endpoint:
// the change it did not make and why (Skip), or whether it changes the
// endpoint's record. It is the plan's part of the outcome of a record in a
// cycle; what the provider then did with the change is the registry's part
// (see the registry package's ApplyOutcome).
type Outcome struct {
	// Skip is the endpoint's skip: its Reason is empty when the plan did
	// not skip the endpoint.
	Skip Skip
	// Changed reports whether Changes creates or updates the endpoint's
	// record (its name, set identifier and type).
	Changed bool
}

// Skipped reports whether the plan left the endpoint's change out.
func (o Outcome) Skipped() bool { return o.Skip.Reason != "" }

// Outcomes indexes a calculated plan by desired endpoint, for callers
// that report per record (statuses, events); build it once per plan with
// [Plan.Outcomes].
type Outcomes struct {
	byPtr   map[*endpoint.Endpoint]Skip
	byKey   map[resourceKey]Skip
	changed map[endpoint.Key]bool
}

// resourceKey identifies a desired endpoint by resource label and record.
type resourceKey struct {
	res string
	key endpoint.Key
}

// Outcomes indexes the skips and changes of p, a plan returned by
// [Plan.Calculate]. Only skips of creates and updates (which name a
// desired endpoint) are indexed; a skipped delete names a current record.
func (p *Plan) Outcomes() *Outcomes {
	o := &Outcomes{
		byPtr:   map[*endpoint.Endpoint]Skip{},
		byKey:   map[resourceKey]Skip{},
		changed: map[endpoint.Key]bool{},
	}
	// Skips name the desired endpoint itself; an endpoint that lost a
	// conflict shares its key with the winner, so the pointer decides
	// first, and the key with the same resource second.
	for _, s := range p.Skipped {
		if s.Endpoint == nil || s.Action == ActionDelete {
			continue
		}
		o.byPtr[s.Endpoint] = s
		o.byKey[resourceKey{resourceOf(s.Endpoint), s.Endpoint.Key()}] = s
	}
	if p.Changes != nil {
		for _, list := range [][]*endpoint.Endpoint{p.Changes.Create, p.Changes.UpdateNew} {
			for _, e := range list {
				if e != nil {
					o.changed[e.Key()] = true
				}
			}
		}
	}
	return o
}

// Of returns the outcome of the desired endpoint e: its skip (found by
// pointer, else by resource label and record key), or whether its record
// is changed.
func (o *Outcomes) Of(e *endpoint.Endpoint) Outcome {
	key := e.Key()
	if s, ok := o.byPtr[e]; ok {
		return Outcome{Skip: s}
	}
	if s, ok := o.byKey[resourceKey{resourceOf(e), key}]; ok {
		return Outcome{Skip: s}
	}
	return Outcome{Changed: o.changed[key]}
}

// resourceOf returns the resource label of e ([endpoint.ResourceLabelKey],
// "kind/namespace/name"), "" when it has none.
func resourceOf(e *endpoint.Endpoint) string {
	res, _ := e.Labels.Get(endpoint.ResourceLabelKey)
	return res
}
