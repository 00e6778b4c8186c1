package kubernetes

import (
	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

// endpointsOf builds the endpoints of every object of objs: ref names an
// object (false skips it, e.g. an Ingress of another class) and build makes
// its endpoints. An object whose build fails is reported under its resource
// key in a *source.PartialError, returned with the endpoints of the others.
func endpointsOf[T any](objs []T, ref func(T) (source.ObjectRef, bool), build func(source.ObjectRef, T) ([]*endpoint.Endpoint, error)) ([]*endpoint.Endpoint, error) {
	var eps []*endpoint.Endpoint
	var failed *source.PartialError
	for _, obj := range objs {
		r, ok := ref(obj)
		if !ok {
			continue
		}
		objEps, err := build(r, obj)
		if err != nil {
			failed = failed.Add(r.Key(), err)
			continue
		}
		eps = append(eps, objEps...)
	}
	return eps, failed.OrNil()
}
