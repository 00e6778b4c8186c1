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
