package fqdn_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/fqdn"
)

// templateObject is a stand-in for a Kubernetes object as FQDN templates see it.
type templateObject struct {
	Kind, Name, Namespace string
	Labels, Annotations   map[string]string
	Spec                  struct {
		Type      string
		ClusterIP string
		Ports     []int
	}
}

var webRef = source.ObjectRef{Kind: "Service", Namespace: "default", Name: "web"}

func newTemplateObject() templateObject {
	o := templateObject{
		Kind: "Service", Name: "web", Namespace: "default",
		Labels:      map[string]string{"app": "web", "tier": "", "zone": "eu"},
		Annotations: map[string]string{"cfg": `{"names":["x","y"],"region":"eu-1"}`},
	}
	o.Spec.Type = "LoadBalancer"
	o.Spec.ClusterIP = "10.0.0.1"
	o.Spec.Ports = []int{80, 443}
	return o
}

func TestFQDNTemplateExecute(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"white space only", "  \n", nil},
		{"plain", "{{.Name}}.example.com", []string{"web.example.com"}},
		{"several templates, trimmed, trailing dots, sorted, unique",
			"{{.Name}}.b.example.com. , {{.Name}}.a.example.com,,{{.Name}}.a.example.com", []string{"web.a.example.com", "web.b.example.com"}},
		{"namespace and label", "{{.Name}}.{{.Namespace}}.{{.Labels.zone}}.example.com", []string{"web.default.eu.example.com"}},
		{"comma inside an action is not a separator", `{{replace "e" "," .Name}}`, []string{"b", "w"}},
		{"trimPrefix trimSuffix", `{{trimSuffix (trimPrefix .Name "w") "b"}}.example.com`, []string{"e.example.com"}},
		{"trim toLower", `{{toLower (trim "  WEB  ")}}.example.com`, []string{"web.example.com"}},
		{"contains", `{{if contains .Name "eb"}}yes.example.com{{end}}`, []string{"yes.example.com"}},
		{"isIPv4 isIPv6", `{{if isIPv4 .Spec.ClusterIP}}v4.example.com{{end}},{{if isIPv6 .Spec.ClusterIP}}v6.example.com{{end}},{{if isIPv6 "::ffff:1.2.3.4"}}mapped.example.com{{end}}`,
			[]string{"mapped.example.com", "v4.example.com"}},
		{"hasKey on an empty label", `{{if hasKey .Labels "tier"}}tier.example.com{{end}}{{if hasKey .Labels "nope"}},nope.example.com{{end}}`, []string{"tier.example.com"}},
		{"hasKey on a non-map", `{{if hasKey .Name "x"}}x{{end}}`, nil},
		{"fromJson", `{{$c := fromJson (index .Annotations "cfg")}}{{range $c.names}}{{.}}.{{$c.region}}.example.com,{{end}}{{if hasKey $c "region"}}r.example.com{{end}}`,
			[]string{"r.example.com", "x.eu-1.example.com", "y.eu-1.example.com"}},
		{"range over labels", `{{range $k, $v := .Labels}}{{$k}}.example.com,{{end}}`, []string{"app.example.com", "tier.example.com", "zone.example.com"}},
		{"literal range within bounds", `{{range 3}}x{{end}}.example.com`, []string{"xxx.example.com"}},
		{"else branch runs outside the loop", `{{range 100}}{{else}}{{range 100}}{{end}}{{end}}{{range 100}}{{end}}x.example.com`, []string{"x.example.com"}},
		{"printf", `{{printf "%s-%03d" .Name 7}}.example.com`, []string{"web-007.example.com"}},
		{"kind condition", `{{if eq .Kind "Service"}}{{.Name}}.svc.example.com{{end}}`, []string{"web.svc.example.com"}},
		{"define and call", `{{define "n"}}{{.Name}}{{end}}{{template "n" .}}.example.com`, []string{"web.example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := fqdn.NewTemplate(tt.text)
			require.NoError(t, err)
			got, err := tmpl.Execute(webRef, newTemplateObject())
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestFQDNTemplateParseErrors(t *testing.T) {
	tests := []struct {
		name, text, message string
	}{
		{"syntax", "{{.Name", "unclosed action"},
		{"unknown function", "{{nope .Name}}", `function "nope" not defined`},
		{"self call", `{{define "a"}}{{template "a" .}}{{end}}{{template "a" .}}`, `template "a" calls itself`},
		{"mutual recursion", `{{define "a"}}{{template "b" .}}{{end}}{{define "b"}}{{if .}}{{template "a" .}}{{end}}{{end}}x`, "calls itself"},
		{"huge literal range", `{{range 100000000000}}{{end}}`, "more than 10000 iterations"},
		{"nested literal ranges", `{{range 1000}}{{range 1000}}{{end}}{{end}}`, "more than 10000 iterations"},
		{"literal range through a variable", `{{$n := 100000000000}}{{range $n}}{{end}}`, "more than 10000 iterations"},
		{"parenthesised literal", `{{range (100000000000)}}{{end}}`, "more than 10000 iterations"},
		{"literal through a function", `{{range and 1 100000000000}}{{end}}`, "more than 10000 iterations"},
		{"string length", `{{range len "` + strings.Repeat("x", 20000) + `"}}{{end}}`, "more than 10000 iterations"},
		{"range element of a counted range", `{{range $i := 200}}{{range $i}}{{end}}{{end}}`, "more than 10000 iterations"},
		{"float literal", `{{range 1e12}}{{end}}`, "more than 10000 iterations"},
		{"literal range through a call", `{{define "a"}}{{range 1000}}{{end}}{{end}}{{range 1000}}{{template "a"}}{{end}}`, "more than 10000 iterations"},
		{"deep nesting", `{{range .A}}{{range .B}}{{range .C}}{{range .D}}{{range .E}}{{end}}{{end}}{{end}}{{end}}{{end}}`, "nested more than 4 deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fqdn.NewTemplate(tt.text)
			require.Error(t, err)
			assert.ErrorContains(t, err, "FQDN template "+strconv.Quote(tt.text)[:min(len(tt.text), 60)])
			assert.ErrorContains(t, err, tt.message)
		})
	}
}

func TestFQDNTemplateExecuteErrors(t *testing.T) {
	big := strings.Repeat("a", fqdn.MaxFromJSONInput+1)
	tests := []struct {
		name, text, message string
		data                any
	}{
		{"missing field", "{{.Nope}}", "can't evaluate field Nope", newTemplateObject()},
		{"bad json", `{{fromJson .Name}}`, "fromJson: invalid character", newTemplateObject()},
		{"json too long", `{{fromJson .}}`, "exceeds 65536", `"` + big + `"`},
		{"output too long", `{{range 10000}}{{printf "%1000s" "x"}}{{end}}`, "template output exceeds 65536 bytes", nil},
		{"printf width too large", `{{printf "%99999999d" 1}}`, "exceeds 1024", nil},
		{"printf star width", `{{printf "%*d" 99999999 1}}`, "takes its width from an argument", nil},
		{"replace blows up", `{{replace "" (printf "%1000s" "x") (printf "%1000s" "y")}}`, "replace: result exceeds", nil},
		{"js blows up", `{{js (js (js (js (js (js (js .))))))}}`, "js: result exceeds", strings.Repeat(`\`, 1000)},
		{"empty label", `{{.Name}}..example.com`, "empty label", newTemplateObject()},
		{"white space inside a name", `{{.Name}} x.example.com`, "white space", newTemplateObject()},
		// Issue 21, finding 2: object data must not smuggle zone-file
		// escapes or other characters into a name.
		{"zone-file escape from the data", `{{index .Annotations "sub"}}.example.org`,
			`DNS name "\\102oo.example.org" contains '\\' (U+005C at offset 0) in label "\\102oo"`,
			templateObjectWith("sub", `\102oo`)},
		{"NUL from the data", `{{index .Annotations "sub"}}.example.org`, `contains '\x00'`, templateObjectWith("sub", "a\x00")},
		{"slash from the data", `{{index .Annotations "sub"}}.example.org`, `contains '/'`, templateObjectWith("sub", "a/b")},
		{"quote from the data", `{{index .Annotations "sub"}}.example.org`, `contains '"'`, templateObjectWith("sub", `a"b`)},
		{"no such template", `{{template "x"}}`, `template "x" not defined`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := fqdn.NewTemplate(tt.text)
			require.NoError(t, err)
			got, err := tmpl.Execute(webRef, tt.data)
			require.Error(t, err)
			assert.Nil(t, got)
			assert.ErrorContains(t, err, "Service default/web: FQDN template ")
			assert.ErrorContains(t, err, tt.message)
		})
	}
}

func TestNilFQDNTemplate(t *testing.T) {
	var tmpl *fqdn.Template
	assert.True(t, tmpl.IsEmpty())
	assert.Equal(t, "", tmpl.String())
	got, err := tmpl.Execute(webRef, nil)
	require.NoError(t, err)
	assert.Nil(t, got)
	assert.Equal(t, "{{.Name}}", fqdn.MustTemplate("{{.Name}}").String())
	assert.Panics(t, func() { fqdn.MustTemplate("{{") })
}

func TestCombineHostnames(t *testing.T) {
	tmpl := fqdn.MustTemplate("{{.Name}}.example.com,b.example.com")
	bad := fqdn.MustTemplate("{{.Nope}}")
	tests := []struct {
		name      string
		annotated []string
		tmpl      *fqdn.Template
		combine   bool
		want      []string
		err       bool
	}{
		{"no template", []string{"a.example.com"}, nil, true, []string{"a.example.com"}, false},
		{"empty template", nil, fqdn.MustTemplate(""), false, nil, false},
		{"annotation wins without combine", []string{"a.example.com"}, tmpl, false, []string{"a.example.com"}, false},
		{"annotation wins: template not run", []string{"a.example.com"}, bad, false, []string{"a.example.com"}, false},
		{"template when no annotation", nil, tmpl, false, []string{"b.example.com", "web.example.com"}, false},
		{"combine: annotated first, then template, unique", []string{"z.example.com", "b.example.com"}, tmpl, true,
			[]string{"z.example.com", "b.example.com", "web.example.com"}, false},
		{"template error", nil, bad, true, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fqdn.CombineHostnames(tt.annotated, tt.tmpl, tt.combine, webRef, newTemplateObject())
			if tt.err {
				require.Error(t, err)
				assert.ErrorContains(t, err, "Service default/web")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestFQDNTemplateConcurrentUse(t *testing.T) {
	tmpl := fqdn.MustTemplate("{{.Name}}.example.com")
	done := make(chan []string)
	for range 8 {
		go func() {
			got, _ := tmpl.Execute(webRef, newTemplateObject())
			done <- got
		}()
	}
	for range 8 {
		assert.Equal(t, []string{"web.example.com"}, <-done)
	}
}

func BenchmarkFQDNTemplateExecute(b *testing.B) {
	tmpl := fqdn.MustTemplate(`{{.Name}}.{{.Namespace}}.example.com,{{if hasKey .Labels "zone"}}{{.Name}}.{{index .Labels "zone"}}.example.com{{end}}`)
	obj := newTemplateObject()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tmpl.Execute(webRef, obj); err != nil {
			b.Fatal(err)
		}
	}
}

// templateObjectWith returns the test object with annotation key set to value.
func templateObjectWith(key, value string) any {
	obj := newTemplateObject()
	obj.Annotations[key] = value
	return obj
}
