package source_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

type syncerSource struct {
	source.Static
	synced bool
}

func (s *syncerSource) HasSynced() bool { return s.synced }

func TestHasSynced(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  source.Source
		want bool
	}{
		{name: "not a Syncer", src: source.NewStatic(), want: true},
		{name: "synced", src: &syncerSource{synced: true}, want: true},
		{name: "not synced", src: &syncerSource{}, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, source.HasSynced(tc.src))
		})
	}
}

func TestPartialError(t *testing.T) {
	bad, worse := errors.New("bad ttl"), errors.New("bad hostname")

	var pe *source.PartialError
	require.NoError(t, pe.OrNil(), "a nil PartialError is no error")
	assert.Equal(t, "source: no object failed", pe.Error())
	assert.Nil(t, pe.Unwrap())

	pe = pe.Add("service/ns/b", bad).Add("service/ns/a", worse)
	err := fmt.Errorf("listing services: %w", pe.OrNil())
	require.Error(t, err)
	assert.Equal(t, "listing services: source: endpoints of 2 object(s) could not be built: service/ns/a: bad hostname; service/ns/b: bad ttl", err.Error())

	var got *source.PartialError
	require.ErrorAs(t, err, &got)
	assert.Same(t, pe, got)
	assert.ErrorIs(t, err, bad)
	assert.ErrorIs(t, err, worse)

	// A key added twice keeps both causes.
	pe.Add("service/ns/a", bad)
	assert.ErrorIs(t, pe.Failed["service/ns/a"], worse)
	assert.ErrorIs(t, pe.Failed["service/ns/a"], bad)

	// Merge gathers the failures of several sources.
	var all *source.PartialError
	all = all.Merge(nil)
	assert.Nil(t, all)
	all = all.Merge(&source.PartialError{Failed: map[string]error{"ingress/ns/c": bad}}).Merge(pe)
	assert.Len(t, all.Failed, 3)

	empty := &source.PartialError{}
	assert.NoError(t, empty.OrNil())

	// A key is often an object's own text (a resource label): control
	// characters in it are escaped, so that it cannot start a line.
	hostile := (*source.PartialError)(nil).Add("service/ns/x\nFORGED\x1b[31m", bad)
	assert.Equal(t, `source: endpoints of 1 object(s) could not be built: "service/ns/x\nFORGED\x1b[31m": bad ttl`, hostile.Error())
}

// TestPartialErrorBoundedCauses adds many causes under one key: the key
// keeps the first MaxCausesPerKey of them side by side, in order, and
// counts the rest; Merge flattens instead of nesting and never changes
// the merged error.
func TestPartialErrorBoundedCauses(t *testing.T) {
	const n = 16000
	first := errors.New("cause 0")
	var pe *source.PartialError
	pe = pe.Add("crd/ns/many", first)
	for i := 1; i < n; i++ {
		pe = pe.Add("crd/ns/many", fmt.Errorf("cause %d", i))
	}
	got := pe.Failed["crd/ns/many"]
	multi, ok := got.(interface{ Unwrap() []error })
	require.True(t, ok, "several causes unwrap to a list")
	causes := multi.Unwrap()
	require.Len(t, causes, source.MaxCausesPerKey)
	for i, c := range causes {
		assert.Equal(t, fmt.Sprintf("cause %d", i), c.Error(), "kept in the order added")
		_, nested := c.(interface{ Unwrap() []error })
		assert.False(t, nested, "causes are not nested")
	}
	assert.ErrorIs(t, pe, first)
	msg := pe.Error()
	assert.True(t, strings.HasSuffix(msg, fmt.Sprintf("; cause 9; and %d more", n-source.MaxCausesPerKey)), msg)
	assert.Less(t, len(msg), 300, "the message is bounded")

	// Merging flattens: the counts add up and the source is not changed.
	other := (*source.PartialError)(nil).Add("crd/ns/many", errors.New("other 0")).Add("crd/ns/many", errors.New("other 1"))
	merged := other.Merge(pe)
	assert.Same(t, other, merged)
	assert.True(t, strings.HasSuffix(merged.Error(), fmt.Sprintf("; cause 7; and %d more", n-source.MaxCausesPerKey+2)), merged.Error())
	assert.True(t, strings.HasSuffix(pe.Error(), fmt.Sprintf("; and %d more", n-source.MaxCausesPerKey)), "the merged error is not changed")
	merged.Add("crd/ns/many", errors.New("again"))
	assert.True(t, strings.HasSuffix(pe.Error(), fmt.Sprintf("; and %d more", n-source.MaxCausesPerKey)), "adding to the merge does not change its source")

	// A fresh PartialError merging pe copies its causes.
	fresh := (*source.PartialError)(nil).Merge(pe)
	fresh.Add("crd/ns/many", errors.New("again"))
	assert.True(t, strings.HasSuffix(pe.Error(), fmt.Sprintf("; and %d more", n-source.MaxCausesPerKey)))
	assert.True(t, strings.HasSuffix(fresh.Error(), fmt.Sprintf("; and %d more", n-source.MaxCausesPerKey+1)))
}

// TestPartialErrorManyKeys checks that Error names a bounded number of keys
// in key order and counts the others, while Failed keeps them all.
func TestPartialErrorManyKeys(t *testing.T) {
	var pe *source.PartialError
	for i := range 1000 {
		pe = pe.Add(fmt.Sprintf("service/ns/s%04d", i), errors.New("bad"))
	}
	assert.Len(t, pe.Failed, 1000)
	msg := pe.Error()
	assert.True(t, strings.HasPrefix(msg, "source: endpoints of 1000 object(s) could not be built: service/ns/s0000: bad; service/ns/s0001: bad"), msg)
	assert.True(t, strings.HasSuffix(msg, "service/ns/s0099: bad; and 900 more object(s)"), msg)
}

// ExamplePartialError shows a source that reports the objects it could not
// read without failing the others.
func ExamplePartialError() {
	type object struct{ key, host, ip string }
	objects := []object{
		{key: "service/default/web", host: "web.example.com", ip: "192.0.2.10"},
		{key: "service/default/api", host: "api example.com", ip: "192.0.2.11"}, // a bad annotation
	}
	var eps []*endpoint.Endpoint
	var failed *source.PartialError
	for _, o := range objects {
		if err := endpoint.ValidateDNSName(o.host); err != nil {
			failed = failed.Add(o.key, err)
			continue
		}
		eps = append(eps, endpoint.NewEndpoint(o.host, endpoint.RecordTypeA, o.ip).WithLabel(endpoint.ResourceLabelKey, o.key))
	}
	err := failed.OrNil() // what Endpoints returns with eps
	fmt.Println(len(eps), "endpoint(s) built")
	var pe *source.PartialError
	if errors.As(err, &pe) {
		for key := range pe.Failed {
			fmt.Println("failed:", key)
		}
	}
	// Output:
	// 1 endpoint(s) built
	// failed: service/default/api
}

// TestDocMarkers checks the doc markers of every type in the package that
// has any: each of the eight keys exactly once, one per line, with a value
// of the documented form. The generator of docs/sources.md relies on it.
func TestDocMarkers(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	keys := []string{"name", "category", "description", "resources", "filters", "namespaced", "fqdn-template", "events"}
	found := map[string]bool{}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE || gd.Doc == nil {
				continue
			}
			typeName := gd.Specs[0].(*ast.TypeSpec).Name.Name
			values := map[string][]string{}
			for _, c := range gd.Doc.List {
				rest, ok := strings.CutPrefix(c.Text, "//zonesync:source:")
				if !ok {
					continue
				}
				k, v, ok := strings.Cut(rest, "=")
				require.True(t, ok, "%s: marker without '=': %s", typeName, c.Text)
				values[k] = append(values[k], v)
			}
			if len(values) == 0 {
				continue
			}
			found[typeName] = true
			for _, k := range keys {
				require.Len(t, values[k], 1, "%s: marker %q", typeName, k)
				assert.NotEmpty(t, strings.TrimSpace(values[k][0]), "%s: marker %q", typeName, k)
			}
			assert.Len(t, values, len(keys), "%s: unknown marker keys in %v", typeName, values)
			for _, k := range []string{"namespaced", "fqdn-template", "events"} {
				assert.Contains(t, []string{"true", "false"}, values[k][0], "%s: %s", typeName, k)
			}
			assert.Regexp(t, `^[a-z0-9-]+$`, values["name"][0], typeName)
		}
	}
	for _, typeName := range []string{"Empty", "Static", "Multi", "Dedup", "TargetFilter", "NAT64", "PTR", "DefaultTargets", "PostProcessor"} {
		assert.True(t, found[typeName], "%s has no doc markers", typeName)
	}
}
