package txt

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
)

// isAliasA reports whether ep is an A alias record ([endpoint.Endpoint.IsAlias]:
// the alias property "true" or "A"), an AWS A ALIAS record.
func isAliasA(ep *endpoint.Endpoint) bool {
	return ep.RecordType == endpoint.RecordTypeA && ep.IsAlias()
}

// txtType is the record type whose name the ownership TXT of ep carries.
func (r *Registry) txtType(ep *endpoint.Endpoint) string {
	if r.aliasCNAME && isAliasA(ep) {
		return endpoint.RecordTypeCNAME
	}
	return ep.RecordType
}

// txtName returns the name of the ownership TXT record that the registry
// writes for ep (see txtNamer.txtName and [Config.AliasTXTType]).
func (r *Registry) txtName(ep *endpoint.Endpoint) string {
	return r.namer.txtName(endpoint.CanonicalName(ep.DNSName), r.txtType(ep))
}

// ownershipTXT returns the ownership TXT endpoint the registry writes for
// ep: named by Registry.txtName, one target holding ep's labels (plain,
// in quotes, or encrypted when values are written encrypted — see
// [Config.EncryptionMode] — reusing the nonce label), TTL 0, ep's set
// identifier and provider-specific properties (but "alias", which is not
// valid on TXT records), and the single label ownedRecord = ep.DNSName. ep is not modified. The error
// wraps [ErrTXTName] when no valid name can be built (a label longer than 63
// octets, an empty label).
func (r *Registry) ownershipTXT(ep *endpoint.Endpoint) (*endpoint.Endpoint, error) {
	return r.labelsTXT("ownership TXT", r.txtName(ep), ep)
}

// labelsTXT returns the TXT record named name that holds the labels of ep
// (what, "ownership TXT" or "contribution", names it in errors): one
// target, plain or encrypted as values are written, TTL 0, ep's set
// identifier and provider-specific properties (but "alias"), and the
// single label ownedRecord = ep.DNSName, so that it travels with ep's
// record (provider.GroupKey). The error wraps [ErrTXTName] when name is
// not a valid TXT name.
func (r *Registry) labelsTXT(what, name string, ep *endpoint.Endpoint) (*endpoint.Endpoint, error) {
	if err := ValidateTXTName(name); err != nil {
		return nil, fmt.Errorf("%s of %s: %w", what, ep.Key(), err)
	}
	value, err := r.value(ep, r.encrypt)
	if err != nil {
		return nil, err
	}
	return &endpoint.Endpoint{
		DNSName:          name,
		Targets:          endpoint.Targets{value},
		RecordType:       endpoint.RecordTypeTXT,
		SetIdentifier:    ep.SetIdentifier,
		Labels:           endpoint.LabelsFromMap(map[string]string{endpoint.OwnedRecordLabelKey: ep.DNSName}),
		ProviderSpecific: txtProviderSpecific(ep.ProviderSpecific),
	}, nil
}

// oldOwnershipTXT is Registry.ownershipTXT for the old side of an update
// or delete when the last read did not give the value: a record whose
// labels carry a valid nonce was read from an encrypted TXT, which is
// rebuilt encrypted with that nonce; others are rebuilt in plain text
// (whatever the mode: a fresh nonce could not match anything).
func (r *Registry) oldOwnershipTXT(ep *endpoint.Endpoint) (*endpoint.Endpoint, error) {
	txt, err := r.ownershipTXT(ep)
	if err != nil {
		return nil, err
	}
	nonce, ok := ep.Labels.Get(endpoint.TxtEncryptionNonceLabelKey)
	encrypted := len(r.key) > 0 && ok && validNonce(nonce)
	if encrypted != r.encrypt {
		v, err := r.value(ep, encrypted)
		if err != nil {
			return nil, err
		}
		txt.Targets = endpoint.Targets{v}
	}
	return txt, nil
}

// value serialises the labels of ep, encrypted or not.
func (r *Registry) value(ep *endpoint.Endpoint, encrypt bool) (string, error) {
	var value string
	if encrypt {
		labels := ep.Labels
		if nonce, ok := labels.Get(endpoint.TxtEncryptionNonceLabelKey); ok && !validNonce(nonce) {
			// A nonce that did not come from decryption (a plain value can
			// carry the label): ignore it and draw a fresh one.
			labels.Delete(endpoint.TxtEncryptionNonceLabelKey)
		}
		v, err := labels.SerializeEncrypted(r.key, true)
		if err != nil {
			return "", fmt.Errorf("ownership TXT of %s: encrypting labels: %w", ep.Key(), err)
		}
		value = v
	} else {
		value = ep.Labels.Serialize(true)
	}
	return value, nil
}

// withNonce gives ep, a record ApplyChanges sends to the provider, the
// nonce label external-dns's TXT registry gives every such record when it
// writes encrypted values: the nonce ep carries when it is valid (read with
// its encrypted TXT, or chosen by the caller), else a fresh one, which
// ownershipTXT then encrypts the TXT of ep with. Without encrypted writes
// ep is left as it is. It is called on the new side of a change before its
// TXT is built, and on the old side and on deletes after their TXT is
// rebuilt (a nonce on a record tells that its TXT was read encrypted).
func (r *Registry) withNonce(ep *endpoint.Endpoint) {
	if !r.encrypt {
		return
	}
	if n, ok := ep.Labels.Get(endpoint.TxtEncryptionNonceLabelKey); ok && validNonce(n) {
		return
	}
	var n [nonceSize]byte
	_, _ = rand.Read(n[:]) // never fails (crypto/rand, Go 1.24 and later)
	ep.Labels.Set(endpoint.TxtEncryptionNonceLabelKey, base64.StdEncoding.EncodeToString(n[:]))
}

// nonceSize is the size of an AES-GCM nonce, as external-dns draws it.
const nonceSize = 12

// validNonce reports whether s is the standard base64 encoding of a 12-byte
// AES-GCM nonce.
func validNonce(s string) bool {
	n, err := base64.StdEncoding.DecodeString(s)
	return err == nil && len(n) == nonceSize
}

// txtProviderSpecific copies the provider-specific properties of an owned
// record for its TXT, without "alias": that property is only valid on A,
// AAAA and CNAME records, and endpoint validation rejects a TXT carrying it
// (external-dns copies it anyway; the provider ignores it on TXT records).
func txtProviderSpecific(ps endpoint.ProviderSpecific) endpoint.ProviderSpecific {
	if len(ps) == 0 {
		return nil
	}
	out := make(endpoint.ProviderSpecific, 0, len(ps))
	for _, p := range ps {
		if p.Name != endpoint.ProviderSpecificAlias {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
