package txt

import "github.com/zonesync/zonesync/endpoint"

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
