package plan_test

import (
	"strings"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
)

// ep builds an endpoint; labels are given as "key=value" in extra targets
// prefixed with "@" to keep tables short: ep("a.example.com", "A", "1.1.1.1", "@owner=me").
func ep(name, typ string, args ...string) *endpoint.Endpoint {
	var targets []string
	var labels []string
	for _, a := range args {
		if strings.HasPrefix(a, "@") {
			labels = append(labels, a[1:])
			continue
		}
		targets = append(targets, a)
	}
	e := endpoint.NewEndpoint(name, typ, targets...)
	for _, l := range labels {
		k, v, _ := strings.Cut(l, "=")
		e.WithLabel(k, v)
	}
	return e
}

func withTTL(e *endpoint.Endpoint, ttl endpoint.TTL) *endpoint.Endpoint {
	e.RecordTTL = ttl
	return e
}

func withSet(e *endpoint.Endpoint, set string) *endpoint.Endpoint {
	return e.WithSetIdentifier(set)
}

func withPS(e *endpoint.Endpoint, name, value string) *endpoint.Endpoint {
	return e.WithProviderSpecific(name, value)
}

// key renders an endpoint as "name/type[/set] targets".
func key(e *endpoint.Endpoint) string {
	if e == nil {
		return "<nil>"
	}
	return e.Key().String() + " " + e.Targets.String()
}

// summary renders changes as one line per change.
func summary(c *plan.Changes) []string {
	var out []string
	for _, e := range c.Create {
		out = append(out, "create "+key(e))
	}
	for i := range c.UpdateNew {
		out = append(out, "update "+key(c.UpdateOld[i])+" -> "+c.UpdateNew[i].Targets.String())
	}
	for _, e := range c.Delete {
		out = append(out, "delete "+key(e))
	}
	return out
}

// skips renders skipped changes as "action name/type reason".
func skips(p *plan.Plan) []string {
	var out []string
	for _, s := range p.Skipped {
		name := "<nil>"
		if s.Endpoint != nil {
			name = s.Endpoint.Key().String()
		}
		out = append(out, string(s.Action)+" "+name+" "+string(s.Reason))
	}
	return out
}

// keys renders endpoints as their keys.
func keys(eps []*endpoint.Endpoint) []string {
	var out []string
	for _, e := range eps {
		out = append(out, e.Key().String())
	}
	return out
}
