package fqdn_test

import (
	"fmt"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/fqdn"
)

func ExampleTemplate() {
	tmpl, err := fqdn.NewTemplate(
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

func ExampleTemplate_ForSource() {
	tmpl := fqdn.MustTemplate(`{{.Name}}.{{if isSource "ingress"}}web{{else}}svc{{end}}.example.com`)
	ref := source.ObjectRef{Kind: "Service", Namespace: "default", Name: "api"}
	forService, _ := tmpl.ForSource("service")
	forIngress, _ := tmpl.ForSource("ingress")
	fmt.Println(forService.Execute(ref, struct{ Name string }{"api"}))
	fmt.Println(forIngress.Execute(ref, struct{ Name string }{"api"}))
	// Output:
	// [api.svc.example.com] <nil>
	// [api.web.example.com] <nil>
}

func ExampleTemplate_ExecutePairs() {
	tmpl := fqdn.MustTemplate(`{{range .Pods}}{{.Name}}.pods.example.com:{{.IP}},{{end}}`)
	type pod struct{ Name, IP string }
	data := struct{ Pods []pod }{[]pod{{"a", "10.0.0.1"}, {"b", "2001:db8::2"}, {"c", ""}}}
	pairs, err := tmpl.ExecutePairs(source.ObjectRef{Kind: "Service", Namespace: "default", Name: "db"}, data)
	fmt.Println(pairs, err)
	// Output:
	// [{a.pods.example.com 10.0.0.1} {b.pods.example.com 2001:db8::2}] <nil>
}

func ExampleTemplate_ExecuteTargets() {
	tmpl := fqdn.MustTemplate(`{{.IP}},{{.Host}}`)
	targets, err := tmpl.ExecuteTargets(source.ObjectRef{Kind: "Gateway", Namespace: "default", Name: "gw"},
		struct{ IP, Host string }{"2001:db8::5", "lb.example.com."})
	fmt.Println(targets, err)
	// Output:
	// [2001:db8::5 lb.example.com] <nil>
}
