package fqdn

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

// Limits that keep a template's execution bounded; see [Template].
const (
	// MaxOutput is the most bytes one execution may write.
	MaxOutput = 64 << 10
	// MaxFromJSONInput is the longest string fromJson decodes.
	MaxFromJSONInput = 64 << 10
	// maxLiteralRange bounds the product of the counts of nested range
	// actions that may come from the template text ({{range 10}}).
	maxLiteralRange = 10_000
	// maxRangeNesting bounds how deeply range actions nest, counting
	// through template calls.
	maxRangeNesting = 4
)

// outputLimitError is returned by the limited writer when a template
// writes more than MaxOutput bytes.
type outputLimitError struct{}

func (outputLimitError) Error() string {
	return fmt.Sprintf("template output exceeds %d bytes", MaxOutput)
}

// Template is a parsed FQDN template: Go text/template text whose
// output is a comma-separated list of host names, the --fqdn-template of
// external-dns. Several templates are written one after the other,
// separated by commas ("{{.Name}}.a.example.com,{{.Name}}.b.example.com").
//
// The data is whatever the source passes to [Template.Execute];
// Kubernetes sources pass the object, so templates read .Name,
// .Namespace, .Labels, .Annotations, .Spec and .Status. Besides the
// text/template built-ins, templates can call the helpers external-dns
// offers:
//
//	contains s substr          strings.Contains
//	trimPrefix s prefix        strings.TrimPrefix
//	trimSuffix s suffix        strings.TrimSuffix
//	trim s                     strings.TrimSpace
//	toLower s                  strings.ToLower
//	replace old new s          every old in s replaced by new
//	isIPv4 s, isIPv6 s         s parses as an IPv4 / IPv6 address (IPv4-mapped counts as IPv6)
//	hasKey m key               map m has key (also when its value is empty)
//	fromJson s                 s decoded from JSON (objects become map[string]any)
//	isSource name              the template runs for the source called name (see below)
//
// isSource takes one of external-dns's source names ([SourceNames]:
// "service", "ingress", "istio-gateway", "crd", ...; case does not
// matter) and reports whether the template runs for that source, so one
// template can serve several sources. A template answers true only once
// bound to a source with [Template.ForSource], which the sources of
// zonesync do when they are built; unbound, it answers false. A name that
// is not a source name fails the execution, so that a misspelt name is an
// error rather than a condition that never holds.
//
// fromJson fails the execution on malformed JSON or input longer than
// [MaxFromJSONInput] bytes.
//
// # Bounds
//
// Templates are configuration, but objects are outside input, and a
// template mistake must not stall a reconcile loop. So [NewTemplate]
// rejects templates that call themselves (directly or through other
// templates), that nest range actions more than four deep, or whose
// ranges over counts taken from the template text ({{range 100}},
// {{$n := 100}}{{range $n}}) multiply to more than 10000 iterations; an
// execution that writes more than [MaxOutput] bytes fails, and so
// do print, printf, html, js, urlquery and replace calls whose result
// would exceed it (printf also refuses widths over 1024). Ranges over the
// data are bounded by the data: a program that hands templates integers
// from outside input (Go 1.22 ranges over integers) must bound them
// itself.
//
// A Template is safe for concurrent use.
type Template struct {
	text string
	tmpl *template.Template // nil for an empty template
}

// templateFuncs are the helper functions; see Template.
func templateFuncs() template.FuncMap {
	return template.FuncMap{
		"contains":   strings.Contains,
		"trimPrefix": strings.TrimPrefix,
		"trimSuffix": strings.TrimSuffix,
		"trim":       strings.TrimSpace,
		"toLower":    strings.ToLower,
		"replace":    tmplReplace,
		"isIPv4":     func(s string) bool { a, err := netip.ParseAddr(s); return err == nil && a.Is4() },
		"isIPv6":     func(s string) bool { a, err := netip.ParseAddr(s); return err == nil && a.Is6() },
		"hasKey":     tmplHasKey,
		"fromJson":   tmplFromJSON,
		"isSource":   func(want string) (bool, error) { return tmplIsSource("", want) },
		// The built-ins that build strings, bounded like the output so
		// that nested calls cannot build huge strings in memory.
		"print":    func(args ...any) (string, error) { return tmplBounded("print", fmt.Sprint(args...)) },
		"println":  func(args ...any) (string, error) { return tmplBounded("println", fmt.Sprintln(args...)) },
		"printf":   tmplPrintf,
		"html":     func(args ...any) (string, error) { return tmplBounded("html", template.HTMLEscaper(args...)) },
		"js":       func(args ...any) (string, error) { return tmplBounded("js", template.JSEscaper(args...)) },
		"urlquery": func(args ...any) (string, error) { return tmplBounded("urlquery", template.URLQueryEscaper(args...)) },
	}
}

// tmplBounded returns s, or an error when it is longer than MaxOutput.
func tmplBounded(fn, s string) (string, error) {
	if len(s) > MaxOutput {
		return "", fmt.Errorf("%s: result exceeds %d bytes", fn, MaxOutput)
	}
	return s, nil
}

// tmplReplace replaces every old in s by new, refusing results longer than
// MaxOutput before building them.
func tmplReplace(old, new, s string) (string, error) {
	n := strings.Count(s, old)
	if len(s)+n*(len(new)-len(old)) > MaxOutput {
		return "", fmt.Errorf("replace: result exceeds %d bytes", MaxOutput)
	}
	return strings.ReplaceAll(s, old, new), nil
}

// maxFormatWidth bounds the width and precision printf accepts, so that a
// format such as "%999999999d" cannot allocate a huge string.
const maxFormatWidth = 1024

// tmplPrintf is fmt.Sprintf with widths and precisions limited to
// maxFormatWidth (and "*" refused) and its result bounded.
func tmplPrintf(format string, args ...any) (string, error) {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		num := 0
		for i++; i < len(format); i++ {
			ch := format[i]
			switch {
			case ch >= '0' && ch <= '9':
				num = num*10 + int(ch-'0')
				if num > maxFormatWidth {
					return "", fmt.Errorf("printf: width or precision in %q exceeds %d", format, maxFormatWidth)
				}
				continue
			case ch == '*':
				return "", fmt.Errorf("printf: %q takes its width from an argument", format)
			case ch == '.':
				num = 0
				continue
			case strings.IndexByte("+-# []", ch) >= 0:
				num = 0
				continue
			}
			break
		}
	}
	return tmplBounded("printf", fmt.Sprintf(format, args...))
}

// tmplHasKey reports whether m, a map with string keys, has key. Other values
// have no keys.
func tmplHasKey(m any, key string) bool {
	v := reflect.ValueOf(m)
	if v.Kind() != reflect.Map || v.Type().Key().Kind() != reflect.String {
		return false
	}
	return v.MapIndex(reflect.ValueOf(key).Convert(v.Type().Key())).IsValid()
}

// sourceNames are the names of external-dns's sources, in its order.
var sourceNames = [...]string{
	"node", "service", "ingress", "pod",
	"gateway-httproute", "gateway-grpcroute", "gateway-tlsroute", "gateway-tcproute", "gateway-udproute",
	"istio-gateway", "istio-virtualservice",
	"ambassador-host", "contour-httpproxy", "gloo-proxy", "traefik-proxy", "openshift-route",
	"fake", "empty", "connector", "crd", "skipper-routegroup", "kong-tcpingress",
	"f5-virtualserver", "f5-transportserver", "unstructured",
}

// SourceNames returns the source names isSource accepts: those of
// external-dns v0.23.
func SourceNames() []string { return slices.Clone(sourceNames[:]) }

// tmplIsSource reports whether active, the source a template is bound to,
// is want; want must be a source name.
func tmplIsSource(active, want string) (bool, error) {
	if !slices.ContainsFunc(sourceNames[:], func(n string) bool { return strings.EqualFold(n, want) }) {
		return false, fmt.Errorf("isSource: %q is not a source name (one of %s)", want, strings.Join(sourceNames[:], ", "))
	}
	return strings.EqualFold(active, want), nil
}

func tmplFromJSON(s string) (any, error) {
	if len(s) > MaxFromJSONInput {
		return nil, fmt.Errorf("fromJson: input of %d bytes exceeds %d", len(s), MaxFromJSONInput)
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("fromJson: %w", err)
	}
	return v, nil
}

// NewTemplate parses text. Text that is empty or only white space gives
// a template that produces no names. A parse error, or a template outside
// the bounds described at [Template], is an error quoting text.
func NewTemplate(text string) (*Template, error) {
	t := &Template{text: text}
	if strings.TrimSpace(text) == "" {
		return t, nil
	}
	tmpl, err := template.New("fqdn").Funcs(templateFuncs()).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("FQDN template %q: %w", shortenTemplate(text), err)
	}
	if err := checkBounds(tmpl); err != nil {
		return nil, fmt.Errorf("FQDN template %q: %w", shortenTemplate(text), err)
	}
	t.tmpl = tmpl
	return t, nil
}

// shortenTemplate cuts template text quoted in errors to its first 200 bytes.
func shortenTemplate(text string) string {
	const n = 200
	if len(text) <= n {
		return text
	}
	return strings.ToValidUTF8(text[:n], "") + "..."
}

// MustTemplate is like [NewTemplate] but panics on error. It is
// meant for templates fixed in the program's code.
func MustTemplate(text string) *Template {
	t, err := NewTemplate(text)
	if err != nil {
		panic(err)
	}
	return t
}

// String returns the template text.
func (t *Template) String() string {
	if t == nil {
		return ""
	}
	return t.text
}

// ForSource returns a copy of t whose isSource function answers for the
// source called name (see [Template]); t itself is unchanged. A nil or
// empty t is returned as it is.
func (t *Template) ForSource(name string) (*Template, error) {
	if t.IsEmpty() {
		return t, nil
	}
	clone, err := t.tmpl.Clone()
	if err != nil {
		return nil, fmt.Errorf("FQDN template %q: binding to source %q: %w", shortenTemplate(t.text), name, err)
	}
	clone.Funcs(template.FuncMap{"isSource": func(want string) (bool, error) { return tmplIsSource(name, want) }})
	return &Template{text: t.text, tmpl: clone}, nil
}

// IsEmpty reports whether the template produces no names (nil, or parsed
// from empty text).
func (t *Template) IsEmpty() bool { return t == nil || t.tmpl == nil }

// Execute runs the template with data as "." and returns the host names it
// wrote: the output split on ",", each entry trimmed of white space and of
// one trailing dot, empty entries dropped, sorted with duplicates removed.
// An entry that is not a DNS name ([endpoint.ValidateDNSName]: a character
// other than letters, digits, "-", "_" and a leading "*" label, such as
// white space, "\" or "/"; an empty label, a label over 63 octets) is an
// error. obj names the object data was built from; every error names it.
//
// A nil or empty template returns nil, nil.
func (t *Template) Execute(obj source.ObjectRef, data any) ([]string, error) {
	entries, err := t.run(obj, data)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, n := range entries {
		if err := endpoint.ValidateDNSName(n); err != nil {
			return nil, t.errorf(obj, err)
		}
		names = append(names, strings.TrimSuffix(n, "."))
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// ExecuteTargets runs the template as a target template (external-dns's
// --target-template): its output is a comma-separated list of targets,
// split, trimmed, stripped of one trailing dot, sorted and made unique as
// by Execute. A target is an IP address (IPv4 or IPv6) or a DNS name; any
// other entry is an error naming obj. A nil or empty template returns
// nil, nil.
func (t *Template) ExecuteTargets(obj source.ObjectRef, data any) ([]string, error) {
	entries, err := t.run(obj, data)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	targets := make([]string, 0, len(entries))
	for _, e := range entries {
		e = strings.TrimSuffix(e, ".")
		if err := checkTarget(e); err != nil {
			return nil, t.errorf(obj, err)
		}
		targets = append(targets, e)
	}
	slices.Sort(targets)
	return slices.Compact(targets), nil
}

// HostTarget is one "host:target" pair of an FQDN target template.
type HostTarget struct {
	Host, Target string
}

// ExecutePairs runs the template as an FQDN target template (external-dns's
// --fqdn-target-template): its output is a comma-separated list of
// "host:target" pairs, split on the first colon (so IPv6 targets work),
// each side trimmed of white space, and each entry stripped of one
// trailing dot. Entries without a colon, or with an empty host or target
// (a field not yet set, say), are skipped, as external-dns does; a host
// that is not a DNS name, or a target that is neither an IP address nor a
// DNS name, is an error naming obj. The pairs are sorted with duplicates
// removed. A nil or empty template returns nil, nil.
func (t *Template) ExecutePairs(obj source.ObjectRef, data any) ([]HostTarget, error) {
	entries, err := t.run(obj, data)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	var pairs []HostTarget
	for _, e := range entries {
		host, target, ok := strings.Cut(strings.TrimSuffix(e, "."), ":")
		host, target = strings.TrimSpace(host), strings.TrimSpace(target)
		if !ok || host == "" || target == "" {
			continue
		}
		if err := endpoint.ValidateDNSName(host); err != nil {
			return nil, t.errorf(obj, err)
		}
		host = strings.TrimSuffix(host, ".")
		if err := checkTarget(target); err != nil {
			return nil, t.errorf(obj, err)
		}
		pairs = append(pairs, HostTarget{Host: host, Target: target})
	}
	slices.SortFunc(pairs, func(a, b HostTarget) int {
		if c := strings.Compare(a.Host, b.Host); c != 0 {
			return c
		}
		return strings.Compare(a.Target, b.Target)
	})
	return slices.Compact(pairs), nil
}

// checkTarget accepts IP addresses and DNS names.
func checkTarget(s string) error {
	if _, err := netip.ParseAddr(s); err == nil {
		return nil
	}
	if err := endpoint.ValidateDNSName(s); err != nil {
		return fmt.Errorf("target %q is neither an IP address nor a DNS name: %w", s, err)
	}
	return nil
}

// run executes the template and returns its output split on commas, each
// entry trimmed of white space, empty entries dropped.
func (t *Template) run(obj source.ObjectRef, data any) ([]string, error) {
	if t.IsEmpty() {
		return nil, nil
	}
	var w limitedWriter
	if err := t.tmpl.Execute(&w, data); err != nil {
		if errors.Is(err, outputLimitError{}) {
			err = outputLimitError{} // the write error, without text/template's wrapping
		}
		return nil, t.errorf(obj, err)
	}
	var entries []string
	for _, e := range strings.Split(w.b.String(), ",") {
		if e = strings.TrimSpace(e); e != "" {
			entries = append(entries, e)
		}
	}
	return entries, nil
}

// errorf wraps err with the object and the template text.
func (t *Template) errorf(obj source.ObjectRef, err error) error {
	return fmt.Errorf("%s: FQDN template %q: %w", obj, shortenTemplate(t.text), err)
}

// CombineHostnames returns the host names of the object obj, given the
// names of its hostname annotation (annotated) and an FQDN template, as
// external-dns does with --fqdn-template and --combine-fqdn-annotation:
//
//   - no template (nil or empty): the annotated names;
//   - combine false: the annotated names if there are any, otherwise the
//     template's names;
//   - combine true: the annotated names followed by the template's names,
//     duplicates removed.
//
// The template runs only when its names are used; its error names obj.
func CombineHostnames(annotated []string, tmpl *Template, combine bool, obj source.ObjectRef, data any) ([]string, error) {
	if tmpl.IsEmpty() || (!combine && len(annotated) > 0) {
		return annotated, nil
	}
	templated, err := tmpl.Execute(obj, data)
	if err != nil {
		return nil, err
	}
	if !combine {
		return templated, nil
	}
	out := slices.Clone(annotated)
	for _, n := range templated {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// limitedWriter collects at most MaxOutput bytes.
type limitedWriter struct{ b strings.Builder }

func (w *limitedWriter) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > MaxOutput {
		return 0, outputLimitError{}
	}
	return w.b.Write(p)
}

// checkBounds rejects templates that could run unbounded: recursion through
// template calls, range actions nested too deep, and ranges whose count
// could come from the template text and multiply to too many iterations.
func checkBounds(tmpl *template.Template) error {
	trees := map[string]*parse.Tree{}
	for _, t := range tmpl.Templates() {
		if t.Tree != nil && t.Tree.Root != nil {
			trees[t.Name()] = t.Tree
		}
	}
	c := boundsChecker{trees: trees, active: map[string]bool{}, vars: map[string]int64{}}
	for _, name := range slices.Sorted(maps.Keys(trees)) {
		if err := c.walkTemplate(name, 0, 1); err != nil {
			return err
		}
	}
	return nil
}

type boundsChecker struct {
	trees  map[string]*parse.Tree
	active map[string]bool // templates on the current call path
	// vars holds, per variable name, the largest count any value assigned
	// to it could come from (see literalBound).
	vars map[string]int64
}

// notePipe records the bound of the variables a pipeline declares or
// assigns.
func (c *boundsChecker) notePipe(p *parse.PipeNode) {
	if p == nil || len(p.Decl) == 0 {
		return
	}
	b := c.literalBound(p)
	for _, v := range p.Decl {
		c.vars[v.Ident[0]] = max(c.vars[v.Ident[0]], b)
	}
}

// literalBound over-estimates the integer a node can evaluate to from what
// the template text itself holds: the largest integer constant, string
// constant length (len "...") or bounded variable it contains. Values from
// the data are bounded by the data and count as 0.
func (c *boundsChecker) literalBound(n parse.Node) int64 {
	var b int64
	switch n := n.(type) {
	case *parse.NumberNode:
		switch {
		case n.IsInt:
			b = n.Int64
		case n.IsUint:
			b = math.MaxInt64
		case n.IsFloat:
			b = int64(min(max(n.Float64, 0), math.MaxInt64))
		}
	case *parse.StringNode:
		b = int64(len(n.Text))
	case *parse.VariableNode:
		b = c.vars[n.Ident[0]]
	case *parse.PipeNode:
		if n != nil {
			for _, cmd := range n.Cmds {
				b = max(b, c.literalBound(cmd))
			}
		}
	case *parse.CommandNode:
		for _, arg := range n.Args {
			b = max(b, c.literalBound(arg))
		}
	case *parse.ChainNode:
		b = c.literalBound(n.Node)
	}
	return b
}

func (c *boundsChecker) walkTemplate(name string, depth, iterations int) error {
	tree, ok := c.trees[name]
	if !ok {
		return nil // executing it fails with "no such template"
	}
	if c.active[name] {
		return fmt.Errorf("template %q calls itself", name)
	}
	c.active[name] = true
	defer delete(c.active, name)
	return c.walk(tree.Root, depth, iterations)
}

func (c *boundsChecker) walk(n parse.Node, depth, iterations int) error {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, child := range n.Nodes {
			if err := c.walk(child, depth, iterations); err != nil {
				return err
			}
		}
	case *parse.ActionNode:
		c.notePipe(n.Pipe)
	case *parse.IfNode:
		return c.walkBranch(&n.BranchNode, depth, iterations)
	case *parse.WithNode:
		return c.walkBranch(&n.BranchNode, depth, iterations)
	case *parse.RangeNode:
		depth++
		if depth > maxRangeNesting {
			return fmt.Errorf("range actions nested more than %d deep", maxRangeNesting)
		}
		c.notePipe(n.Pipe) // element variables of a counted range are below the count
		inner := iterations
		if count := c.literalBound(n.Pipe); count > 1 {
			if count > maxLiteralRange || int64(iterations)*count > maxLiteralRange {
				return fmt.Errorf("ranges over counts from the template text multiply to more than %d iterations", maxLiteralRange)
			}
			inner *= int(count)
		}
		if err := c.walk(n.List, depth, inner); err != nil {
			return err
		}
		// The else branch runs once, when there is nothing to range over.
		return c.walk(n.ElseList, depth-1, iterations)
	case *parse.TemplateNode:
		c.notePipe(n.Pipe)
		return c.walkTemplate(n.Name, depth, iterations)
	}
	return nil
}

func (c *boundsChecker) walkBranch(b *parse.BranchNode, depth, iterations int) error {
	c.notePipe(b.Pipe)
	if err := c.walk(b.List, depth, iterations); err != nil {
		return err
	}
	return c.walk(b.ElseList, depth, iterations)
}
