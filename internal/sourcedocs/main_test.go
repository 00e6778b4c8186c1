package main

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/good.md")

// TestSourcesDocUpToDate fails when docs/sources.md does not match the
// markers of the source types in this repository.
func TestSourcesDocUpToDate(t *testing.T) {
	root := filepath.Join("..", "..")
	want, err := generate(root)
	require.NoError(t, err, "the source markers of this repository are invalid")
	have, err := os.ReadFile(filepath.Join(root, "docs", "sources.md"))
	require.NoError(t, err)
	if string(have) != string(want) {
		t.Fatal("docs/sources.md is stale: run go generate ./source")
	}
}

func TestGenerateGolden(t *testing.T) {
	got, err := generate(filepath.Join("testdata", "good"))
	require.NoError(t, err)
	golden := filepath.Join("testdata", "good.md")
	if *update {
		require.NoError(t, os.WriteFile(golden, got, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

func TestCollect(t *testing.T) {
	docs, err := collect(filepath.Join("testdata", "good"))
	require.NoError(t, err)
	var got []string
	for _, d := range docs {
		got = append(got, d.Values["category"]+" "+d.Values["name"]+" "+d.GoType()+" "+d.Pos)
	}
	// Sorted by category then name; test files, testdata and unmarked
	// types are left out.
	assert.Equal(t, []string{
		"core empty source.Empty source/static.go:29:2",
		"core static source.Static source/static.go:13:6",
		"kubernetes ingress kubernetes.Ingress source/kubernetes/service.go:47:6",
		"kubernetes service kubernetes.Service source/kubernetes/service.go:15:6",
	}, got)
}

func TestCollectReportsEveryMistake(t *testing.T) {
	_, err := collect(filepath.Join("testdata", "bad"))
	require.Error(t, err)
	for _, want := range []string{
		`source/bad.go:11:6: type Missing: marker key "fqdn-template" missing`,
		`source/bad.go:11:6: type Missing: marker key "events" missing`,
		`source/bad.go:20:1: type Wrong: marker key "namespaced" is "maybe", want true or false`,
		`source/bad.go:23:1: type Wrong: marker key "events" given twice`,
		`source/bad.go:24:1: type Wrong: unknown marker key "colour"`,
		`source/bad.go:25:1: type Wrong: marker "//zonesync:source:noequals" has no "="`,
		`source/bad.go:26:1: type Wrong: marker key "resources" given twice`,
		`source/bad.go:31:1: func Function: source markers belong on a type`,
		`source/bad.go:34:1: var declaration: source markers belong on a type`,
		// The form go doc shows is refused line by line; the keys it
		// would have given are not reported missing on top.
		`source/bad.go:39:1: type Visible: marker "// +zonesync:source:name=visible" is shown by go doc: write it as "//zonesync:source:name=visible" (no space after //)`,
		`source/bad.go:41:1: type Visible: marker "//\t+zonesync:source:category=core" is shown by go doc: write it as "//zonesync:source:category=core" (no space after //)`,
		// Markers in a comment that documents no type (a blank line
		// before the type, or a field's doc) would be lost silently.
		`source/bad.go:46:1: source marker in no type's doc comment: put the markers at the end of the doc comment of the source type, with no blank line before the type`,
		`source/bad.go:54:2: source marker in no type's doc comment: put the markers at the end of the doc comment of the source type, with no blank line before the type`,
		`source/sub/dup.go:25:6: type Second: source name "dup" is already used by type First at source/sub/dup.go:13:6`,
	} {
		assert.ErrorContains(t, err, want)
	}
	assert.Len(t, strings.Split(err.Error(), "\n"), 14, "unexpected extra errors: %v", err)
}

func TestEmptyValue(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "source"), 0o755))
	src := "package source\n\n" +
		"//zonesync:source:name=x\n//zonesync:source:category=\n" +
		"//zonesync:source:description=d\n//zonesync:source:resources=r\n//zonesync:source:filters=f\n" +
		"//zonesync:source:namespaced=true\n//zonesync:source:fqdn-template=true\n//zonesync:source:events=true\n" +
		"type X struct{}\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, "source", "x.go"), []byte(src), 0o644))
	_, err := collect(root)
	assert.EqualError(t, err, `source/x.go:4:1: type X: marker key "category" has an empty value`)
}

func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sources.md")
	root := filepath.Join("testdata", "good")
	err := run(root, out, true)
	require.Error(t, err, "check of a missing file")

	require.NoError(t, run(root, out, false))
	require.NoError(t, run(root, out, true))

	require.NoError(t, os.WriteFile(out, []byte("old\n"), 0o644))
	assert.EqualError(t, run(root, out, true), out+" is stale: run go generate ./source")

	assert.Error(t, run(filepath.Join("testdata", "bad"), out, false))
	have, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "old\n", string(have), "a failed run must not write")
}

func TestUnknownConfig(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "source"), 0o755))
	src := "package source\n\n" +
		"//zonesync:source:name=x\n//zonesync:source:category=c\n" +
		"//zonesync:source:description=d\n//zonesync:source:resources=r\n//zonesync:source:filters=f\n" +
		"//zonesync:source:namespaced=true\n//zonesync:source:fqdn-template=true\n//zonesync:source:events=true\n" +
		"//zonesync:source:config=XConfig\n" +
		"type X struct{}\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, "source", "x.go"), []byte(src), 0o644))
	_, err := collect(root)
	assert.ErrorContains(t, err, `type X: config "XConfig" is not a struct type of package source`)
}

func TestRenderWithoutSources(t *testing.T) {
	assert.Contains(t, string(render(nil)), "No source type carries markers yet.")
}

// TestMarkersHiddenFromGoDoc checks the premise of the marker form: the
// text go doc and pkg.go.dev show for a marked type (go/ast's
// CommentGroup.Text, which go/doc uses) holds the prose alone.
func TestMarkersHiddenFromGoDoc(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join("testdata", "good", "source", "kubernetes", "service.go"), nil, parser.ParseComments)
	require.NoError(t, err)
	docs := map[string]string{}
	for _, decl := range f.Decls {
		if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
			docs[gd.Specs[0].(*ast.TypeSpec).Name.Name] = gd.Doc.Text()
		}
	}
	assert.Equal(t, "Service reads Services.\n", docs["Service"])
	assert.Equal(t, "Ingress reads Ingresses.\n", docs["Ingress"])
}
