package v1

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// DeepCopyInto copies r into out, sharing no memory.
func (r *Route) DeepCopyInto(out *Route) {
	out.TypeMeta = r.TypeMeta
	r.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	r.Spec.DeepCopyInto(&out.Spec)
	r.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of r sharing no memory.
func (r *Route) DeepCopy() *Route {
	if r == nil {
		return nil
	}
	out := new(Route)
	r.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (r *Route) DeepCopyObject() runtime.Object {
	if c := r.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies l into out, sharing no memory.
func (l *RouteList) DeepCopyInto(out *RouteList) {
	out.TypeMeta = l.TypeMeta
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Route, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	} else {
		out.Items = nil
	}
}

// DeepCopy returns a copy of l sharing no memory.
func (l *RouteList) DeepCopy() *RouteList {
	if l == nil {
		return nil
	}
	out := new(RouteList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (l *RouteList) DeepCopyObject() runtime.Object {
	if c := l.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies s into out, sharing no memory.
func (s *RouteSpec) DeepCopyInto(out *RouteSpec) {
	*out = *s
	s.To.DeepCopyInto(&out.To)
	if s.AlternateBackends != nil {
		out.AlternateBackends = make([]RouteTargetReference, len(s.AlternateBackends))
		for i := range s.AlternateBackends {
			s.AlternateBackends[i].DeepCopyInto(&out.AlternateBackends[i])
		}
	}
	if s.Port != nil {
		p := *s.Port
		out.Port = &p
	}
	if s.TLS != nil {
		out.TLS = new(TLSConfig)
		s.TLS.DeepCopyInto(out.TLS)
	}
	if s.HTTPHeaders != nil {
		out.HTTPHeaders = new(RouteHTTPHeaders)
		s.HTTPHeaders.DeepCopyInto(out.HTTPHeaders)
	}
}

// DeepCopyInto copies t into out, sharing no memory.
func (t *RouteTargetReference) DeepCopyInto(out *RouteTargetReference) {
	*out = *t
	if t.Weight != nil {
		w := *t.Weight
		out.Weight = &w
	}
}

// DeepCopyInto copies c into out, sharing no memory.
func (c *TLSConfig) DeepCopyInto(out *TLSConfig) {
	*out = *c
	if c.ExternalCertificate != nil {
		ref := *c.ExternalCertificate
		out.ExternalCertificate = &ref
	}
}

// DeepCopyInto copies h into out, sharing no memory.
func (h *RouteHTTPHeaders) DeepCopyInto(out *RouteHTTPHeaders) {
	out.Actions.Request = copyHeaders(h.Actions.Request)
	out.Actions.Response = copyHeaders(h.Actions.Response)
}

func copyHeaders(in []RouteHTTPHeader) []RouteHTTPHeader {
	if in == nil {
		return nil
	}
	out := make([]RouteHTTPHeader, len(in))
	for i, h := range in {
		out[i] = h
		if h.Action.Set != nil {
			set := *h.Action.Set
			out[i].Action.Set = &set
		}
	}
	return out
}

// DeepCopyInto copies s into out, sharing no memory.
func (s *RouteStatus) DeepCopyInto(out *RouteStatus) {
	if s.Ingress == nil {
		out.Ingress = nil
		return
	}
	out.Ingress = make([]RouteIngress, len(s.Ingress))
	for i, ing := range s.Ingress {
		out.Ingress[i] = ing
		if ing.Conditions != nil {
			conds := make([]RouteIngressCondition, len(ing.Conditions))
			for j, c := range ing.Conditions {
				conds[j] = c
				if c.LastTransitionTime != nil {
					t := c.LastTransitionTime.DeepCopy()
					conds[j].LastTransitionTime = t
				}
			}
			out.Ingress[i].Conditions = conds
		}
	}
}
