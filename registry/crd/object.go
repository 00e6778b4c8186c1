package crd

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/zonesync/zonesync/endpoint"
)

// object is what the cache keeps of a DNSRecord: its identity and what the
// registry reads, parsed once when the object arrives. It is never
// modified once stored.
type object struct {
	metav1.TypeMeta
	// ObjectMeta holds the name, namespace, UID, resource version and
	// generation only.
	metav1.ObjectMeta

	owner string // the OwnerLabel
	// ep is spec.endpoint; nil when it could not be read (invalid says
	// why): such an object claims nothing.
	ep      *endpoint.Endpoint
	invalid string
	// previous is the PreviousEndpointAnnotation; nil when absent or
	// unreadable.
	previous *endpoint.Endpoint
	// ready is the Ready condition of the status.
	ready readiness
}

// readiness is what the registry reads of the Ready condition of a
// DNSRecord.
type readiness struct {
	// set: the status has a Ready condition. Only a writer of the status
	// subresource can give an object one: the API server drops the status
	// of a create, and of an update of the main resource.
	set bool
	// programmed: the condition is True.
	programmed bool
	// reason is the condition's reason.
	reason string
	// observedGeneration is the generation of the spec the condition was
	// written for (0: not recorded, as external-dns writes it).
	observedGeneration int64
}

// current reports whether the Ready condition of o was written for the
// spec o holds now: its observedGeneration is the object's generation.
func (o *object) current() bool {
	return o.ready.set && o.ready.observedGeneration == o.Generation
}

// DeepCopyObject returns o itself: stored objects are never modified.
func (o *object) DeepCopyObject() runtime.Object { return o }

var _ metav1.Object = (*object)(nil)

// toObject is the cache's transform: it keeps of a DNSRecord what the
// registry reads. Objects already transformed, and tombstones, pass
// unchanged.
func toObject(in any) (any, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return in, nil
	}
	o := &object{
		ObjectMeta: metav1.ObjectMeta{
			Name:            u.GetName(),
			Namespace:       u.GetNamespace(),
			UID:             u.GetUID(),
			ResourceVersion: u.GetResourceVersion(),
			Generation:      u.GetGeneration(),
		},
		owner: u.GetLabels()[OwnerLabel],
		ready: readinessOf(u),
	}
	if ep, err := specEndpoint(u); err != nil {
		o.invalid = err.Error()
	} else {
		o.ep = ep
	}
	if text, ok := u.GetAnnotations()[PreviousEndpointAnnotation]; ok {
		var prev endpoint.Endpoint
		if json.Unmarshal([]byte(text), &prev) == nil {
			o.previous = &prev
		}
	}
	return o, nil
}

// specEndpoint reads spec.endpoint of u through the endpoint JSON form.
func specEndpoint(u *unstructured.Unstructured) (*endpoint.Endpoint, error) {
	raw, found, err := unstructured.NestedFieldNoCopy(u.Object, "spec", "endpoint")
	if err != nil {
		return nil, fmt.Errorf("spec.endpoint: %w", err)
	}
	if !found || raw == nil {
		return nil, fmt.Errorf("spec.endpoint is missing")
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("spec.endpoint: %w", err)
	}
	var ep endpoint.Endpoint
	if err := json.Unmarshal(b, &ep); err != nil {
		return nil, fmt.Errorf("spec.endpoint: %w", err)
	}
	if ep.DNSName == "" || ep.RecordType == "" {
		return nil, fmt.Errorf("spec.endpoint has no dnsName or no recordType")
	}
	return &ep, nil
}

// jsonValue returns v in the form unstructured content takes (maps,
// slices, strings, int64, bool), through its JSON form.
func jsonValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := utiljson.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// newObject returns the DNSRecord name in namespace ns that records ep for
// owner.
func newObject(ns, name, owner string, ep *endpoint.Endpoint) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: Group, Version: Version, Kind: Kind})
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetLabels(map[string]string{OwnerLabel: owner})
	if err := setSpecEndpoint(u, ep); err != nil {
		return nil, err
	}
	return u, nil
}

// setSpecEndpoint writes ep as spec.endpoint of u.
func setSpecEndpoint(u *unstructured.Unstructured, ep *endpoint.Endpoint) error {
	v, err := jsonValue(ep)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", ep.Key(), err)
	}
	return unstructured.SetNestedField(u.Object, v, "spec", "endpoint")
}

// setPrevious sets (prev non-nil) or removes the PreviousEndpointAnnotation
// of u.
func setPrevious(u *unstructured.Unstructured, prev *endpoint.Endpoint) error {
	ann := u.GetAnnotations()
	if prev == nil {
		if _, ok := ann[PreviousEndpointAnnotation]; !ok {
			return nil
		}
		delete(ann, PreviousEndpointAnnotation)
		u.SetAnnotations(ann)
		return nil
	}
	b, err := json.Marshal(prev)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", prev.Key(), err)
	}
	if ann == nil {
		ann = map[string]string{}
	}
	ann[PreviousEndpointAnnotation] = string(b)
	u.SetAnnotations(ann)
	return nil
}

// conditions returns the status conditions of u.
func conditions(u *unstructured.Unstructured) []metav1.Condition {
	raw, found, err := unstructured.NestedFieldNoCopy(u.Object, "status", "conditions")
	if err != nil || !found {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var out []metav1.Condition
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

// readinessOf reads the Ready condition of u.
func readinessOf(u *unstructured.Unstructured) readiness {
	c := meta.FindStatusCondition(conditions(u), ReadyCondition)
	if c == nil {
		return readiness{}
	}
	return readiness{set: true, programmed: c.Status == metav1.ConditionTrue, reason: c.Reason, observedGeneration: c.ObservedGeneration}
}

// maxMessage is the longest condition message the schema accepts.
const maxMessage = 32768

// setReady sets the Ready condition of u: True for ReasonProgrammed, False
// otherwise, with reason and message; the transition time changes only
// when the status does (and other conditions are kept). It reports whether
// the condition changed.
func setReady(u *unstructured.Unstructured, reason, message string, now time.Time) (bool, error) {
	status := metav1.ConditionFalse
	if reason == ReasonProgrammed {
		status = metav1.ConditionTrue
	}
	conds := conditions(u)
	changed := meta.SetStatusCondition(&conds, metav1.Condition{
		Type:               ReadyCondition,
		Status:             status,
		Reason:             reason,
		Message:            truncate(message, maxMessage),
		ObservedGeneration: u.GetGeneration(),
		LastTransitionTime: metav1.NewTime(now.UTC().Truncate(time.Second)),
	})
	if !changed {
		return false, nil
	}
	v, err := jsonValue(conds)
	if err != nil {
		return false, err
	}
	return true, unstructured.SetNestedField(u.Object, v, "status", "conditions")
}

// truncate cuts s to at most n bytes on a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ownerOf returns the OwnerLabel of u.
func ownerOf(u *unstructured.Unstructured) string { return u.GetLabels()[OwnerLabel] }

// sameIdentity reports whether a and b are the same record set: names equal
// once in A-label form (case and a trailing dot aside), types equal
// ignoring case, set identifiers equal.
func sameIdentity(a, b *endpoint.Endpoint) bool {
	return strings.EqualFold(a.RecordType, b.RecordType) && a.SetIdentifier == b.SetIdentifier &&
		endpoint.CanonicalName(a.DNSName) == endpoint.CanonicalName(b.DNSName)
}

// ref names the DNSRecord name in ns for errors and logs.
func ref(ns, name string) string { return ns + "/" + name }
