// Package importgraph derives the import diagrams of docs/architecture.md
// and of the root package's doc comment from the code, so that they cannot
// drift from it. The docs tests (docs/derived_test.go) compare the committed
// text with what [Derive] gives; the command importgraph/cmd/importgraph
// rewrites it ([Write]), through
//
//	go generate ./docs
//
// The graph is that of the production code of the root module: test files,
// the examples, the nested modules and the test infrastructure under
// internal/ are left out, except the internal packages that a library
// package imports. Only imports of the module's own packages count.
package importgraph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Root is the name under which the module's root package is shown.
const Root = "zonesync"

// Core are the packages of the short diagram: the spine of the library.
var Core = []string{"endpoint", "plan", "policy", "provider", "registry", "source", Root}

// Graph is the import graph of the module's library packages, keyed by
// the path relative to the module root (the root package is [Root]).
type Graph struct {
	// Imports lists, per package, the module packages it imports directly
	// (production files only), sorted.
	Imports map[string][]string
}

type listed struct {
	ImportPath string
	Imports    []string
	Module     *struct{ Path string }
	Error      *struct{ Err string }
}

// Load runs `go list -json ./...` in the module root dir and returns the
// graph of its library packages.
func Load(dir string) (*Graph, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goBin, "list", "-e", "-json=ImportPath,Imports,Module,Error", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list ./... in %s: %v: %s", dir, err, stderr.String())
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decoding go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 || pkgs[0].Module == nil {
		return nil, fmt.Errorf("go list ./... in %s listed no package of a module", dir)
	}
	module := pkgs[0].Module.Path
	var errs []error
	all := map[string][]string{}
	for _, p := range pkgs {
		if p.Error != nil {
			errs = append(errs, fmt.Errorf("%s: %s", p.ImportPath, p.Error.Err))
		}
		rel, ok := relative(module, p.ImportPath)
		if !ok {
			continue
		}
		var imports []string
		for _, imp := range p.Imports {
			if r, ok := relative(module, imp); ok {
				imports = append(imports, r)
			}
		}
		slices.Sort(imports)
		all[rel] = imports
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("go list reports broken packages: %w", errors.Join(errs...))
	}
	return library(all), nil
}

// relative returns the path of a module package relative to the module
// root, [Root] for the root itself.
func relative(module, path string) (string, bool) {
	if path == module {
		return Root, true
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	return rel, ok
}

// library keeps the library packages of all and the packages they import.
func library(all map[string][]string) *Graph {
	g := &Graph{Imports: map[string][]string{}}
	var queue []string
	for p := range all {
		if !support(p) {
			queue = append(queue, p)
		}
	}
	for len(queue) > 0 {
		p := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if _, seen := g.Imports[p]; seen {
			continue
		}
		g.Imports[p] = all[p]
		queue = append(queue, all[p]...)
	}
	return g
}

// support reports whether a package is not part of the library: programs,
// documentation tests and test infrastructure.
func support(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	switch first {
	case "examples", "internal", "docs", "tools", "interop", "cmd":
		return true
	}
	return false
}

// Packages returns the packages of the graph, sorted.
func (g *Graph) Packages() []string {
	var out []string
	for p := range g.Imports {
		out = append(out, p)
	}
	slices.SortFunc(out, comparePackages)
	return out
}

// comparePackages sorts alphabetically, with the root package last.
func comparePackages(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == Root:
		return 1
	case b == Root:
		return -1
	}
	return strings.Compare(a, b)
}

// Layers assigns each package the length of its longest import chain:
// layer 0 imports no package of the module, and every package imports
// only packages of lower layers. It fails on a cycle.
func (g *Graph) Layers() ([][]string, error) {
	layer := map[string]int{}
	const visiting = -1
	var visit func(p string, path []string) (int, error)
	visit = func(p string, path []string) (int, error) {
		switch l, ok := layer[p]; {
		case ok && l == visiting:
			return 0, fmt.Errorf("import cycle: %s", strings.Join(append(path, p), " → "))
		case ok:
			return l, nil
		}
		layer[p] = visiting
		l := 0
		for _, imp := range g.Imports[p] {
			li, err := visit(imp, append(path, p))
			if err != nil {
				return 0, err
			}
			l = max(l, li+1)
		}
		layer[p] = l
		return l, nil
	}
	var out [][]string
	for _, p := range g.Packages() {
		l, err := visit(p, nil)
		if err != nil {
			return nil, err
		}
		for len(out) <= l {
			out = append(out, nil)
		}
		out[l] = append(out[l], p)
	}
	for _, ps := range out {
		slices.SortFunc(ps, comparePackages)
	}
	return out, nil
}

// reaches reports the packages p imports directly or indirectly.
func (g *Graph) reaches(p string) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(q string) {
		for _, imp := range g.Imports[q] {
			if !seen[imp] {
				seen[imp] = true
				walk(imp)
			}
		}
	}
	walk(p)
	return seen
}

// Reduced returns, among the packages of set that p reaches through its
// imports, those that no other of them reaches: the edges of p in the
// transitive reduction of the graph restricted to set. With set nil, the
// reduction is over every package, and only direct imports are returned.
func (g *Graph) Reduced(p string, set []string) []string {
	var cands []string
	if set == nil {
		cands = g.Imports[p]
	} else {
		r := g.reaches(p)
		for _, q := range set {
			if r[q] {
				cands = append(cands, q)
			}
		}
	}
	var out []string
	for _, c := range cands {
		implied := false
		for _, o := range cands {
			if o != c && g.reaches(o)[c] {
				implied = true
				break
			}
		}
		if !implied {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, comparePackages)
	return out
}

func display(p string) string {
	if p == Root {
		return "`" + Root + "` (root)"
	}
	return "`" + p + "`"
}

// core renders the spine: each package of [Core] and the packages of Core
// it imports, directly or through others, less those implied.
func (g *Graph) core(indent string) []string {
	width := 0
	for _, p := range Core {
		width = max(width, len(p))
	}
	var lines []string
	for _, p := range Core {
		if _, ok := g.Imports[p]; !ok {
			continue
		}
		line := indent + p
		if r := g.Reduced(p, Core); len(r) > 0 {
			line += strings.Repeat(" ", width-len(p)) + " → " + strings.Join(r, ", ")
		}
		lines = append(lines, line)
	}
	return lines
}

// RenderGoDoc renders the code block of the root package's doc comment,
// without the comment markers: the spine, then every layer, wrapped.
func (g *Graph) RenderGoDoc() (string, error) {
	layers, err := g.Layers()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, l := range g.core("") {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
	for i := len(layers) - 1; i >= 0; i-- {
		head := fmt.Sprintf("layer %d: ", i)
		writeWrapped(&b, head, layers[i], 72)
	}
	return b.String(), nil
}

func writeWrapped(b *strings.Builder, head string, items []string, width int) {
	line := head
	pad := strings.Repeat(" ", len(head))
	for i, it := range items {
		if i < len(items)-1 {
			it += ","
		}
		if len(line) > len(head) && len(line)+1+len(it) > width {
			b.WriteString(line + "\n")
			line = pad
		}
		if len(line) > len(head) {
			line += " "
		}
		line += it
	}
	b.WriteString(line + "\n")
}

// RenderMarkdown renders the section of docs/architecture.md: the spine as
// a code block, then a table of every package by layer with the imports
// that are not implied by its other imports.
func (g *Graph) RenderMarkdown() (string, error) {
	layers, err := g.Layers()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("The spine (`a → b`: a imports b, directly or through packages not shown):\n\n```\n")
	for _, l := range g.core("") {
		b.WriteString(l + "\n")
	}
	b.WriteString("```\n\n")
	b.WriteString("Every library package by layer. A package imports only packages of lower\n" +
		"layers; layer 0 imports none of this module. The last column lists its\n" +
		"imports of this module, less those it also reaches through another one\n" +
		"listed (the transitive reduction).\n\n")
	b.WriteString("| layer | package | imports |\n|---|---|---|\n")
	for i := len(layers) - 1; i >= 0; i-- {
		for _, p := range layers[i] {
			var imps []string
			for _, q := range g.Reduced(p, nil) {
				imps = append(imps, "`"+q+"`")
			}
			if len(imps) == 0 {
				imps = []string{"—"}
			}
			fmt.Fprintf(&b, "| %d | %s | %s |\n", i, display(p), strings.Join(imps, ", "))
		}
	}
	return b.String(), nil
}

// The markers of the generated section of a Markdown file.
const (
	Begin = "<!-- importgraph:begin (generated: go generate ./docs) -->"
	End   = "<!-- importgraph:end -->"
)

// SpliceMarkdown replaces the text between the lines [Begin] and [End] of
// doc with section.
func SpliceMarkdown(doc, section string) (string, error) {
	i := strings.Index(doc, Begin+"\n")
	j := strings.Index(doc, "\n"+End)
	if i < 0 || j < i {
		return "", fmt.Errorf("no section between the lines %q and %q", Begin, End)
	}
	return doc[:i+len(Begin)+1] + section + doc[j+1:], nil
}

// GoDocAnchor is the text of the doc comment line after which the code
// block of [Graph.RenderGoDoc] follows, after one empty comment line.
const GoDocAnchor = "go generate ./docs"

// SpliceGoDoc replaces the code block that follows the comment line holding
// [GoDocAnchor] (after one empty comment line: "//") in the Go source src
// with block, a tab-indented code block of the doc comment.
func SpliceGoDoc(src, block string) (string, error) {
	lines := strings.SplitAfter(src, "\n")
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "//") && strings.Contains(l, GoDocAnchor) {
			at = i
			break
		}
	}
	if at < 0 || at+1 >= len(lines) || strings.TrimSpace(lines[at+1]) != "//" {
		return "", fmt.Errorf("no doc comment line holding %q followed by an empty comment line", GoDocAnchor)
	}
	start := at + 2
	end := start
	for end < len(lines) && (strings.HasPrefix(lines[end], "//\t") ||
		(strings.TrimSpace(lines[end]) == "//" && end+1 < len(lines) && strings.HasPrefix(lines[end+1], "//\t"))) {
		end++
	}
	if end == start {
		return "", fmt.Errorf("no code block after the doc comment line holding %q", GoDocAnchor)
	}
	var b strings.Builder
	for _, l := range lines[:start] {
		b.WriteString(l)
	}
	for _, l := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		if l == "" {
			b.WriteString("//\n")
		} else {
			b.WriteString("//\t" + l + "\n")
		}
	}
	for _, l := range lines[end:] {
		b.WriteString(l)
	}
	return b.String(), nil
}

// File is a file holding a generated diagram: its path relative to the
// module root, its content, and the content it should have.
type File struct {
	Path     string
	Old, New string
}

// Stale reports whether the file differs from what the code gives.
func (f File) Stale() bool { return f.Old != f.New }

// Derive loads the graph of the module at root and computes the content
// of docs/architecture.md and doc.go with their diagrams regenerated.
func Derive(root string) ([]File, error) {
	g, err := Load(root)
	if err != nil {
		return nil, err
	}
	md, err := g.RenderMarkdown()
	if err != nil {
		return nil, err
	}
	godoc, err := g.RenderGoDoc()
	if err != nil {
		return nil, err
	}
	var files []File
	for _, f := range []struct {
		path   string
		splice func(string) (string, error)
	}{
		{"docs/architecture.md", func(s string) (string, error) { return SpliceMarkdown(s, md) }},
		{"doc.go", func(s string) (string, error) { return SpliceGoDoc(s, godoc) }},
	} {
		old, err := os.ReadFile(filepath.Join(root, f.path))
		if err != nil {
			return nil, err
		}
		updated, err := f.splice(string(old))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.path, err)
		}
		files = append(files, File{Path: f.path, Old: string(old), New: updated})
	}
	return files, nil
}

// Write rewrites the stale files of Derive(root) and returns their paths.
func Write(root string) ([]string, error) {
	files, err := Derive(root)
	if err != nil {
		return nil, err
	}
	var written []string
	for _, f := range files {
		if !f.Stale() {
			continue
		}
		if err := os.WriteFile(filepath.Join(root, f.Path), []byte(f.New), 0o644); err != nil {
			return written, err
		}
		written = append(written, f.Path)
	}
	return written, nil
}
