package kubernetes

import (
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

// endpointsOf builds the endpoints of every object of objs: ref names an
// object (false skips it, e.g. an Ingress of another class) and build makes
// its endpoints. An object whose build fails, or one of whose endpoints is
// invalid ([endpoint.Endpoint.ValidateDesired]: a name, target or label
// taken from the object that is not what DNS names and ownership records
// may hold, or a TXT value that reads as an ownership record),
// is reported under its resource key in a *source.PartialError, returned
// with the endpoints of the others; none of its endpoints is returned.
// The endpoints several objects give one name are joined, as external-dns's
// sources join them ([source.MergeEndpoints]).
func endpointsOf[T any](objs []T, ref func(T) (source.ObjectRef, bool), build func(source.ObjectRef, T) ([]*endpoint.Endpoint, error)) ([]*endpoint.Endpoint, error) {
	var eps []*endpoint.Endpoint
	var failed *source.PartialError
	for _, obj := range objs {
		r, ok := ref(obj)
		if !ok {
			continue
		}
		objEps, err := build(r, obj)
		if err == nil {
			err = validateAll(r, objEps)
		}
		if err != nil {
			failed = failed.Add(r.Key(), err)
			continue
		}
		eps = append(eps, objEps...)
	}
	return source.MergeEndpoints(eps), failed.OrNil()
}

// validateAll returns the error of the first invalid endpoint of the object
// ref, naming the object.
func validateAll(ref source.ObjectRef, eps []*endpoint.Endpoint) error {
	for _, ep := range eps {
		if err := ep.ValidateDesired(); err != nil {
			return fmt.Errorf("%s: %w", ref, err)
		}
	}
	return nil
}

// named returns "Kind namespace/name" for an object an object's spec or
// annotations refer to, as errors name it: the names are the object's
// text, not names the API server checked, so control characters in them
// are escaped ([source.ObjectRef.String]).
func named(kind, ns, name string) string {
	return source.ObjectRef{Kind: kind, Namespace: ns, Name: name}.String()
}

// checkHost checks a host name read from field of the object ref.
func checkHost(ref source.ObjectRef, field, host string) error {
	if err := endpoint.ValidateDNSName(host); err != nil {
		return fmt.Errorf("%s: %s: %w", ref, field, err)
	}
	return nil
}
