package externaldns

import (
	"maps"
	"slices"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider"
)

var _ provider.GuaranteeDeclarer = (*Provider)(nil)

// Guarantees implements [provider.GuaranteeDeclarer]: what the wrapped
// external-dns provider guarantees, from [Options.Guarantees] when it was
// given, else from [KnownGuarantees] by the provider's name ([Provider.Name]),
// else nothing (the zero Guarantees, the safe assumptions). The core acts
// on them: it never sends a set identifier to a provider that does not keep
// them, re-reads the zone before creating on a provider whose creates may
// overwrite, and refuses record types and provider-specific properties
// outside a declared list. The slices are new on every call.
func (p *Provider) Guarantees() provider.Guarantees {
	return p.guarantees.Clone()
}

// guaranteesFor returns the guarantees of the provider called name: the
// override when there is one, else the table's entry, else none.
func guaranteesFor(name string, override *provider.Guarantees) provider.Guarantees {
	if override != nil {
		return override.Clone()
	}
	g, _ := KnownGuarantees(name)
	return g
}

// KnownGuarantees returns what the external-dns provider called name (its
// --provider value, such as "aws" or "pdns") guarantees, and whether the
// adapter knows that provider. Names it does not know get the zero
// Guarantees and false; "webhook" is known and declares nothing, because
// what it guarantees is up to the server behind it.
func KnownGuarantees(name string) (provider.Guarantees, bool) {
	g, ok := GuaranteeTable()[name]
	return g, ok
}

// GuaranteeTable returns the guarantees the adapter declares for each
// external-dns v0.23.0 provider it knows, by --provider value (aliases
// included: "azure-dns" is "azure", "skydns" is "coredns"). The map and
// its slices are new on every call.
//
// Every entry was read from external-dns v0.23.0's code
// (sigs.k8s.io/external-dns@v0.23.0/provider/<package>/), as follows.
//
// CreateFailsIfExists is true only where a create is sent in a form the
// service refuses when the record set exists:
//   - aws: ApplyChanges sends creates as Route 53 changes of action CREATE
//     (newChanges(route53types.ChangeActionCreate, …)), which Route 53
//     refuses for an existing record set; the batch fails and the provider
//     returns an error. Updates go as UPSERT (or DELETE and CREATE).
//   - google: creates are Additions of a Cloud DNS Change, which Cloud DNS
//     refuses (the whole change) when the record set exists.
//   - ns1: creates are the SDK's Records.Create (an HTTP PUT), whose answer
//     "record already exists" gopkg.in/ns1/ns1-go.v2 turns into
//     ErrRecordExists, returned by the provider.
//   - inmemory: its client refuses a zone's whole change set when it holds
//     a create whose key (name, type, set identifier) exists
//     (ErrRecordAlreadyExists).
//
// The others may change what exists: pdns sends creates as PATCHes of
// changetype REPLACE; azure and azure-private-dns as CreateOrUpdate without
// a precondition; rfc2136 as RFC 2136 additions without prerequisites,
// which merge into an existing RRset (and replace an existing CNAME);
// cloudflare, dnsimple, godaddy, linode, ovh, oci, alibabacloud, scaleway,
// civo and exoscale add records beside any that exist (one per target, or
// one for the first target);
// coredns writes etcd keys; aws-sd registers instances in an existing
// service; pihole adds entries.
//
// KeepsSetIdentifiers is true for aws (Records reads a record set's
// SetIdentifier, creates write it) and inmemory (its records are keyed by
// name, type and set identifier). No other provider package reads or
// writes set identifiers; oci's AdjustEndpoints removes them.
//
// RecordTypes lists the types the provider's Records returns (a record of
// another type would be written and never read back, so it would be
// planned again at every cycle): external-dns's provider.SupportedRecordType
// (A, AAAA, CNAME, DNAME, SRV, TXT, NS) where the package filters with it
// (alibabacloud, civo, dnsimple, godaddy, linode, ns1, oci, ovh, scaleway),
// plus MX and NAPTR for aws (AWSProvider.SupportedRecordType), MX for google,
// MX and TLSA for cloudflare (SupportedAdditionalRecordTypes); for azure the
// types both its Records and its record-set builder handle (A, AAAA, CNAME,
// MX, NS, TXT), for azure-private-dns those of its target extraction (A,
// AAAA, CNAME, MX, TXT); the types rfc2136's Records converts from a zone
// transfer; A, AAAA and CNAME (guessed from the target), PTR and TXT for
// coredns; A, AAAA and CNAME for aws-sd (instance attributes) and pihole
// (the lists it reads); A, CNAME and TXT for exoscale. pdns and inmemory
// return every type, and declare none.
//
// ProviderSpecific is declared for the providers whose Records reads
// provider-specific properties back, as their family (a prefix): "alias"
// and "aws/" for aws (aws/hosted-zone-id and aws/target-hosted-zone are
// used when writing but not read back, so a record carrying them is
// updated again at every cycle, as under external-dns), "azure/" for
// azure (its metadata properties), "cloudflare/" for cloudflare,
// "coredns/" for coredns (coredns/group) and "scw/" for scaleway
// (scw/priority). A property of another family is ignored by those
// providers and never read back, so the core refuses it. Providers that
// read no property back declare nothing, as zonesync's own rfc2136
// provider does: they refuse nothing because of a property (pdns uses
// "alias" when writing a CNAME, as an ALIAS record).
func GuaranteeTable() map[string]provider.Guarantees {
	supported := func(extra ...string) []string {
		return append([]string{
			endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeDNAME,
			endpoint.RecordTypeSRV, endpoint.RecordTypeTXT, endpoint.RecordTypeNS,
		}, extra...)
	}
	azure := provider.Guarantees{
		RecordTypes: []string{
			endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME,
			endpoint.RecordTypeMX, endpoint.RecordTypeNS, endpoint.RecordTypeTXT,
		},
		ProviderSpecific: []string{"azure/"},
	}
	coredns := provider.Guarantees{
		RecordTypes: []string{
			endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME,
			endpoint.RecordTypePTR, endpoint.RecordTypeTXT,
		},
		ProviderSpecific: []string{"coredns/"},
	}
	table := map[string]provider.Guarantees{
		"alibabacloud": {RecordTypes: supported()},
		"aws": {
			CreateFailsIfExists: true,
			KeepsSetIdentifiers: true,
			RecordTypes:         supported(endpoint.RecordTypeMX, endpoint.RecordTypeNAPTR),
			ProviderSpecific:    []string{endpoint.ProviderSpecificAlias, "aws/"},
		},
		"aws-sd":    {RecordTypes: []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME}},
		"azure":     azure,
		"azure-dns": azure,
		"azure-private-dns": {RecordTypes: []string{
			endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME,
			endpoint.RecordTypeMX, endpoint.RecordTypeTXT,
		}},
		"civo": {RecordTypes: supported()},
		"cloudflare": {
			RecordTypes:      supported(endpoint.RecordTypeMX, endpoint.RecordTypeTLSA),
			ProviderSpecific: []string{"cloudflare/"},
		},
		"coredns":  coredns,
		"dnsimple": {RecordTypes: supported()},
		"exoscale": {RecordTypes: []string{endpoint.RecordTypeA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT}},
		"godaddy":  {RecordTypes: supported()},
		"google": {
			CreateFailsIfExists: true,
			RecordTypes:         supported(endpoint.RecordTypeMX),
		},
		"inmemory": {CreateFailsIfExists: true, KeepsSetIdentifiers: true},
		"linode":   {RecordTypes: supported()},
		"ns1":      {CreateFailsIfExists: true, RecordTypes: supported()},
		"oci":      {RecordTypes: supported()},
		"ovh":      {RecordTypes: supported()},
		"pdns":     {},
		"pihole":   {RecordTypes: []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME}},
		"rfc2136": {RecordTypes: []string{
			endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeDNAME,
			endpoint.RecordTypeNS, endpoint.RecordTypePTR, endpoint.RecordTypeTXT,
		}},
		"scaleway": {RecordTypes: supported(), ProviderSpecific: []string{"scw/"}},
		"skydns":   coredns,
		"webhook":  {},
	}
	// Entries that share a value (the aliases) must not share its slices.
	for _, name := range slices.Sorted(maps.Keys(table)) {
		table[name] = table[name].Clone()
	}
	return table
}
