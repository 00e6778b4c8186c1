package docs_test

// The parts of the docs that can be derived from the code are checked
// against it here:
//
//   - the import diagrams of docs/architecture.md and of the root package's
//     doc comment (doc.go) are generated from `go list` by
//     internal/importgraph; -update rewrites them;
//   - every name in the "its one home" column of the rule table of
//     docs/architecture.md resolves to a package, or a declaration of one;
//   - docs/benchmarks.md lists every benchmark of the repository in its
//     index, and names no benchmark that does not exist.
//
// Regenerate what can be regenerated (the import diagrams) with
//
//	go generate ./docs
//
// which runs internal/importgraph/cmd/importgraph (standard library only,
// so it works while other packages do not build); `go test ./docs -run
// TestDerivedImportDiagram -update` does the same.

import (
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
	"testing"

	"github.com/zonesync/zonesync/internal/importgraph"
)

var update = flag.Bool("update", false, "rewrite the derived parts of the docs (the import diagrams)")

const regenerate = "go generate ./docs (or: go test ./docs -run TestDerivedImportDiagram -update)"

// TestDerivedImportDiagram fails when the import diagrams committed in
// docs/architecture.md and doc.go differ from the code's import graph.
func TestDerivedImportDiagram(t *testing.T) {
	files, err := importgraph.Derive("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !f.Stale() {
			continue
		}
		if *update {
			if err := os.WriteFile(filepath.Join("..", f.Path), []byte(f.New), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("rewrote the import diagram of %s", f.Path)
			continue
		}
		t.Errorf("the import diagram of %s differs from the code's imports; regenerate it with\n\t%s\nthen read the change: a package moved between layers, or gained or lost an import.\n%s",
			f.Path, regenerate, lineDiff(f.Old, f.New))
	}
}

// TestDerivedPackageTable checks that the table "Packages" of
// docs/architecture.md has a row for every library package of the import
// graph (a row may name several, or a tree as `internal/...`).
func TestDerivedPackageTable(t *testing.T) {
	g, err := importgraph.Load("..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := tableRows(string(doc), "## Packages")
	named := map[string]bool{}
	var trees []string
	span := regexp.MustCompile("`([^`]+)`")
	for _, r := range rows {
		for _, m := range span.FindAllStringSubmatch(r[0], -1) {
			if tree, ok := strings.CutSuffix(m[1], "/..."); ok {
				trees = append(trees, tree+"/")
			}
			named[m[1]] = true
		}
	}
	for _, p := range g.Packages() {
		if named[p] || slices.ContainsFunc(trees, func(tree string) bool { return strings.HasPrefix(p, tree) }) {
			continue
		}
		t.Errorf("docs/architecture.md, table \"Packages\": no row names package %s; add it (first column, in backquotes) with what it holds", p)
	}
}

// lineDiff shows the lines of want missing from got and the reverse, in
// order: enough to see what changed in a generated section.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for _, l := range g {
		if !slices.Contains(w, l) {
			fmt.Fprintf(&b, "-\t%s\n", l)
		}
	}
	for _, l := range w {
		if !slices.Contains(g, l) {
			fmt.Fprintf(&b, "+\t%s\n", l)
		}
	}
	return b.String()
}

// TestDerivedRuleTable resolves every name of the "its one home" column of
// the table "Where each rule lives" in docs/architecture.md: `pkg`,
// `path/pkg`, `pkg.Name`, `pkg.Type.Member` (a method, field or interface
// method), and unqualified `Name` or `Type.Member` in the package named last
// before it in the same cell. `pkg.Func(...).Method()` is checked up to
// pkg.Func, and `Name...` as a prefix of some declaration.
func TestDerivedRuleTable(t *testing.T) {
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := tableRows(string(doc), "## Where each rule lives")
	if len(rows) < 10 {
		t.Fatalf("docs/architecture.md: found %d rows under \"## Where each rule lives\"; the test expects the table there", len(rows))
	}
	pkgs := modulePackages(t)
	span := regexp.MustCompile("`([^`]+)`")
	checked := 0
	for _, row := range rows {
		if len(row) < 2 {
			t.Errorf("docs/architecture.md rule table: row %q has no second column", row)
			continue
		}
		context := ""
		for _, m := range span.FindAllStringSubmatch(row[1], -1) {
			name := m[1]
			dir, rest, err := pkgs.resolve(name, context)
			if err != nil {
				t.Errorf("docs/architecture.md, table \"Where each rule lives\", row %q: `%s`: %v.\nThe code moved or was renamed: point the row at the rule's new home (or qualify the name as pkg.Name).", row[0], name, err)
				continue
			}
			context = dir
			checked++
			if rest == "" {
				continue
			}
			if err := pkgs.declared(dir, rest); err != nil {
				t.Errorf("docs/architecture.md, table \"Where each rule lives\", row %q: `%s`: %v.\nThe code moved or was renamed: point the row at the rule's new home.", row[0], name, err)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked only %d names of the rule table; did its format change?", checked)
	}
}

// tableRows returns the cells of the rows of the first Markdown table under
// heading, header and separator excluded.
func tableRows(doc, heading string) [][]string {
	_, after, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		return nil
	}
	var rows [][]string
	started := false
	for _, l := range strings.Split(after, "\n") {
		if !strings.HasPrefix(l, "|") {
			if started || strings.HasPrefix(l, "#") {
				break
			}
			continue
		}
		started = true
		cells := splitRow(l)
		if len(cells) > 0 && strings.Trim(cells[0], "-: ") == "" {
			continue // the separator
		}
		rows = append(rows, cells)
	}
	if len(rows) > 0 {
		rows = rows[1:] // the header
	}
	return rows
}

// splitRow splits a Markdown table row at the bars outside code spans.
func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(strings.TrimSuffix(l, "|"), "|")
	var cells []string
	var cur strings.Builder
	code := false
	for i := 0; i < len(l); i++ {
		switch c := l[i]; {
		case c == '`':
			code = !code
			cur.WriteByte(c)
		case c == '\\' && i+1 < len(l) && l[i+1] == '|':
			cur.WriteByte('|')
			i++
		case c == '|' && !code:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// packages maps the directories of the repository's Go packages (relative
// to the repository root, "." for the root) to their declarations, parsed
// on demand.
type packages struct {
	root   string
	dirs   map[string]bool
	byName map[string][]string // last path element (root: "zonesync") → dirs
	decls  map[string]map[string]bool
}

func modulePackages(t *testing.T) *packages {
	t.Helper()
	p := &packages{root: "..", dirs: map[string]bool{}, byName: map[string][]string{}, decls: map[string]map[string]bool{}}
	err := filepath.WalkDir(p.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "vendor", "bin", "node_modules":
				return filepath.SkipDir
			}
			if strings.HasPrefix(d.Name(), ".") && path != p.root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(p.root, filepath.Dir(path))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !p.dirs[rel] {
			p.dirs[rel] = true
			name := filepath.Base(rel)
			if rel == "." {
				name = "zonesync"
			}
			p.byName[name] = append(p.byName[name], rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// resolve splits a name of the rule table into the directory of its package
// and the rest (the declaration, possibly Type.Member).
func (p *packages) resolve(name, context string) (dir, rest string, err error) {
	if i := strings.Index(name, "("); i >= 0 {
		name = name[:i]
	}
	if i := strings.LastIndex(name, "/"); i >= 0 {
		pkg, decl, _ := strings.Cut(name[i+1:], ".")
		dir = name[:i+1] + pkg
		if !p.dirs[dir] {
			return "", "", fmt.Errorf("no package in %s/", dir)
		}
		return dir, decl, nil
	}
	first, decl, _ := strings.Cut(name, ".")
	if dirs := p.byName[first]; len(dirs) > 0 {
		lib := slices.DeleteFunc(slices.Clone(dirs), func(d string) bool {
			return strings.HasPrefix(d, "examples/") || strings.HasPrefix(d, "internal/") || strings.HasPrefix(d, "tools/") || strings.HasPrefix(d, "interop")
		})
		if len(lib) == 1 {
			return lib[0], decl, nil
		}
		if len(dirs) == 1 {
			return dirs[0], decl, nil
		}
		return "", "", fmt.Errorf("package name %q is ambiguous (%v): write its path", first, dirs)
	}
	if context == "" {
		return "", "", fmt.Errorf("no package of that name, and no package named before it in the cell")
	}
	return context, name, nil
}

// declared checks that decl (Name, Type.Member, or a prefix ending in "...")
// is declared in the non-test files of dir.
func (p *packages) declared(dir, decl string) error {
	names, err := p.declsOf(dir)
	if err != nil {
		return err
	}
	if prefix, ok := strings.CutSuffix(decl, "..."); ok {
		for n := range names {
			if strings.HasPrefix(n, prefix) {
				return nil
			}
		}
		return fmt.Errorf("nothing in %s is named %s…", dir, prefix)
	}
	if !names[decl] {
		if dir == "." {
			dir = "the root package"
		}
		return fmt.Errorf("%s declares no %s", dir, decl)
	}
	return nil
}

// declsOf lists the names a package declares: top-level names, and
// Type.Member for methods, struct fields (embedded ones by their type's
// name) and interface methods.
func (p *packages) declsOf(dir string) (map[string]bool, error) {
	if d, ok := p.decls[dir]; ok {
		return d, nil
	}
	names := map[string]bool{}
	entries, err := os.ReadDir(filepath.Join(p.root, dir))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(p.root, dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil || len(d.Recv.List) == 0 {
					names[d.Name.Name] = true
					continue
				}
				if recv := typeName(d.Recv.List[0].Type); recv != "" {
					names[recv+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = true
						}
					case *ast.TypeSpec:
						names[s.Name.Name] = true
						var fields *ast.FieldList
						switch t := s.Type.(type) {
						case *ast.StructType:
							fields = t.Fields
						case *ast.InterfaceType:
							fields = t.Methods
						}
						if fields == nil {
							continue
						}
						for _, fl := range fields.List {
							if len(fl.Names) == 0 {
								if n := typeName(fl.Type); n != "" {
									names[s.Name.Name+"."+n] = true
								}
							}
							for _, n := range fl.Names {
								names[s.Name.Name+"."+n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	p.decls[dir] = names
	return names, nil
}

// typeName returns the name of a (receiver or embedded) type expression:
// T, *T, T[P], pkg.T.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.IndexExpr:
		return typeName(e.X)
	case *ast.IndexListExpr:
		return typeName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

// benchmark is one func Benchmark… of a _test.go file.
type benchmark struct{ dir, name string }

func (b benchmark) String() string { return b.dir + " " + b.name }

// TestDerivedBenchmarkIndex checks that the index of docs/benchmarks.md
// lists exactly the benchmarks of the repository (every module in it), one
// row per package and function, and that every Benchmark… name the page
// mentions exists.
func TestDerivedBenchmarkIndex(t *testing.T) {
	doc, err := os.ReadFile("benchmarks.md")
	if err != nil {
		t.Fatal(err)
	}
	inCode := map[benchmark]bool{}
	names := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func (Benchmark\w*)\(`)
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == "vendor" || n == "bin" || (strings.HasPrefix(n, ".") && path != "..") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel("..", filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
			inCode[benchmark{filepath.ToSlash(rel), m[1]}] = true
			names[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(inCode) < 20 {
		t.Fatalf("found only %d benchmarks in the repository", len(inCode))
	}

	rows := tableRows(string(doc), "## Index")
	if len(rows) == 0 {
		t.Fatal("docs/benchmarks.md has no table under \"## Index\"")
	}
	inDoc := map[benchmark]bool{}
	for _, r := range rows {
		if len(r) < 2 {
			t.Errorf("docs/benchmarks.md index: row %q has fewer than two cells", r)
			continue
		}
		b := benchmark{strings.Trim(r[1], "`"), strings.Trim(r[0], "`")}
		if inDoc[b] {
			t.Errorf("docs/benchmarks.md index lists %s twice", b)
		}
		inDoc[b] = true
	}
	for _, b := range sortedKeys(inCode) {
		if !inDoc[b] {
			t.Errorf("benchmark %s (package ./%s) is not in the index of docs/benchmarks.md: add a row, and its figures with the command, machine and date", b.name, b.dir)
		}
	}
	for _, b := range sortedKeys(inDoc) {
		if !inCode[b] {
			t.Errorf("docs/benchmarks.md index lists %s in ./%s, which has no such benchmark (renamed, moved or removed?)", b.name, b.dir)
		}
	}
	mentioned := regexp.MustCompile(`\bBenchmark[A-Z]\w*`)
	for _, n := range mentioned.FindAllString(string(doc), -1) {
		if !names[n] {
			t.Errorf("docs/benchmarks.md mentions %s, which no _test.go file of the repository declares", n)
			names[n] = true // once
		}
	}
}

func sortedKeys(m map[benchmark]bool) []benchmark {
	var out []benchmark
	for b := range m {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b benchmark) int { return strings.Compare(a.String(), b.String()) })
	return out
}
