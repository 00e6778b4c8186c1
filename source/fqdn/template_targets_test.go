package fqdn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/source/fqdn"
)

func TestIsSource(t *testing.T) {
	const text = `{{if isSource "service"}}svc.example.com{{end}},{{if isSource "Ingress"}}ing.example.com{{end}}`
	tests := []struct {
		name  string
		bound string // "" leaves the template unbound
		want  []string
	}{
		{"unbound answers false for every name", "", nil},
		{"bound to service", "service", []string{"svc.example.com"}},
		{"case does not matter", "INGRESS", []string{"ing.example.com"}},
		{"bound to another source", "crd", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl := fqdn.MustTemplate(text)
			if tt.bound != "" {
				var err error
				tmpl, err = tmpl.ForSource(tt.bound)
				require.NoError(t, err)
			}
			got, err := tmpl.Execute(webRef, newTemplateObject())
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestIsSourceBindingLeavesOriginal(t *testing.T) {
	orig := fqdn.MustTemplate(`{{if isSource "service"}}svc.example.com{{else}}other.example.com{{end}}`)
	bound, err := orig.ForSource("service")
	require.NoError(t, err)
	got, err := bound.Execute(webRef, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"svc.example.com"}, got)
	got, err = orig.Execute(webRef, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"other.example.com"}, got)
	assert.Equal(t, orig.String(), bound.String())

	var nilTmpl *fqdn.Template
	same, err := nilTmpl.ForSource("service")
	require.NoError(t, err)
	assert.Nil(t, same)
}

func TestIsSourceUnknownName(t *testing.T) {
	for _, bound := range []string{"", "service"} {
		tmpl := fqdn.MustTemplate(`{{if isSource "servcie"}}x.example.com{{end}}`)
		if bound != "" {
			tmpl, _ = tmpl.ForSource(bound)
		}
		_, err := tmpl.Execute(webRef, nil)
		require.Error(t, err)
		assert.ErrorContains(t, err, `isSource: "servcie" is not a source name`)
		assert.ErrorContains(t, err, "Service default/web")
	}
	assert.Contains(t, fqdn.SourceNames(), "gateway-httproute")
	assert.Len(t, fqdn.SourceNames(), 25)
}

func TestExecuteTargets(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
		err  string
	}{
		{"empty", "", nil, ""},
		{"addresses and names, trimmed, sorted, unique", " 10.0.0.2 , 2001:db8::1,lb.example.com., 10.0.0.2,,",
			[]string{"10.0.0.2", "2001:db8::1", "lb.example.com"}, ""},
		{"from the object", "{{.Spec.ClusterIP}}", []string{"10.0.0.1"}, ""},
		{"neither address nor name", "a b", nil, `target "a b" is neither an IP address nor a DNS name`},
		{"execution error", "{{.Nope}}", nil, "can't evaluate field Nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fqdn.MustTemplate(tt.text).ExecuteTargets(webRef, newTemplateObject())
			if tt.err != "" {
				require.Error(t, err)
				assert.ErrorContains(t, err, "Service default/web: FQDN template")
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestExecutePairs(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []fqdn.HostTarget
		err  string
	}{
		{"empty", "", nil, ""},
		{"pairs, sorted, unique", "b.example.com:10.0.0.2, a.example.com : lb.example.com. ,b.example.com:10.0.0.2",
			[]fqdn.HostTarget{{"a.example.com", "lb.example.com"}, {"b.example.com", "10.0.0.2"}}, ""},
		{"IPv6 target splits at the first colon", "v6.example.com:2001:db8::1",
			[]fqdn.HostTarget{{"v6.example.com", "2001:db8::1"}}, ""},
		{"host with a trailing dot", "a.example.com.:10.0.0.1", []fqdn.HostTarget{{"a.example.com", "10.0.0.1"}}, ""},
		{"entries without colon or with an empty side are skipped", "nocolon.example.com,:10.0.0.1,x.example.com:,ok.example.com:10.0.0.3",
			[]fqdn.HostTarget{{"ok.example.com", "10.0.0.3"}}, ""},
		{"from the object", "{{.Name}}.example.com:{{.Spec.ClusterIP}}", []fqdn.HostTarget{{"web.example.com", "10.0.0.1"}}, ""},
		{"bad host", "a/b:10.0.0.1", nil, `contains '/'`},
		{"bad target", "a.example.com:x y", nil, `target "x y" is neither`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fqdn.MustTemplate(tt.text).ExecutePairs(webRef, newTemplateObject())
			if tt.err != "" {
				require.Error(t, err)
				assert.ErrorContains(t, err, "Service default/web")
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
