package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Route exposes a Service under a host name through the cluster's routers.
type Route struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is what the user asks for.
	Spec RouteSpec `json:"spec"`
	// Status is what the routers report.
	Status RouteStatus `json:"status,omitempty"`
}

// RouteList is a list of Routes.
type RouteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the Routes.
	Items []Route `json:"items"`
}

// RouteSpec is the desired state of a Route.
type RouteSpec struct {
	// Host is the DNS name the Route is served under.
	Host string `json:"host,omitempty"`
	// Subdomain asks for a name under the router's domain when Host is
	// empty.
	Subdomain string `json:"subdomain,omitempty"`
	// Path limits the Route to requests under this path.
	Path string `json:"path,omitempty"`
	// To is the main backend.
	To RouteTargetReference `json:"to"`
	// AlternateBackends are further weighted backends.
	AlternateBackends []RouteTargetReference `json:"alternateBackends,omitempty"`
	// Port picks the backend's port.
	Port *RoutePort `json:"port,omitempty"`
	// TLS configures termination.
	TLS *TLSConfig `json:"tls,omitempty"`
	// WildcardPolicy is None or Subdomain.
	WildcardPolicy WildcardPolicyType `json:"wildcardPolicy,omitempty"`
	// HTTPHeaders changes request and response headers.
	HTTPHeaders *RouteHTTPHeaders `json:"httpHeaders,omitempty"`
}

// RouteTargetReference names a backend and its weight.
type RouteTargetReference struct {
	// Kind is the backend's kind, "Service".
	Kind string `json:"kind"`
	// Name is the backend's name.
	Name string `json:"name"`
	// Weight is the backend's share, 0 to 256.
	Weight *int32 `json:"weight"`
}

// RoutePort is the backend port of a Route.
type RoutePort struct {
	// TargetPort is a port number or name.
	TargetPort intstr.IntOrString `json:"targetPort"`
}

// TLSTerminationType says where TLS ends: edge, passthrough or reencrypt.
type TLSTerminationType string

// InsecureEdgeTerminationPolicyType says what happens to plain HTTP
// requests: Allow, None or Redirect.
type InsecureEdgeTerminationPolicyType string

// WildcardPolicyType says whether a Route also serves the names below its
// host.
type WildcardPolicyType string

// Wildcard policies.
const (
	WildcardPolicyNone      WildcardPolicyType = "None"
	WildcardPolicySubdomain WildcardPolicyType = "Subdomain"
)

// TLSConfig is the TLS setting of a Route.
type TLSConfig struct {
	// Termination is where TLS ends.
	Termination TLSTerminationType `json:"termination"`
	// Certificate is the serving certificate in PEM.
	Certificate string `json:"certificate,omitempty"`
	// Key is the certificate's key in PEM.
	Key string `json:"key,omitempty"`
	// CACertificate is the issuer's certificate in PEM.
	CACertificate string `json:"caCertificate,omitempty"`
	// DestinationCACertificate verifies the backend when re-encrypting.
	DestinationCACertificate string `json:"destinationCACertificate,omitempty"`
	// InsecureEdgeTerminationPolicy handles plain HTTP.
	InsecureEdgeTerminationPolicy InsecureEdgeTerminationPolicyType `json:"insecureEdgeTerminationPolicy,omitempty"`
	// ExternalCertificate names a Secret holding the certificate.
	ExternalCertificate *LocalObjectReference `json:"externalCertificate,omitempty"`
}

// LocalObjectReference names an object in the Route's namespace.
type LocalObjectReference struct {
	// Name is the object's name.
	Name string `json:"name,omitempty"`
}

// RouteHTTPHeaders holds the header actions of a Route.
type RouteHTTPHeaders struct {
	// Actions are the header changes.
	Actions RouteHTTPHeaderActions `json:"actions"`
}

// RouteHTTPHeaderActions are header changes for requests and responses.
type RouteHTTPHeaderActions struct {
	// Response changes response headers.
	Response []RouteHTTPHeader `json:"response"`
	// Request changes request headers.
	Request []RouteHTTPHeader `json:"request"`
}

// RouteHTTPHeaderActionType is Set or Delete.
type RouteHTTPHeaderActionType string

// RouteHTTPHeader is one header and what to do with it.
type RouteHTTPHeader struct {
	// Name is the header's name.
	Name string `json:"name"`
	// Action is what to do.
	Action RouteHTTPHeaderActionUnion `json:"action"`
}

// RouteHTTPHeaderActionUnion is a Set (with its value) or a Delete.
type RouteHTTPHeaderActionUnion struct {
	// Type is Set or Delete.
	Type RouteHTTPHeaderActionType `json:"type"`
	// Set holds the value for Set.
	Set *RouteSetHTTPHeader `json:"set,omitempty"`
}

// RouteSetHTTPHeader is the value a Set action writes.
type RouteSetHTTPHeader struct {
	// Value is the header value.
	Value string `json:"value"`
}

// RouteStatus is what the routers report about a Route.
type RouteStatus struct {
	// Ingress has one entry per router that considered the Route.
	Ingress []RouteIngress `json:"ingress,omitempty"`
}

// RouteIngress is one router's view of a Route.
type RouteIngress struct {
	// Host is the name the router serves.
	Host string `json:"host,omitempty"`
	// RouterName names the router.
	RouterName string `json:"routerName,omitempty"`
	// Conditions say whether the router admitted the Route.
	Conditions []RouteIngressCondition `json:"conditions,omitempty"`
	// WildcardPolicy is the policy the router allowed.
	WildcardPolicy WildcardPolicyType `json:"wildcardPolicy,omitempty"`
	// RouterCanonicalHostname is the router's own name, a CNAME target
	// for Host.
	RouterCanonicalHostname string `json:"routerCanonicalHostname,omitempty"`
}

// RouteIngressConditionType names a condition of a RouteIngress.
type RouteIngressConditionType string

// RouteAdmitted is the condition a router sets once it serves the Route.
const RouteAdmitted RouteIngressConditionType = "Admitted"

// RouteIngressCondition is one condition of a RouteIngress.
type RouteIngressCondition struct {
	// Type is the condition's name.
	Type RouteIngressConditionType `json:"type"`
	// Status is True, False or Unknown.
	Status corev1.ConditionStatus `json:"status"`
	// Reason is a short machine-readable cause.
	Reason string `json:"reason,omitempty"`
	// Message is a human-readable explanation.
	Message string `json:"message,omitempty"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
}
