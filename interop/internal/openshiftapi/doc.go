// Package api is a stand-in for the module github.com/openshift/api, made
// for the interop tests of zonesync and used through a replace directive in
// interop/go.mod.
//
// Why: sigs.k8s.io/external-dns/source imports
// github.com/openshift/client-go for its OpenShift Route source, and that
// module imports github.com/openshift/api, which the module proxy this
// project builds with does not serve. Without some module at that path the
// external-dns source package, and so every differential test of sources,
// cannot be compiled.
//
// What: only the package route/v1, written for this project from the
// field names of the Route API: the types that the route clientset,
// informers, listers and apply configurations of openshift/client-go compile
// against, their deep copy methods, SchemeGroupVersion and AddToScheme.
// Nothing else of the real module is here, and nothing is copied from it.
// The interop tests never build a Route source; the package exists so that
// the imports resolve and the fake clientset external-dns builds is valid.
package api
