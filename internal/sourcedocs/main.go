// Command sourcedocs writes docs/sources.md from the doc markers of the
// source types of zonesync.
//
// Every source type carries, at the end of its doc comment, one marker per
// line:
//
//	//zonesync:source:name=static
//	//zonesync:source:category=core
//	//zonesync:source:description=A fixed list of endpoints given at construction.
//	//zonesync:source:resources=none
//	//zonesync:source:filters=none
//	//zonesync:source:namespaced=false
//	//zonesync:source:fqdn-template=false
//	//zonesync:source:events=false
//
// A marker is written without a space after "//": that makes it a
// directive comment (like //go:generate), which go doc and pkg.go.dev leave
// out of the documentation they show and gofmt keeps at the end of the doc
// comment. A marker written as ordinary text ("// +zonesync:source:…", the
// form of earlier revisions) would be shown to readers, so it is reported as
// a mistake.
//
// All eight keys are required, each once; namespaced, fqdn-template and
// events are "true" or "false"; names are unique. sourcedocs reads every Go
// package under ⟨root⟩/source (test files and testdata excluded), reports
// every marker mistake with its file, line and type, and writes one
// Markdown document listing the sources by category, then name.
//
// Usage (from source/generate.go, through go generate ./source):
//
//	go run ./internal/sourcedocs -root . -out docs/sources.md
//
// With -check it writes nothing and fails when the file at -out differs
// from what it would write.
package main

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

func main() {
	root := flag.String("root", ".", "root of the zonesync module")
	out := flag.String("out", "docs/sources.md", "file to write")
	check := flag.Bool("check", false, "write nothing; fail if the file at -out is stale")
	flag.Parse()
	if err := run(*root, *out, *check); err != nil {
		fmt.Fprintln(os.Stderr, "sourcedocs:", err)
		os.Exit(1)
	}
}

func run(root, out string, check bool) error {
	doc, err := generate(root)
	if err != nil {
		return err
	}
	if check {
		have, err := os.ReadFile(out)
		if err != nil {
			return err
		}
		if !bytes.Equal(have, doc) {
			return fmt.Errorf("%s is stale: run go generate ./source", out)
		}
		return nil
	}
	return os.WriteFile(out, doc, 0o644)
}

// markerPrefix starts every marker line: a directive comment, hidden from
// go doc.
const markerPrefix = "//zonesync:source:"

// markerName is what a marker line holds after "//", blanks and an optional
// "+": a line with it that does not start with markerPrefix is a marker in a
// form go doc shows.
const markerName = "zonesync:source:"

// markerKeys are the required keys, in the order of the table columns.
var markerKeys = []string{
	"name", "category", "description", "resources", "filters",
	"namespaced", "fqdn-template", "events",
}

// optionalKeys may be given. config names the source's configuration
// struct in the same package: its fields whose doc names an external-dns
// flag ("(--publish-internal-services)") are listed under Options, those
// of embedded structs (also from another package under source/) included.
// unused lists fields of the config that the source ignores (shared
// Options fields it has no use for), left out of the list.
var optionalKeys = []string{"config", "unused"}

// boolKeys take "true" or "false".
var boolKeys = []string{"namespaced", "fqdn-template", "events"}

// sourceDoc is what the markers of one type say.
type sourceDoc struct {
	Package string // slash-separated path relative to the root, e.g. "source/kubernetes"
	Type    string
	Pos     string // file:line of the type, relative to the root
	Values  map[string]string
	Options []option // from the config struct, in field order
}

// option is a configuration field and the external-dns flags its doc
// names.
type option struct {
	Field string // "IgnoreHostnameAnnotation", or "Options.IgnoreHostnameAnnotation" when embedded
	Flags []string
}

// flagPattern finds external-dns flags in a field's doc.
var flagPattern = regexp.MustCompile(`--[a-z0-9][a-z0-9-]*[a-z0-9]`)

// GoType is the type as the table shows it: the package's last path
// element and the type name, as code refers to it.
func (d sourceDoc) GoType() string {
	return d.Package[strings.LastIndex(d.Package, "/")+1:] + "." + d.Type
}

// generate reads the markers under root/source and renders the document.
func generate(root string) ([]byte, error) {
	docs, err := collect(root)
	if err != nil {
		return nil, err
	}
	return render(docs), nil
}

// collect parses every package under root/source and returns the marked
// types sorted by category then name. It reports every mistake found,
// joined.
func collect(root string) ([]sourceDoc, error) {
	var docs []sourceDoc
	var errs []error
	structs := map[string]*ast.StructType{} // "package/path.Type"
	fset := token.NewFileSet()
	base := filepath.Join(root, "source")
	err := filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != base && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, filepath.ToSlash(rel), src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		collectStructs(structs, pkg, f)
		found, fileErrs := fileDocs(fset, pkg, f)
		docs = append(docs, found...)
		errs = append(errs, fileErrs...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(docs, func(a, b sourceDoc) int {
		return cmp.Or(
			cmp.Compare(a.Values["category"], b.Values["category"]),
			cmp.Compare(a.Values["name"], b.Values["name"]),
			cmp.Compare(a.Pos, b.Pos),
		)
	})
	// Names are unique across all packages; the first in table order
	// keeps its name, the others are reported.
	first := map[string]sourceDoc{}
	for _, d := range docs {
		n := d.Values["name"]
		if n == "" {
			continue
		}
		if prev, ok := first[n]; ok {
			errs = append(errs, fmt.Errorf("%s: type %s: source name %q is already used by type %s at %s",
				d.Pos, d.Type, n, prev.Type, prev.Pos))
			continue
		}
		first[n] = d
	}
	for i, d := range docs {
		name, ok := d.Values["config"]
		if !ok {
			continue
		}
		st := structs[d.Package+"."+name]
		if st == nil {
			errs = append(errs, fmt.Errorf("%s: type %s: config %q is not a struct type of package %s", d.Pos, d.Type, name, d.Package))
			continue
		}
		unused := strings.Split(d.Values["unused"], ",")
		docs[i].Options = slices.DeleteFunc(structOptions(structs, d.Package, st, "", 0), func(o option) bool {
			return slices.Contains(unused, o.Field[strings.LastIndex(o.Field, ".")+1:])
		})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return docs, nil
}

// collectStructs adds the struct types of f to structs.
func collectStructs(structs map[string]*ast.StructType, pkg string, f *ast.File) {
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			if st, ok := ts.Type.(*ast.StructType); ok {
				structs[pkg+"."+ts.Name.Name] = st
			}
		}
	}
}

// structOptions returns the fields of st (of package pkg) whose doc names
// a flag, with those of embedded structs found in structs; prefix is the
// path of an embedded struct's fields.
func structOptions(structs map[string]*ast.StructType, pkg string, st *ast.StructType, prefix string, depth int) []option {
	var out []option
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 { // embedded
			if depth > 4 {
				continue
			}
			epkg, name := pkg, ""
			switch t := f.Type.(type) {
			case *ast.Ident:
				name = t.Name
			case *ast.SelectorExpr:
				if x, ok := t.X.(*ast.Ident); ok {
					// Only packages under source/ are known: match by
					// the last path element.
					for key := range structs {
						p, n, _ := strings.Cut(key, ".")
						if n == t.Sel.Name && p[strings.LastIndex(p, "/")+1:] == x.Name {
							epkg, name = p, n
						}
					}
				}
			}
			if est := structs[epkg+"."+name]; est != nil {
				out = append(out, structOptions(structs, epkg, est, prefix+name+".", depth+1)...)
			}
			continue
		}
		if f.Doc == nil {
			continue
		}
		flags := flagPattern.FindAllString(f.Doc.Text(), -1)
		slices.Sort(flags)
		flags = slices.Compact(flags)
		if len(flags) == 0 {
			continue
		}
		for _, n := range f.Names {
			if n.IsExported() {
				out = append(out, option{Field: prefix + n.Name, Flags: flags})
			}
		}
	}
	return out
}

// fileDocs returns the marked types of one file and the mistakes in their
// markers. Markers on anything but a type declaration, and markers in a
// comment that is no doc comment (a blank line between them and the type),
// are mistakes too.
func fileDocs(fset *token.FileSet, pkg string, f *ast.File) ([]sourceDoc, []error) {
	var docs []sourceDoc
	var errs []error
	docGroups := map[*ast.CommentGroup]bool{} // doc comments of declarations, checked below
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			docGroups[decl.Doc] = true
			if c := firstMarker(decl.Doc); c != nil {
				errs = append(errs, fmt.Errorf("%s: func %s: source markers belong on a type", fset.Position(c.Pos()), decl.Name.Name))
			}
		case *ast.GenDecl:
			docGroups[decl.Doc] = true
			if decl.Tok != token.TYPE {
				if c := firstMarker(decl.Doc); c != nil {
					errs = append(errs, fmt.Errorf("%s: %s declaration: source markers belong on a type", fset.Position(c.Pos()), decl.Tok))
				}
				continue
			}
			for _, spec := range decl.Specs {
				ts := spec.(*ast.TypeSpec)
				docGroups[ts.Doc] = true
				doc := ts.Doc
				if doc == nil && !decl.Lparen.IsValid() {
					doc = decl.Doc
				}
				if firstMarker(doc) == nil {
					continue
				}
				d, typeErrs := typeDoc(fset, pkg, ts, doc)
				errs = append(errs, typeErrs...)
				docs = append(docs, d)
			}
		}
	}
	for _, cg := range f.Comments {
		if docGroups[cg] {
			continue
		}
		if c := firstMarker(cg); c != nil {
			errs = append(errs, fmt.Errorf("%s: source marker in no type's doc comment: put the markers at the end of the doc comment of the source type, with no blank line before the type", fset.Position(c.Pos())))
		}
	}
	return docs, errs
}

// markerKind says what a comment line is to sourcedocs.
type markerKind int

const (
	notMarker     markerKind = iota
	marker                   // "//zonesync:source:key=value", a directive go doc hides
	visibleMarker            // a marker written as text go doc shows: "// +zonesync:source:key=value"
)

// markerText returns what follows the marker name in a comment line
// ("key=value") and what kind of line it is.
func markerText(c *ast.Comment) (string, markerKind) {
	if text, ok := strings.CutPrefix(c.Text, markerPrefix); ok {
		return text, marker
	}
	text, ok := strings.CutPrefix(c.Text, "//")
	if !ok {
		return "", notMarker
	}
	if text, ok := strings.CutPrefix(strings.TrimLeft(strings.TrimSpace(text), "+"), markerName); ok {
		return text, visibleMarker
	}
	return "", notMarker
}

// firstMarker returns the first marker line of doc, in either form, or nil.
func firstMarker(doc *ast.CommentGroup) *ast.Comment {
	if doc == nil {
		return nil
	}
	for _, c := range doc.List {
		if _, kind := markerText(c); kind != notMarker {
			return c
		}
	}
	return nil
}

// typeDoc reads the markers of one type.
func typeDoc(fset *token.FileSet, pkg string, ts *ast.TypeSpec, doc *ast.CommentGroup) (sourceDoc, []error) {
	d := sourceDoc{Package: pkg, Type: ts.Name.Name, Pos: fset.Position(ts.Pos()).String(), Values: map[string]string{}}
	var errs []error
	fail := func(c *ast.Comment, format string, args ...any) {
		pos := d.Pos
		if c != nil {
			pos = fset.Position(c.Pos()).String()
		}
		errs = append(errs, fmt.Errorf("%s: type %s: %s", pos, d.Type, fmt.Sprintf(format, args...)))
	}
	seen := map[string]bool{}
	visible := false
	for _, c := range doc.List {
		text, kind := markerText(c)
		switch kind {
		case notMarker:
			continue
		case visibleMarker:
			visible = true
			fail(c, "marker %q is shown by go doc: write it as %q (no space after //)", c.Text, markerPrefix+strings.TrimSpace(text))
			continue
		}
		key, value, ok := strings.Cut(text, "=")
		value = strings.TrimSpace(value)
		switch {
		case !ok:
			fail(c, "marker %q has no \"=\"", markerPrefix+text)
			continue
		case !slices.Contains(markerKeys, key) && !slices.Contains(optionalKeys, key):
			fail(c, "unknown marker key %q (known: %s)", key, strings.Join(append(slices.Clone(markerKeys), optionalKeys...), ", "))
			continue
		case seen[key]:
			fail(c, "marker key %q given twice", key)
			continue
		}
		seen[key] = true
		switch {
		case value == "":
			fail(c, "marker key %q has an empty value", key)
		case slices.Contains(boolKeys, key) && value != "true" && value != "false":
			fail(c, "marker key %q is %q, want true or false", key, value)
		default:
			d.Values[key] = value
		}
	}
	for _, key := range markerKeys {
		if !seen[key] && !visible { // rewriting the visible markers is the fix
			fail(nil, "marker key %q missing", key)
		}
	}
	return d, errs
}

// render writes the document.
func render(docs []sourceDoc) []byte {
	var b bytes.Buffer
	b.WriteString(`# Sources

<!-- Code generated by internal/sourcedocs from the //zonesync:source markers; DO NOT EDIT. -->
<!-- Regenerate with: go generate ./source -->

Every source type of zonesync, as its doc markers describe it. The columns:

- **Name**: the name the source is known by (as in external-dns's ` + "`--source`" + ` where one exists).
- **Go type**: the type implementing ` + "`source.Source`" + `.
- **Resources**: the objects it reads.
- **Filters**: the filters it supports (annotation filter, label selector, ...).
- **Namespaced**: whether it can be limited to one namespace.
- **FQDN template**: whether it can derive host names from an FQDN template.
- **Events**: whether it notifies handlers registered with ` + "`AddEventHandler`" + ` when its endpoints may have changed.
`)
	if len(docs) == 0 {
		b.WriteString("\nNo source type carries markers yet.\n")
		return b.Bytes()
	}
	category := ""
	for _, d := range docs {
		if c := d.Values["category"]; c != category {
			category = c
			fmt.Fprintf(&b, "\n## %s\n\n", cell(c))
			b.WriteString("| Name | Go type | Description | Resources | Filters | Namespaced | FQDN template | Events |\n")
			b.WriteString("|---|---|---|---|---|---|---|---|\n")
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s | %s | %s | %s |\n",
			d.Values["name"], d.GoType(), cell(d.Values["description"]), cell(d.Values["resources"]),
			cell(d.Values["filters"]), yesNo(d.Values["namespaced"]), yesNo(d.Values["fqdn-template"]),
			yesNo(d.Values["events"]))
	}
	if !slices.ContainsFunc(docs, func(d sourceDoc) bool { return len(d.Options) > 0 }) {
		return b.Bytes()
	}
	b.WriteString("\n## Options\n\nThe fields of each source's configuration that stand for an external-dns flag, as their docs name it (`Options.` fields are shared by the sources of a package).\n")
	for _, d := range docs {
		if len(d.Options) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### `%s` (`%s`)\n\n| Field | external-dns flag |\n|---|---|\n", d.Values["name"], d.Package[strings.LastIndex(d.Package, "/")+1:]+"."+d.Values["config"])
		for _, o := range d.Options {
			fmt.Fprintf(&b, "| `%s` | `%s` |\n", o.Field, strings.Join(o.Flags, "`, `"))
		}
	}
	return b.Bytes()
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}

func yesNo(v string) string {
	if v == "true" {
		return "yes"
	}
	return "no"
}
