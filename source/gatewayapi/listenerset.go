package gatewayapi

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"

	"github.com/zonesync/zonesync/informers"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
)

// listenerSetKind is the parentRef kind of a ListenerSet.
const listenerSetKind = "ListenerSet"

// ListenerSetGVR returns the ListenerSet resource read when
// [Config.GatewayListenerSets] is set: gateway.networking.k8s.io/v1, as
// served by the Gateway API CRDs from v1.5 on. The experimental
// XListenerSet (gateway.networking.x-k8s.io) is not read.
func ListenerSetGVR() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: Group, Version: "v1", Resource: "listenersets"}
}

// listenerSet holds the ListenerSet fields the sources read.
type listenerSet struct {
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		ParentRef struct {
			Namespace *string `json:"namespace,omitempty"`
			Name      string  `json:"name"`
		} `json:"parentRef"`
		Listeners []listener `json:"listeners,omitempty"`
	} `json:"spec"`
	Status struct {
		Conditions []metav1.Condition `json:"conditions,omitempty"`
		Listeners  []struct {
			Name       string             `json:"name"`
			Conditions []metav1.Condition `json:"conditions,omitempty"`
		} `json:"listeners,omitempty"`
	} `json:"status"`
}

// listenerSetInfo is a selected ListenerSet resolved against the selected
// Gateways: a route attached to it gets names from listeners and targets
// from gw (or the target annotations).
type listenerSetInfo struct {
	namespace   string
	name        string
	gatewayName string       // the parent Gateway's name, for Config.GatewayName
	gw          *gatewayInfo // nil when the ListenerSet is not attached to a selected Gateway
	listeners   []listener   // the listeners whose status says Accepted
	overrides   []string     // the ListenerSet's target annotation
	err         error        // fails the routes attached through it
}

// watchListenerSets adds the ListenerSet informer. ListenerSets are read in
// every namespace whatever the route and Gateway namespaces (a Gateway
// takes ListenerSets from other namespaces, and a route attaches to one in
// another namespace): with its own factories the source reuses one that
// watches every namespace, or makes one. It returns the factory to start,
// nil when there is none.
func (s *routeSource) watchListenerSets(ctx context.Context, client dynamic.Interface, routeFactory, gwFactory dynamicinformer.DynamicSharedInformerFactory) (dynamicinformer.DynamicSharedInformerFactory, error) {
	factory, start := s.cfg.DynamicFactory, dynamicinformer.DynamicSharedInformerFactory(nil)
	own := factory == nil
	if own {
		switch {
		case s.cfg.Namespace == "":
			factory = routeFactory
		case s.cfg.GatewayNamespace == "":
			factory = gwFactory
		default:
			factory = dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, s.cfg.ResyncPeriod, "", nil)
			start = factory
		}
	}
	s.listenerSets = factory.ForResource(ListenerSetGVR()).Informer()
	if own {
		if err := track(ctx, s.name, &s.listenerSets, ListenerSetGVR().GroupResource().String()); err != nil {
			return nil, err
		}
		// Unlike routes and Gateways, ListenerSets are judged by their
		// status.conditions: keep them.
		keep := transformOptions(s.cfg)
		keep.RemoveStatusConditions = false
		if err := s.listenerSets.SetTransform(informers.TransformerWithOptions[*unstructured.Unstructured](keep)); err != nil {
			return nil, err
		}
	}
	// The route annotation filter also selects ListenerSets, as in
	// external-dns; the route label selector does not.
	opts, err := indexOptions(s.cfg.AnnotationFilter, "")
	if err != nil {
		return nil, err
	}
	if s.lsIndex, err = addIndex(s.listenerSets, s.cfg.AnnotationFilter+"|", opts); err != nil {
		return nil, err
	}
	return start, nil
}

// listenerSetInfos returns the selected ListenerSets by namespace/name,
// nil when the source does not read them.
func (s *routeSource) listenerSetInfos(gateways map[string]*gatewayInfo) (map[string]*listenerSetInfo, error) {
	if s.listenerSets == nil {
		return nil, nil
	}
	objs, err := informers.ByIndex[*unstructured.Unstructured](s.listenerSets.GetIndexer(), s.lsIndex, informers.IndexMatch)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*listenerSetInfo, len(objs))
	for _, u := range objs {
		if info := s.listenerSetInfo(u, gateways); info != nil {
			out[info.namespace+"/"+info.name] = info
		}
	}
	return out, nil
}

// listenerSetInfo resolves one ListenerSet. It is attached (gw set) when
// its status says Accepted, its spec.parentRef names a selected Gateway
// and that Gateway's spec.allowedListeners admit its namespace; its
// listeners are those whose status entry says Accepted. It returns nil
// for a ListenerSet whose controller annotation names another
// controller: such a ListenerSet is not selected.
func (s *routeSource) listenerSetInfo(u *unstructured.Unstructured, gateways map[string]*gatewayInfo) *listenerSetInfo {
	info := &listenerSetInfo{namespace: u.GetNamespace(), name: u.GetName()}
	ref := source.ObjectRef{Kind: listenerSetKind, Namespace: info.namespace, Name: info.name}
	ann, err := s.cfg.Annotations.Parse(ref, u.GetAnnotations())
	if ann.Skip {
		return nil
	}
	if err = annotations.ErrorsOf(err, isTarget); err != nil {
		info.err = err
		return info
	}
	info.overrides = ann.Targets
	var ls listenerSet
	if err := convert(u, listenerSetKind, &ls); err != nil {
		info.err = err
		return info
	}
	info.gatewayName = ls.Spec.ParentRef.Name
	if !meta(ls.Status.Conditions, "Accepted") {
		return info
	}
	gwNamespace := or(ls.Spec.ParentRef.Namespace, info.namespace)
	gw, ok := gateways[gwNamespace+"/"+info.gatewayName]
	if !ok {
		return info
	}
	if gw.err != nil {
		info.err = gw.err
		return info
	}
	allowed, err := s.gatewayAllowsListenerSet(&gw.gw, info.namespace)
	if err != nil {
		info.err = fmt.Errorf("%s: parent Gateway %s/%s spec.allowedListeners: %w", ref, gwNamespace, info.gatewayName, err)
		return info
	}
	if !allowed {
		return info
	}
	info.gw = gw
	for _, lis := range ls.Spec.Listeners {
		for _, st := range ls.Status.Listeners {
			if st.Name == lis.Name {
				if meta(st.Conditions, "Accepted") {
					info.listeners = append(info.listeners, lis)
				}
				break
			}
		}
	}
	return info
}

// gatewayAllowsListenerSet reports whether the Gateway's
// spec.allowedListeners admit ListenerSets of namespace ns: none when the
// field is missing, else from the same namespace, from all, or from the
// namespaces a selector matches.
func (s *routeSource) gatewayAllowsListenerSet(gw *gateway, ns string) (bool, error) {
	al := gw.Spec.AllowedListeners
	if al == nil || al.Namespaces == nil {
		return false, nil
	}
	switch or(al.Namespaces.From, "None") {
	case "All":
		return true, nil
	case "Same":
		return gw.Namespace == ns, nil
	case "Selector":
		if al.Namespaces.Selector == nil {
			return false, nil
		}
		sel, err := metav1.LabelSelectorAsSelector(al.Namespaces.Selector)
		if err != nil {
			return false, fmt.Errorf("namespace selector: %w", err)
		}
		n, found, err := informers.Get[*corev1.Namespace](s.namespaces.GetStore(), "", ns)
		if err != nil || !found {
			return false, err
		}
		return sel.Matches(labels.Set(n.Labels)), nil
	}
	return false, nil
}

// addListenerSetParent adds to targets the names the route gets through a
// status entry whose parentRef (also in spec.parentRefs) names the
// ListenerSet ns/name: the entry must say Accepted, the ListenerSet be
// attached to a selected Gateway, and the names come from its accepted
// listeners.
func (s *routeSource) addListenerSetParent(rt *route, ps routeParentStatus, ns string, hosts, routeTargets []string, lsets map[string]*listenerSetInfo, targets map[string][]string) error {
	info, ok := lsets[ns+"/"+ps.ParentRef.Name]
	if !ok {
		return nil
	}
	if s.cfg.GatewayName != "" && s.cfg.GatewayName != info.gatewayName {
		return nil
	}
	if !meta(ps.Conditions, "Accepted") {
		return nil
	}
	if info.err != nil {
		return info.err
	}
	if info.gw == nil {
		return nil
	}
	to := parentTargets(routeTargets, info.overrides, info.gw)
	owner := fmt.Sprintf("ListenerSet %s/%s", info.namespace, info.name)
	return s.addListeners(rt, ps.ParentRef, owner, info.namespace, info.listeners, hosts, to, targets)
}
