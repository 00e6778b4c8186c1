package gatewayapi

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The types below hold the few Gateway API fields the sources read. They
// are filled from unstructured objects with the apimachinery converter, so
// that the gateway-api module is not needed; field names follow the
// gateway.networking.k8s.io schema.

type parentRef struct {
	Group       *string `json:"group,omitempty"`
	Kind        *string `json:"kind,omitempty"`
	Namespace   *string `json:"namespace,omitempty"`
	Name        string  `json:"name"`
	SectionName *string `json:"sectionName,omitempty"`
	Port        *int32  `json:"port,omitempty"`
}

type routeParentStatus struct {
	ParentRef  parentRef          `json:"parentRef"`
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

type route struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Hostnames  []string    `json:"hostnames,omitempty"`
		ParentRefs []parentRef `json:"parentRefs,omitempty"`
	} `json:"spec"`
	Status struct {
		Parents []routeParentStatus `json:"parents,omitempty"`
	} `json:"status"`
}

type routeGroupKind struct {
	Group *string `json:"group,omitempty"`
	Kind  string  `json:"kind"`
}

type listener struct {
	Name          string  `json:"name"`
	Hostname      *string `json:"hostname,omitempty"`
	Port          int32   `json:"port"`
	Protocol      string  `json:"protocol"`
	AllowedRoutes *struct {
		Namespaces *struct {
			From     *string               `json:"from,omitempty"`
			Selector *metav1.LabelSelector `json:"selector,omitempty"`
		} `json:"namespaces,omitempty"`
		Kinds []routeGroupKind `json:"kinds,omitempty"`
	} `json:"allowedRoutes,omitempty"`
}

type gatewayAddress struct {
	Type  *string `json:"type,omitempty"`
	Value string  `json:"value"`
}

type gateway struct {
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Listeners        []listener `json:"listeners,omitempty"`
		AllowedListeners *struct {
			Namespaces *struct {
				From     *string               `json:"from,omitempty"`
				Selector *metav1.LabelSelector `json:"selector,omitempty"`
			} `json:"namespaces,omitempty"`
		} `json:"allowedListeners,omitempty"` // which ListenerSets may attach
	} `json:"spec"`
	Status struct {
		Addresses []gatewayAddress `json:"addresses,omitempty"`
	} `json:"status"`
}

// convert fills out from u; the error names what u is.
func convert(u *unstructured.Unstructured, what string, out any) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
		return fmt.Errorf("%s %s/%s: %w", what, u.GetNamespace(), u.GetName(), err)
	}
	return nil
}

// or returns *p, or def when p is nil or empty.
func or(p *string, def string) string {
	if p == nil || *p == "" {
		return def
	}
	return *p
}
