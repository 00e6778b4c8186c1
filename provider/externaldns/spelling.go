package externaldns

import (
	"slices"
	"strings"

	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xplan "sigs.k8s.io/external-dns/plan"

	"github.com/zonesync/zonesync/endpoint"
)

// recordIdentity is what tells one record set from another in zonesync:
// the name in zonesync's form, the type and the set identifier.
type recordIdentity struct {
	name, recordType, setID string
}

func identityOf(canonicalName, recordType, setID string) recordIdentity {
	return recordIdentity{name: canonicalName, recordType: strings.ToUpper(recordType), setID: setID}
}

// spelledRecord is one record as the provider spelled its name, with its
// targets (sorted) to tell it from others of the same identity.
type spelledRecord struct {
	name    string
	targets []string
}

// spellings remembers how a provider spelled the names of the records it
// returned, for each identity held by at least one record whose spelling
// differs from zonesync's form: every record of that identity, in the
// order read. A provider may hold two records that zonesync sees under one
// identity ("App.Example.com." and "app.example.com", both A): the targets
// tell which one a change is about. It is never modified once built.
type spellings map[recordIdentity][]spelledRecord

// canonicalNames puts the name of every endpoint into zonesync's one form
// (see the Names rule in package provider) and returns how the provider
// spelled the records whose name that changed, and the others that share
// their identity (nil when no name changed).
func canonicalNames(eps []*endpoint.Endpoint) spellings {
	var (
		changed map[recordIdentity]bool
		former  []string // the provider's spelling, where it differs
	)
	for i, ep := range eps {
		c := endpoint.CanonicalName(ep.DNSName)
		if c == ep.DNSName {
			continue
		}
		if changed == nil {
			changed = make(map[recordIdentity]bool)
			former = make([]string, len(eps))
		}
		changed[identityOf(c, ep.RecordType, ep.SetIdentifier)] = true
		former[i] = ep.DNSName
		ep.DNSName = c
	}
	if changed == nil {
		return nil
	}
	s := make(spellings, len(changed))
	for i, ep := range eps {
		id := identityOf(ep.DNSName, ep.RecordType, ep.SetIdentifier)
		if !changed[id] {
			continue
		}
		name := former[i]
		if name == "" {
			name = ep.DNSName
		}
		s[id] = append(s[id], spelledRecord{name: name, targets: slices.Sorted(slices.Values(ep.Targets))})
	}
	return s
}

// name returns the name a change to ep (whose name may be in any form)
// is sent under: zonesync's form, unless the last Records found a record
// of ep's identity spelled otherwise. Then it is that record's spelling —
// when several records share the identity, that of the one with ep's
// targets, and zonesync's form when none has them.
func (s spellings) name(ep *xendpoint.Endpoint) string {
	c := endpoint.CanonicalName(ep.DNSName)
	if s == nil {
		return c
	}
	records := s[identityOf(c, ep.RecordType, ep.SetIdentifier)]
	switch len(records) {
	case 0:
		return c
	case 1:
		return records[0].name
	}
	targets := slices.Sorted(slices.Values(ep.Targets))
	for _, r := range records {
		if slices.Equal(r.targets, targets) {
			return r.name
		}
	}
	return c
}

// spell gives every endpoint of a change set the name it is sent under
// ([spellings.name]). An update is sent under the spelling of the record
// it replaces (its old endpoint), whose targets are the ones read.
func (s spellings) spell(c *xplan.Changes) {
	for _, list := range [][]*xendpoint.Endpoint{c.Create, c.Delete} {
		for _, ep := range list {
			ep.DNSName = s.name(ep)
		}
	}
	for i, newEp := range c.UpdateNew {
		if i >= len(c.UpdateOld) {
			newEp.DNSName = s.name(newEp)
			continue
		}
		oldEp := c.UpdateOld[i]
		oldName := s.name(oldEp)
		same := endpoint.CanonicalName(newEp.DNSName) == endpoint.CanonicalName(oldEp.DNSName) &&
			strings.EqualFold(newEp.RecordType, oldEp.RecordType) && newEp.SetIdentifier == oldEp.SetIdentifier
		oldEp.DNSName = oldName
		if same {
			newEp.DNSName = oldName
		} else {
			newEp.DNSName = s.name(newEp)
		}
	}
	for _, oldEp := range c.UpdateOld[min(len(c.UpdateNew), len(c.UpdateOld)):] {
		oldEp.DNSName = s.name(oldEp)
	}
}
