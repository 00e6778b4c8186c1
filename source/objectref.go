package source

import (
	"strings"

	"github.com/zonesync/zonesync/endpoint"
)

// ObjectRef names the object whose annotations or template are processed:
// a Kubernetes object, or anything else a source builds endpoints from. It
// appears in every error about the object and, through [ObjectRef.Key], in
// the resource label of the object's endpoints.
type ObjectRef struct {
	// Kind is the object's kind, e.g. "Service". Its lower-case form starts
	// the resource key.
	Kind string
	// Namespace is empty for cluster-scoped objects.
	Namespace string
	// Name is the object's name.
	Name string
	// Resource, when not empty, is the resource key itself, used by
	// [ObjectRef.Key] instead of the one derived from Kind. external-dns
	// spells a few keys its own way ("crd/namespace/name" for DNSEndpoint
	// objects, "HTTPProxy/namespace/name" for Contour); a source reading
	// such objects sets it, so that records external-dns wrote keep
	// matching their object (a failed object's records stay protected).
	Resource string
}

// Key returns the resource key of the object: Resource when set, otherwise
// "kind/namespace/name" with the kind in lower case, or "kind/name" for a
// cluster-scoped object (no namespace), the format external-dns writes in
// the resource label ([endpoint.ResourceLabelKey]) and that
// [PartialError.Failed] is keyed by.
func (r ObjectRef) Key() string {
	if r.Resource != "" {
		return r.Resource
	}
	kind := strings.ToLower(r.Kind)
	if r.Namespace == "" {
		return kind + "/" + r.Name
	}
	return kind + "/" + r.Namespace + "/" + r.Name
}

// String returns the object as errors name it: "Service default/web", or
// "Node worker-1" for a cluster-scoped object. A part holding control
// characters, other unprintable characters or invalid UTF-8 is quoted
// ([endpoint.Printable]), so that an object's name can never forge a log
// line.
func (r ObjectRef) String() string {
	kind := r.Kind
	if kind == "" {
		kind = "object"
	}
	kind = endpoint.Printable(kind)
	if r.Namespace == "" {
		return kind + " " + endpoint.Printable(r.Name)
	}
	return kind + " " + endpoint.Printable(r.Namespace) + "/" + endpoint.Printable(r.Name)
}
