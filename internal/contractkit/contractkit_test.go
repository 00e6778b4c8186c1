package contractkit

import (
	"errors"
	"slices"
	"testing"
)

func TestViolationError(t *testing.T) {
	cause := errors.New("boom")
	for _, tt := range []struct {
		v    Violation
		want string
	}{
		{Violation{Rule: "Create", Op: "Records", Record: "a.example.org/A", Msg: "record missing", Err: cause}, "Create: Records a.example.org/A: record missing: boom"},
		{Violation{Rule: "SortedRecords", Op: "Records", Msg: "not sorted"}, "SortedRecords: Records: not sorted"},
	} {
		if got := tt.v.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	v := &Violation{Err: cause}
	if !errors.Is(v, cause) {
		t.Error("errors.Is does not find the cause")
	}
}

func TestDocItems(t *testing.T) {
	doc := `// Package x.
//
// # Rules
//
//   - One: the first.
//     continued: not an item.
//   - Two: the second.
//
// # Optional checks
//
//   - Three: optional.
package x
`
	if got := DocItems(doc, "Rules"); !slices.Equal(got, []string{"One", "Two"}) {
		t.Errorf("DocItems(Rules) = %q", got)
	}
	if got := DocItems(doc, "Optional checks"); !slices.Equal(got, []string{"Three"}) {
		t.Errorf("DocItems(Optional checks) = %q", got)
	}
}

func TestFindings(t *testing.T) {
	var f Findings
	if f.Err() != nil {
		t.Error("no violation, yet an error")
	}
	v := &Violation{Rule: "Context", Op: "Records", Msg: "ignored"}
	f.Violations = append(f.Violations, v)
	var got *Violation
	if !errors.As(f.Err(), &got) || got != v {
		t.Errorf("errors.As finds %v, want %v", got, v)
	}
}

func TestNames(t *testing.T) {
	type rule struct{ name string }
	got := Names([]rule{{"A"}, {"B"}}, func(r rule) string { return r.name })
	if !slices.Equal(got, []string{"A", "B"}) {
		t.Errorf("Names = %q", got)
	}
}
