// Package contractkit holds what the three contract kits —
// provider/providertest, registry/registrytest and source/sourcetest —
// share, so that they have one shape: the [Violation] each reports, the
// way a check's findings become the error of CheckX and the failures of
// TestX, and the parser of the rule table that every kit's package
// documentation holds.
//
// Each kit re-exports [Violation] under its own name (type Violation =
// contractkit.Violation) and has the same two entry points:
//
//	func CheckX(ctx context.Context, subject S, opts Options) error
//	func TestX(t testing.TB, subject S, opts Options)
//
// CheckX runs every rule and returns all violations joined with
// errors.Join (nil when there is none); TestX runs the same checks and
// reports each violation with t.Error, as fstest.TestFS reports every
// problem of a file system in one call.
package contractkit

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

// Violation is one breach of a contract found by a kit's checker.
type Violation struct {
	// Rule is the rule broken: one of the kit's Rule... constants (the
	// name of a rule of its table), e.g. "SliceOwnership".
	Rule string
	// Op is the call that misbehaved, e.g. "Records",
	// "ApplyChanges(create)", "Endpoints", or the option or hook at fault
	// ("Options.Lacks", "Options.Change").
	Op string
	// Record names the record or object concerned
	// (name/type[/set identifier], or a resource key), or is empty.
	Record string
	// Msg says what was wrong.
	Msg string
	// Err is the error the subject returned, if any.
	Err error
}

// Error renders "Rule: Op record: Msg: Err", leaving out what is empty.
func (v *Violation) Error() string {
	var b strings.Builder
	b.WriteString(v.Rule)
	b.WriteString(": ")
	b.WriteString(v.Op)
	if v.Record != "" {
		b.WriteByte(' ')
		b.WriteString(v.Record)
	}
	if v.Msg != "" {
		b.WriteString(": ")
		b.WriteString(v.Msg)
	}
	if v.Err != nil {
		b.WriteString(": ")
		b.WriteString(v.Err.Error())
	}
	return b.String()
}

// Unwrap returns the subject's error.
func (v *Violation) Unwrap() error { return v.Err }

// Findings collects what a run of a kit's rules found: violations, which
// fail the check, and gaps (violations of a rule the subject declared it
// cannot keep), which TestX only logs.
type Findings struct {
	Violations []error
	Gaps       []error
}

// Err returns the violations joined with errors.Join, or nil.
func (f *Findings) Err() error { return errors.Join(f.Violations...) }

// Report reports every violation with t.Error and every gap with t.Log.
func (f *Findings) Report(t testing.TB) {
	t.Helper()
	for _, g := range f.Gaps {
		t.Log("declared gap:", g)
	}
	for _, v := range f.Violations {
		t.Error(v)
	}
}

// DocItems returns the names listed in a section of a package
// documentation: the section that starts with the heading "# "+heading
// and ends at the next heading, whose items read "//   - Name: ...". A
// kit's test compares the names of its "Rules" section with the rules its
// code defines.
func DocItems(doc, heading string) []string {
	var names []string
	in := false
	for _, line := range strings.Split(doc, "\n") {
		text, ok := strings.CutPrefix(line, "//")
		if !ok {
			continue
		}
		if h, isHeading := strings.CutPrefix(text, " # "); isHeading {
			in = strings.TrimSpace(h) == heading
			continue
		}
		item, isItem := strings.CutPrefix(text, "   - ")
		if !in || !isItem {
			continue
		}
		name, _, found := strings.Cut(item, ":")
		if found && name != "" && !strings.ContainsAny(name, " \t") {
			names = append(names, name)
		}
	}
	return names
}

// Names returns name(r) for every r of rules, in order.
func Names[R any](rules []R, name func(R) string) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = name(r)
	}
	return out
}

// CheckDocItems fails t unless the section heading of the package
// documentation in file (a doc.go) lists exactly want, in order (see
// [DocItems]). Each kit's tests call it to keep its rule table and its
// code in step.
func CheckDocItems(t testing.TB, file, heading string, want []string) {
	t.Helper()
	doc, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := DocItems(string(doc), heading); !slices.Equal(got, want) {
		t.Errorf("%s, section %q, lists %q; the code defines %q", file, heading, got, want)
	}
}
