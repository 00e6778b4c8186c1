package kubeopts_test

import (
	"fmt"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
	"github.com/zonesync/zonesync/source/fqdn"
	"github.com/zonesync/zonesync/source/kubernetes/kubeopts"
)

// Example shows how a source of one's own applies the shared options to
// one object: the hostname annotation gives a name, and with CombineFQDN
// the FQDN template (bound to the source's name) adds its own.
func Example() {
	opts, err := kubeopts.Options{
		FQDNTemplate: fqdn.MustTemplate(`{{if isSource "service"}}{{.name}}.svc.example.com{{end}}`),
		CombineFQDN:  true,
	}.WithSource("service")
	if err != nil {
		fmt.Println(err)
		return
	}
	ref := source.ObjectRef{Kind: "Service", Namespace: "shop", Name: "web"}
	ann, err := opts.ParseAnnotations(ref, map[string]string{annotations.Prefix + "hostname": "www.example.com"})
	if err != nil {
		fmt.Println(err)
		return
	}
	names, err := opts.Hostnames(ann, ref, map[string]any{"name": "web"})
	fmt.Println(names, err)
	// Output:
	// [www.example.com web.svc.example.com] <nil>
}
