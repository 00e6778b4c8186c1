package txt

import (
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/registry"
)

// The names below give the external tests of this package the unexported
// TXT naming rules; they are not part of the API.

type Namer = txtNamer

func NewNamer(prefix, suffix, wildcardReplacement string) (Namer, error) {
	return newTXTNamer(prefix, suffix, wildcardReplacement)
}

func (n txtNamer) TXTName(dnsName, recordType string) string { return n.txtName(dnsName, recordType) }

func (n txtNamer) LegacyTXTName(dnsName string) string { return n.legacyTXTName(dnsName) }

func (n txtNamer) ParseTXTName(txtName string) (dnsName, recordType string, ok bool) {
	return n.parseTXTName(txtName)
}

func (r *Registry) Namer() Namer { return r.namer }

func (r *Registry) TXTName(ep *endpoint.Endpoint) string { return r.txtName(ep) }

func (r *Registry) OwnershipTXT(ep *endpoint.Endpoint) (*endpoint.Endpoint, error) {
	return r.ownershipTXT(ep)
}

// ParseContribution and ContributionName give the tests the shared format.
func ParseContribution(labels endpoint.Labels, txtName, setID string) (endpoint.Key, registry.Contribution, error) {
	return parseContribution(labels, txtName, setID)
}

func ContributionName(owner string, key endpoint.Key) string { return contributionName(owner, key) }

func ContributionLabels(key endpoint.Key, c registry.Contribution) endpoint.Labels {
	return contributionLabels(key, c)
}
