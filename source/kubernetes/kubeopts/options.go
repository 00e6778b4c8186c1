package kubeopts

import (
	"fmt"
	"slices"
	"time"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
	"github.com/zonesync/zonesync/source/fqdn"
)

// Options are the settings every source of Kubernetes objects shares
// (those of packages source/kubernetes and source/gatewayapi), each named
// after the external-dns flag it stands for.
type Options struct {
	// Namespace limits the source to one namespace (--namespace); empty
	// means all.
	Namespace string
	// AnnotationFilter selects objects by their annotations with label
	// selector syntax, e.g. "dns in (public)" (external-dns's
	// --annotation-filter). Empty selects all.
	AnnotationFilter string
	// LabelSelector selects objects by their labels (--label-filter).
	// Empty selects all.
	LabelSelector string
	// FQDNTemplate gives host names for objects without a hostname
	// annotation (see [fqdn.CombineHostnames]); the typed object (or the
	// unstructured object's map) is its data (--fqdn-template). Nil for
	// none.
	FQDNTemplate *fqdn.Template
	// CombineFQDN adds the template's names to the annotated ones
	// (--combine-fqdn-annotation). It governs FQDNTargetTemplate and
	// TargetTemplate in the same way.
	CombineFQDN bool
	// IgnoreHostnameAnnotation makes the sources disregard the hostname
	// annotation, and the service source the internal-hostname one too
	// (--ignore-hostname-annotation): names come from the objects' specs
	// and the templates only.
	IgnoreHostnameAnnotation bool
	// FQDNTargetTemplate gives whole records: its output is a
	// comma-separated list of "host:target" pairs (see
	// [fqdn.Template.ExecutePairs]; --fqdn-target-template). As in
	// external-dns v0.23, only the service and unstructured sources run it
	// (of external-dns's others, node, pod, gloo, traefik and f5 do): for
	// an object whose annotations give no records, or always with
	// CombineFQDN; its records carry no TTL, set identifier or provider
	// properties. When it gives records (and CombineFQDN is not set),
	// FQDNTemplate is not run for that object. Nil for none.
	FQDNTargetTemplate *fqdn.Template
	// TargetTemplate gives the targets of the names FQDNTemplate gives
	// (see [fqdn.Template.ExecuteTargets]; --target-template). As in
	// external-dns v0.23, only sources whose objects may carry no address
	// of their own run it: here the unstructured source (of external-dns's
	// others, gloo, traefik and f5 do). Nil for none.
	TargetTemplate *fqdn.Template
	// Annotations says which annotation prefixes are read and which
	// controller name marks an object as ours.
	Annotations annotations.Config
	// ResyncPeriod is the informers' resync period; zero disables resyncs.
	// It is used only when the source builds its own informer factory.
	ResyncPeriod time.Duration
}

// WithSource returns o with its templates bound to the source called name
// (one of [fqdn.SourceNames]), so that their isSource function answers for
// it. Every source of packages source/kubernetes and source/gatewayapi
// calls it with its external-dns name when it is built; a program building
// a source of its own on Options may too.
func (o Options) WithSource(name string) (Options, error) {
	for _, t := range []**fqdn.Template{&o.FQDNTemplate, &o.TargetTemplate, &o.FQDNTargetTemplate} {
		bound, err := (*t).ForSource(name)
		if err != nil {
			return Options{}, fmt.Errorf("%s source: %w", name, err)
		}
		*t = bound
	}
	return o, nil
}

// The helpers below are how sources honour the options every source
// shares; a source that uses them gets IgnoreHostnameAnnotation,
// FQDNTemplate with CombineFQDN, FQDNTargetTemplate and TargetTemplate as
// external-dns applies them:
//
//   - Hostnames: for a source whose names come from the hostname
//     annotation (and the template) only;
//   - AnnotatedHostnames and CombineHostnames: for a source that adds names
//     of its own (spec hosts) to the annotated ones before the template;
//   - FQDNTargetEndpoints: for a source that external-dns runs the FQDN
//     target template for (service, unstructured, node, pod, gloo,
//     traefik, f5), after it built the endpoints of its annotations;
//   - TemplateEndpoints: both template passes for a source whose
//     template names get their targets from TargetTemplate only (gloo,
//     traefik, f5 in external-dns);
//
// and, in the constructor, cfg.Options, err = cfg.WithSource(name).

// AnnotatedHostnames returns the names of the hostname annotation, none
// with IgnoreHostnameAnnotation.
func (o Options) AnnotatedHostnames(ann annotations.Values) []string {
	if o.IgnoreHostnameAnnotation {
		return nil
	}
	return ann.Hostnames
}

// Hostnames returns the host names of an object from its hostname
// annotation (unless IgnoreHostnameAnnotation) and the template, as
// external-dns does.
func (o Options) Hostnames(ann annotations.Values, obj source.ObjectRef, data any) ([]string, error) {
	return o.CombineHostnames(o.AnnotatedHostnames(ann), obj, data)
}

// CombineHostnames returns names with the template's names as
// [fqdn.CombineHostnames] combines them: names are those a source found
// (spec hosts, and AnnotatedHostnames).
func (o Options) CombineHostnames(names []string, obj source.ObjectRef, data any) ([]string, error) {
	return fqdn.CombineHostnames(names, o.FQDNTemplate, o.CombineFQDN, obj, data)
}

// TemplateRuns reports whether a template pass runs for an object that
// has built endpoints already: only for one with none, or always with
// CombineFQDN (external-dns's rule for every template).
func (o Options) TemplateRuns(built int) bool { return built == 0 || o.CombineFQDN }

// FQDNTargetEndpoints returns the endpoints of FQDNTargetTemplate's
// "host:target" pairs for an object that has built endpoints from its
// annotations already: none when the template is not set or when built >
// 0 without CombineFQDN. The endpoints carry only meta's resource label,
// as external-dns's carry no TTL, set identifier or provider properties;
// a host's targets are typed as other targets are (A, AAAA, CNAME).
func (o Options) FQDNTargetEndpoints(built int, ref source.ObjectRef, data any, meta source.EndpointMeta) ([]*endpoint.Endpoint, error) {
	if o.FQDNTargetTemplate.IsEmpty() || !o.TemplateRuns(built) {
		return nil, nil
	}
	pairs, err := o.FQDNTargetTemplate.ExecutePairs(ref, data)
	if err != nil {
		return nil, err
	}
	var eps []*endpoint.Endpoint
	for i := 0; i < len(pairs); {
		j := i
		var targets []string
		for ; j < len(pairs) && pairs[j].Host == pairs[i].Host; j++ {
			targets = append(targets, pairs[j].Target)
		}
		eps = append(eps, source.EndpointsForHostname(pairs[i].Host, targets, source.EndpointMeta{Resource: meta.Resource})...)
		i = j
	}
	return eps, nil
}

// TemplateEndpoints completes eps, the endpoints a source built from an
// object's annotations and spec, with both template passes as external-dns
// runs them for sources whose objects may carry no address (its
// ApplyTemplates): first FQDNTargetEndpoints, then, when there are still
// none (or with CombineFQDN), FQDNTemplate's names pointing at
// TargetTemplate's targets (no targets, no endpoints). Template names
// carry meta.
func (o Options) TemplateEndpoints(eps []*endpoint.Endpoint, ref source.ObjectRef, data any, meta source.EndpointMeta) ([]*endpoint.Endpoint, error) {
	pairs, err := o.FQDNTargetEndpoints(len(eps), ref, data, meta)
	if err != nil {
		return nil, err
	}
	eps = append(eps, pairs...)
	if o.FQDNTemplate.IsEmpty() || !o.TemplateRuns(len(eps)) {
		return eps, nil
	}
	names, err := o.FQDNTemplate.Execute(ref, data)
	if err != nil || len(names) == 0 {
		return eps, err
	}
	targets, err := o.TargetTemplate.ExecuteTargets(ref, data)
	if err != nil {
		return nil, err
	}
	return append(eps, source.EndpointsForHostnames(names, targets, meta)...), nil
}

// ParseAnnotations parses an object's annotations as Annotations.Parse
// does, leaving out the errors of the annotations named in unread (names
// such as [annotations.Hostname]) that the source does not read for this
// object; see [annotations.ErrorsOf].
func (o Options) ParseAnnotations(ref source.ObjectRef, m map[string]string, unread ...string) (annotations.Values, error) {
	ann, err := o.Annotations.Parse(ref, m)
	return ann, withoutUnread(err, unread...)
}

// withoutUnread returns err, an error of Annotations.Parse, without the
// errors of the annotations named in unread.
func withoutUnread(err error, unread ...string) error {
	return annotations.ErrorsOf(err, func(name string) bool { return !slices.Contains(unread, name) })
}
