package fqdn_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source/fqdn"
)

// FuzzFQDNTemplate runs fuzzed template text over an object with fuzzed
// name, label and annotation. Neither parsing nor execution may panic or
// run away, and the names returned are valid DNS names without a trailing
// dot or a comma, sorted and unique.
func FuzzFQDNTemplate(f *testing.F) {
	f.Add("{{.Name}}.example.com", "web", "eu", `{"a":1}`)
	f.Add(`{{range $k, $v := .Labels}}{{$k}}-{{$v}}.example.com,{{end}}`, "x", "", "")
	f.Add(`{{$c := fromJson (index .Annotations "cfg")}}{{range $c.names}}{{.}}.example.com,{{end}}`, "n", "l", `{"names":["a","b"]}`)
	f.Add(`{{define "a"}}{{.}}{{end}}{{template "a" .Name}}.,{{replace "-" "." .Name}}`, "a-b", "", "")
	f.Add(`{{if hasKey .Labels "zone"}}{{printf "%s.%s" .Name (index .Labels "zone")}}{{end}}`, "w", "z", "")
	f.Fuzz(func(t *testing.T, text, name, label, annotation string) {
		tmpl, err := fqdn.NewTemplate(text)
		if err != nil {
			return
		}
		obj := newTemplateObject()
		obj.Name = name
		obj.Labels["zone"] = label
		obj.Annotations["cfg"] = annotation
		got, err := tmpl.Execute(webRef, obj)
		if err != nil {
			require.ErrorContains(t, err, "Service default/web: FQDN template ")
			return
		}
		assert.True(t, slices.IsSorted(got))
		for i, n := range got {
			assert.NotEmpty(t, n)
			assert.NoError(t, endpoint.ValidateDNSName(n))
			assert.False(t, strings.HasSuffix(n, "."), "name %q keeps its dot", n)
			assert.NotContains(t, n, ",")
			if i > 0 {
				assert.NotEqual(t, got[i-1], n)
			}
		}
	})
}
