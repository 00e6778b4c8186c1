package crd

import (
	"crypto/sha256"
	_ "embed" // the CustomResourceDefinition
	"encoding/hex"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The DNSRecord resource, as external-dns v0.22 and later define it.
const (
	// Group is the API group of DNSRecord objects.
	Group = "externaldns.k8s.io"
	// Version is the API version the registry reads and writes.
	Version = "v1alpha1"
	// Kind is the kind of the objects.
	Kind = "DNSRecord"
	// Resource is the plural resource name.
	Resource = "dnsrecords"
	// OwnerLabel is the metadata label that holds the owner id of a
	// DNSRecord. The registry reads only the objects whose OwnerLabel is
	// its [Config.OwnerID].
	OwnerLabel = "externaldns.k8s.io/owner"
	// ReadyCondition is the status condition that says whether the record
	// set is live in the DNS provider.
	ReadyCondition = "Ready"
)

// Reasons of the [ReadyCondition]. Ready is True only with
// ReasonProgrammed.
const (
	// ReasonAccepted: the owner took the record set into a change and has
	// not applied it yet (Ready False).
	ReasonAccepted = "Accepted"
	// ReasonProgrammed: the DNS provider holds the record set (Ready True).
	ReasonProgrammed = "Programmed"
	// ReasonFailed: the DNS provider refused the change that held the
	// record set (Ready False); the message gives the provider's error.
	ReasonFailed = "Failed"
)

// PreviousEndpointAnnotation is the annotation in which the registry keeps,
// while an update of a record set is in progress or after it failed, the
// record set as it was before the update (in the endpoint JSON of
// spec.endpoint). It lets a DNSRecord whose Ready condition is False keep
// the record set whether or not the provider applied the update; see the
// package documentation. external-dns ignores it.
const PreviousEndpointAnnotation = "zonesync.dev/previous-endpoint"

// crdYAML is the file CustomResourceDefinitionYAML returns. A string, so
// that nothing can change it.
//
//go:embed dnsrecords.externaldns.k8s.io.yaml
var crdYAML string

// CustomResourceDefinitionYAML returns the CustomResourceDefinition of
// DNSRecord (dnsrecords.externaldns.k8s.io), in YAML: apply it to a
// cluster (kubectl apply -f, or a client) before the registry starts. It is
// equivalent to the file external-dns ships (group, names, scope, version,
// schema, status subresource, printer columns); only the descriptions are
// zonesync's. Each call returns a new slice.
func CustomResourceDefinitionYAML() []byte { return []byte(crdYAML) }

// GroupVersionResource returns the resource of DNSRecord objects, for a
// dynamic client.
func GroupVersionResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: Group, Version: Version, Resource: Resource}
}

// maxObjectName is the longest object name Kubernetes accepts (an RFC 1123
// subdomain).
const maxObjectName = 253

// ObjectName returns the name of the DNSRecord object that holds the record
// set (dnsName, recordType, setIdentifier): the name lower-cased without a
// trailing dot, every run of characters other than a-z and 0-9 turned into
// one "-", "-" trimmed from both ends, cut to fit 253 characters with the
// suffix (and trimmed again; "record" when nothing is left), followed by "-"
// and the first 4 bytes, in hex, of the SHA-256 of
// "<name>/<TYPE>/<set identifier>" (name lower-cased without trailing dot,
// type upper-cased). It is the name external-dns gives the object, so
// either can find the other's.
//
// Names are hashed as given: "bücher.example.com" and its A-label form
// "xn--bcher-kva.example.com" give different object names. The registry
// writes A-label names and looks up both forms (see the package
// documentation).
//
// Four bytes of hash collide: two record sets whose names read the same
// once dashed (the same name with two set identifiers, or "a.b" and "a-b")
// can get one object name. The registry then keeps the second record set
// under [FallbackObjectName].
func ObjectName(dnsName, recordType, setIdentifier string) string {
	return objectNameOf(dnsName, recordType, setIdentifier).primary()
}

// FallbackObjectName returns the name under which the registry keeps the
// DNSRecord of a record set whose [ObjectName] is held by an object
// recording another record set (a collision of the 4 bytes of hash): the
// same readable part, cut to fit 253 characters with the longer suffix,
// followed by "-" and the whole SHA-256 that ObjectName takes 4 bytes of,
// in hex (64 digits). It never equals an ObjectName (the character 9
// places from the end is a hex digit here, "-" there), and two record sets
// share it only if their SHA-256 sums collide. external-dns does not know
// these names (see the package documentation).
func FallbackObjectName(dnsName, recordType, setIdentifier string) string {
	return objectNameOf(dnsName, recordType, setIdentifier).fallback()
}

// objectNames holds what both object names of a record set are built
// from: the dashed name, not yet cut, and the hash of the identity.
type objectNames struct {
	base string
	sum  [sha256.Size]byte
}

// objectNameOf hashes the identity of a record set once, for both of its
// object names.
func objectNameOf(dnsName, recordType, setIdentifier string) objectNames {
	name := strings.TrimSuffix(strings.ToLower(dnsName), ".")
	return objectNames{
		base: dashed(name),
		sum:  sha256.Sum256([]byte(name + "/" + strings.ToUpper(recordType) + "/" + setIdentifier)),
	}
}

// primary returns the [ObjectName].
func (n objectNames) primary() string { return withSuffix(n.base, hex.EncodeToString(n.sum[:4])) }

// fallback returns the [FallbackObjectName].
func (n objectNames) fallback() string { return withSuffix(n.base, hex.EncodeToString(n.sum[:])) }

// withSuffix joins the dashed name, cut to fit 253 characters, and the
// hex digits of the hash.
func withSuffix(base, digits string) string {
	suffix := "-" + digits
	if limit := maxObjectName - len(suffix); len(base) > limit {
		base = strings.Trim(base[:limit], "-")
	}
	if base == "" {
		base = "record"
	}
	return base + suffix
}

// dashed turns every run of bytes other than a-z and 0-9 in s into one "-"
// and trims "-" from both ends. Working on bytes gives what working on
// characters would: every byte of a multi-byte character falls in a run.
func dashed(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	pending := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if pending && b.Len() > 0 {
				b.WriteByte('-')
			}
			pending = false
			b.WriteByte(c)
			continue
		}
		pending = true
	}
	return b.String()
}
