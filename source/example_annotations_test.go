package source_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

// annotatedApp is one object of a program's own: a name, the address it serves on,
// and external-dns annotations.
type annotatedApp struct {
	Namespace, Name string
	Address         string
	Annotations     map[string]string
}

// annotatedAppSource turns apps into endpoints: names from the hostname annotation
// (or, when there is none, from an FQDN template), targets from the target
// annotation or else the app's address.
type annotatedAppSource struct {
	apps     []annotatedApp
	cfg      source.AnnotationConfig
	template *source.FQDNTemplate
}

func (s annotatedAppSource) Endpoints(ctx context.Context) ([]*endpoint.Endpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var eps []*endpoint.Endpoint
	var failed *source.PartialError
	for _, a := range s.apps {
		obj := source.ObjectRef{Kind: "App", Namespace: a.Namespace, Name: a.Name}
		ann, err := s.cfg.Parse(obj, a.Annotations)
		if err != nil {
			// One bad object neither stops the others nor loses its
			// records: the Reconciler protects what it owns.
			failed = failed.Add(obj.Key(), err)
			continue
		}
		if ann.Skip {
			continue // another controller's object
		}
		names, err := source.CombineHostnames(ann.Hostnames, s.template, false, obj, a)
		if err != nil {
			failed = failed.Add(obj.Key(), err)
			continue
		}
		targets := ann.Targets
		if targets == nil {
			targets = []string{a.Address}
		}
		eps = append(eps, source.EndpointsForHostnames(names, targets, ann.EndpointMeta(obj))...)
	}
	slices.SortFunc(eps, endpoint.Compare)
	return eps, failed.OrNil()
}

func (annotatedAppSource) AddEventHandler(context.Context, func()) {}

// A source of one's own that reads external-dns annotations, falls back to
// an FQDN template, and reports a badly annotated object in a
// *source.PartialError while returning the endpoints of the others.
func Example_annotations() {
	src := annotatedAppSource{
		template: source.MustFQDNTemplate("{{.Name}}.{{.Namespace}}.example.com"),
		apps: []annotatedApp{
			{Namespace: "shop", Name: "web", Address: "192.0.2.10", Annotations: map[string]string{
				"external-dns.alpha.kubernetes.io/hostname": "www.example.com, shop.example.com.",
				"external-dns.kubernetes.io/ttl":            "5m",
			}},
			{Namespace: "shop", Name: "api", Address: "2001:db8::1"},
			{Namespace: "shop", Name: "cdn", Address: "192.0.2.11", Annotations: map[string]string{
				"external-dns.kubernetes.io/target": "cdn.provider.example.net",
			}},
			{Namespace: "shop", Name: "bad", Address: "192.0.2.12", Annotations: map[string]string{
				"external-dns.kubernetes.io/ttl": "soon",
			}},
			{Namespace: "other", Name: "theirs", Address: "192.0.2.13", Annotations: map[string]string{
				"external-dns.kubernetes.io/controller": "someone-else",
			}},
		},
	}
	eps, err := src.Endpoints(context.Background())
	for _, ep := range eps {
		resource, _ := ep.Labels.Get(endpoint.ResourceLabelKey)
		fmt.Println(ep.DNSName, ep.RecordType, ep.RecordTTL, ep.Targets, resource)
	}
	var partial *source.PartialError
	if errors.As(err, &partial) {
		fmt.Println(partial.Failed["app/shop/bad"])
	}
	// Output:
	// api.shop.example.com AAAA 0 2001:db8::1 app/shop/api
	// cdn.shop.example.com CNAME 0 cdn.provider.example.net app/shop/cdn
	// shop.example.com A 300 192.0.2.10 app/shop/web
	// www.example.com A 300 192.0.2.10 app/shop/web
	// App shop/bad: annotation external-dns.kubernetes.io/ttl="soon": invalid TTL "soon": neither whole seconds nor a duration
}

func ExampleFQDNTemplate() {
	tmpl, err := source.NewFQDNTemplate(
		`{{.Name}}.example.com, {{if hasKey .Labels "public"}}{{.Name}}.public.example.com{{end}}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	obj := struct {
		Name   string
		Labels map[string]string
	}{Name: "web", Labels: map[string]string{"public": ""}}
	names, err := tmpl.Execute(source.ObjectRef{Kind: "Service", Namespace: "default", Name: "web"}, obj)
	fmt.Println(names, err)
	// Output:
	// [web.example.com web.public.example.com] <nil>
}

func ExampleEndpointsForHostname() {
	eps := source.EndpointsForHostname("app.example.com",
		[]string{"192.0.2.2", "lb.example.net", "2001:db8::1", "192.0.2.1"},
		source.EndpointMeta{TTL: 60, Resource: "service/default/app"})
	for _, ep := range eps {
		fmt.Println(ep, maps.Collect(ep.Labels.All()))
	}
	// Output:
	// app.example.com 60 IN A  192.0.2.1;192.0.2.2 map[resource:service/default/app]
	// app.example.com 60 IN AAAA  2001:db8::1 map[resource:service/default/app]
	// app.example.com 60 IN CNAME  lb.example.net map[resource:service/default/app]
}
