package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/util/jsonpath"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// UnstructuredConfig configures an [UnstructuredSource]. Host names come
// from the hostname annotation, then HostnameJSONPath, then the host name
// template Options.FQDNTemplate (each used when the ones before give none,
// or all of them with Options.CombineFQDN); targets from the target
// annotation, else TargetJSONPath, else Options.TargetTemplate.
// Options.FQDNTargetTemplate adds its host:target records to an object
// whose names give none (or always, with CombineFQDN), before the FQDN
// template is tried; Options.IgnoreHostnameAnnotation leaves the hostname
// annotation out. Templates see the
// object's map (so {{.metadata.name}}, {{.status.address}}); JSON paths
// use the kubectl syntax, e.g. "{.status.addresses[*].ip}".
type UnstructuredConfig struct {
	kubeopts.Options
	// GVR is the resource read. Required.
	GVR schema.GroupVersionResource
	// Kind names the objects in errors and resource keys when they carry
	// no kind; empty means GVR.Resource.
	Kind string
	// HostnameJSONPath gives host names: every value it selects (strings,
	// or lists of strings), each possibly a comma-separated list.
	HostnameJSONPath string
	// TargetJSONPath gives targets in the same way. Options.TargetTemplate
	// gives them when TargetJSONPath is not set; its output is split on
	// commas.
	TargetJSONPath string
	// RecordType forces the type of every endpoint (for example TXT or
	// CNAME); empty types targets as other sources do (A, AAAA or CNAME).
	RecordType string
	// DynamicFactory: see [ServiceConfig.Factory].
	DynamicFactory dynamicinformer.DynamicSharedInformerFactory
}

// UnstructuredSource publishes objects of any resource, with host names
// and targets taken from the object by templates or JSON paths, as
// external-dns v0.21 added for arbitrary custom resources.
//
//zonesync:source:name=unstructured
//zonesync:source:category=kubernetes
//zonesync:source:description=Any resource by group/version/resource, with host names and targets from templates or JSON paths.
//zonesync:source:resources=any (given by GVR)
//zonesync:source:filters=annotation-filter,label-selector
//zonesync:source:namespaced=true
//zonesync:source:fqdn-template=true
//zonesync:source:events=true
//zonesync:source:config=UnstructuredConfig
type UnstructuredSource struct {
	cfg        UnstructuredConfig
	res        *dynamicResource
	hostPath   *jsonpath.JSONPath
	targetPath *jsonpath.JSONPath
	inf        informerSet
}

var (
	_ source.Source = (*UnstructuredSource)(nil)
	_ source.Syncer = (*UnstructuredSource)(nil)
)

func parseJSONPath(name, text string) (*jsonpath.JSONPath, error) {
	if text == "" {
		return nil, nil
	}
	p := jsonpath.New(name).AllowMissingKeys(true)
	if err := p.Parse(text); err != nil {
		return nil, fmt.Errorf("%s %q: %w", name, text, err)
	}
	return p, nil
}

// NewUnstructuredSource returns a source over the objects of cfg.GVR;
// see [NewServiceSource] for the informer life cycle.
func NewUnstructuredSource(ctx context.Context, client dynamic.Interface, cfg UnstructuredConfig) (*UnstructuredSource, error) {
	if cfg.GVR.Empty() || cfg.GVR.Resource == "" {
		return nil, errors.New("unstructured source: GVR is required")
	}
	if cfg.Kind == "" {
		cfg.Kind = cfg.GVR.Resource
	}
	if cfg.RecordType != "" && !slices.Contains(endpoint.KnownRecordTypes(), cfg.RecordType) {
		return nil, fmt.Errorf("unstructured source: record type %q is not known", cfg.RecordType)
	}
	hostPath, err := parseJSONPath("hostname JSON path", cfg.HostnameJSONPath)
	if err != nil {
		return nil, fmt.Errorf("unstructured source: %w", err)
	}
	targetPath, err := parseJSONPath("target JSON path", cfg.TargetJSONPath)
	if err != nil {
		return nil, fmt.Errorf("unstructured source: %w", err)
	}
	if cfg.Options, err = cfg.WithSource("unstructured"); err != nil {
		return nil, err
	}
	res, start, err := newDynamicResource(ctx, client, cfg.DynamicFactory, cfg.Options, "unstructured", cfg.GVR)
	if err != nil {
		return nil, err
	}
	s := &UnstructuredSource{cfg: cfg, res: res, hostPath: hostPath, targetPath: targetPath, inf: informerSet{res.informer}}
	if start != nil {
		start(ctx)
	}
	return s, nil
}

// String returns "unstructured:" followed by the resource.
func (s *UnstructuredSource) String() string { return "unstructured:" + s.cfg.GVR.String() }

// Endpoints returns the endpoints of the selected objects.
func (s *UnstructuredSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	objs, err := s.res.list()
	if err != nil {
		return nil, fmt.Errorf("%s source: %w", s, err)
	}
	return endpointsOf(objs, func(u *unstructured.Unstructured) (source.ObjectRef, bool) {
		return objectRef(u, s.cfg.Kind), true
	}, s.objectEndpoints)
}

func (s *UnstructuredSource) objectEndpoints(ref source.ObjectRef, u *unstructured.Unstructured) ([]*endpoint.Endpoint, error) {
	ann, err := s.cfg.Annotations.Parse(ref, u.GetAnnotations())
	if err != nil {
		return nil, err
	}
	if ann.Skip {
		return nil, nil
	}
	names := s.cfg.AnnotatedHostnames(ann)
	if s.hostPath != nil && (len(names) == 0 || s.cfg.CombineFQDN) {
		found, err := jsonPathValues(s.hostPath, u.Object)
		if err != nil {
			return nil, fmt.Errorf("%s: hostname JSON path %q: %w", ref, s.cfg.HostnameJSONPath, err)
		}
		for _, n := range found {
			if err := endpoint.ValidateDNSName(n); err != nil {
				return nil, fmt.Errorf("%s: hostname JSON path %q: %w", ref, s.cfg.HostnameJSONPath, err)
			}
			names = append(names, strings.TrimSuffix(n, "."))
		}
	}
	targets := ann.Targets
	if targets == nil {
		switch {
		case s.targetPath != nil:
			if targets, err = jsonPathValues(s.targetPath, u.Object); err != nil {
				return nil, fmt.Errorf("%s: target JSON path %q: %w", ref, s.cfg.TargetJSONPath, err)
			}
		case !s.cfg.TargetTemplate.IsEmpty():
			if targets, err = s.cfg.TargetTemplate.ExecuteTargets(ref, u.Object); err != nil {
				return nil, err
			}
		}
	}
	meta := ann.EndpointMeta(ref)
	eps, err := s.endpointsFor(ref, names, targets, meta)
	if err != nil {
		return nil, err
	}
	// The template passes, in external-dns's order: host:target pairs,
	// then the FQDN template's names, each only while the object has no
	// endpoints yet (or always, with CombineFQDN).
	pairs, err := s.cfg.FQDNTargetEndpoints(len(eps), ref, u.Object, meta)
	if err != nil {
		return nil, err
	}
	eps = append(eps, pairs...)
	if !s.cfg.TemplateRuns(len(eps)) {
		return eps, nil
	}
	templated, err := s.cfg.FQDNTemplate.Execute(ref, u.Object)
	if err != nil {
		return nil, err
	}
	templated = slices.DeleteFunc(templated, func(n string) bool { return slices.Contains(names, n) })
	more, err := s.endpointsFor(ref, templated, targets, meta)
	if err != nil {
		return nil, err
	}
	return append(eps, more...), nil
}

// endpointsFor returns the endpoints of names pointing at targets, of the
// configured record type when there is one.
func (s *UnstructuredSource) endpointsFor(ref source.ObjectRef, names, targets []string, meta source.EndpointMeta) ([]*endpoint.Endpoint, error) {
	names = slices.Clone(names)
	slices.Sort(names)
	names = slices.Compact(names)
	if s.cfg.RecordType == "" {
		return source.EndpointsForHostnames(names, targets, meta), nil
	}
	targets = slices.DeleteFunc(slices.Clone(targets), func(t string) bool { return t == "" })
	if len(targets) == 0 {
		return nil, nil
	}
	slices.Sort(targets)
	targets = slices.Compact(targets)
	var eps []*endpoint.Endpoint
	for _, h := range names {
		ep := endpoint.NewEndpointWithTTL(h, s.cfg.RecordType, meta.TTL, targets...)
		ep.SetIdentifier = meta.SetIdentifier
		ep.ProviderSpecific = slices.Clone(meta.ProviderSpecific)
		ep.Labels = endpoint.LabelsFromMap(map[string]string{endpoint.ResourceLabelKey: meta.Resource})
		if err := ep.ValidateDesired(); err != nil {
			return nil, fmt.Errorf("%s: %w", ref, err)
		}
		eps = append(eps, ep)
	}
	return eps, nil
}

// jsonPathValues returns the strings p selects from obj: string values,
// elements of string lists, each split on commas and trimmed.
func jsonPathValues(p *jsonpath.JSONPath, obj map[string]any) ([]string, error) {
	results, err := p.FindResults(obj)
	if err != nil {
		return nil, err
	}
	var out []string
	add := func(v any) error {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("selects %T, not a string", v)
		}
		for _, part := range strings.Split(s, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
		return nil
	}
	for _, group := range results {
		for _, rv := range group {
			if !rv.IsValid() || !rv.CanInterface() {
				continue
			}
			switch v := rv.Interface().(type) {
			case []any:
				for _, e := range v {
					if err := add(e); err != nil {
						return nil, err
					}
				}
			case nil:
			default:
				if err := add(v); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// HasSynced reports whether the source's informers have synced; until
// then its Endpoints would be incomplete.
func (s *UnstructuredSource) HasSynced() bool { return s.inf.HasSynced() }

// WaitForSync blocks until the source's informers have synced or ctx is
// done; it returns an error wrapping ctx's cause then.
func (s *UnstructuredSource) WaitForSync(ctx context.Context) error { return s.inf.WaitForSync(ctx) }

// AddEventHandler calls handler on every add, delete and change (not on
// resyncs) of the objects the source reads, until ctx is done.
func (s *UnstructuredSource) AddEventHandler(ctx context.Context, handler func()) {
	s.inf.AddEventHandler(ctx, handler)
}
