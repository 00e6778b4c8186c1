// Package v1 declares the route.openshift.io/v1 API types that
// github.com/openshift/client-go's route packages need: Route and RouteList
// with their spec and status, registered in a scheme under
// SchemeGroupVersion. See the module's doc.go for why it exists.
package v1
