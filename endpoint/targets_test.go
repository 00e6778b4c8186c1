package endpoint_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
)

func TestTargetsSame(t *testing.T) {
	many := func(n int, format string) endpoint.Targets {
		out := make(endpoint.Targets, n)
		for i := range out {
			out[i] = fmt.Sprintf(format, i)
		}
		return out
	}
	reversed := func(ts endpoint.Targets) endpoint.Targets {
		out := slices.Clone(ts)
		slices.Reverse(out)
		return out
	}
	twelve := many(12, "host-%d.example.com")
	twelveUpper := many(12, "HOST-%d.Example.COM")
	twelveOther := slices.Clone(twelve)
	twelveOther[11] = "other.example.com"
	twelveDup := slices.Clone(twelve)
	twelveDup[11] = twelve[0]
	twelveDup2 := slices.Clone(twelve)
	twelveDup2[10] = twelve[0]
	twelveDup2[11] = twelve[1]

	tests := []struct {
		name string
		a, b endpoint.Targets
		want bool
	}{
		{"both nil", nil, nil, true},
		{"nil and empty", nil, endpoint.Targets{}, true},
		{"one equal", endpoint.Targets{"192.0.2.1"}, endpoint.Targets{"192.0.2.1"}, true},
		{"one differs", endpoint.Targets{"192.0.2.1"}, endpoint.Targets{"192.0.2.2"}, false},
		{"length differs", endpoint.Targets{"a"}, endpoint.Targets{"a", "a"}, false},
		{"order ignored", endpoint.Targets{"a", "b", "c"}, endpoint.Targets{"c", "a", "b"}, true},
		{"case ignored", endpoint.Targets{"LB.Example.com"}, endpoint.Targets{"lb.example.COM"}, true},
		{"case and order", endpoint.Targets{"A.example", "b.example"}, endpoint.Targets{"B.EXAMPLE", "a.example"}, true},
		{"Unicode case folding", endpoint.Targets{"Ünïcode.example"}, endpoint.Targets{"ünÏcode.example"}, true},
		{"Kelvin sign folds to k", endpoint.Targets{"\u212a.example", "x"}, endpoint.Targets{"x", "k.example"}, true},
		{"IPv6 canonical", endpoint.Targets{"2001:DB8::2"}, endpoint.Targets{"2001:db8:0::2"}, true},
		{"IPv6 expanded", endpoint.Targets{"2001:0db8:0000:0000:0000:0000:0000:0002", "2001:db8::1"}, endpoint.Targets{"2001:db8::1", "2001:db8::2"}, true},
		{"IPv6 differs", endpoint.Targets{"2001:db8::2"}, endpoint.Targets{"2001:db8::3"}, false},
		{"IPv4-mapped is not IPv4", endpoint.Targets{"::ffff:192.0.2.1"}, endpoint.Targets{"192.0.2.1"}, false},
		{"IPv4 leading zeros are text", endpoint.Targets{"192.0.2.01"}, endpoint.Targets{"192.0.2.1"}, false},
		{"duplicates count", endpoint.Targets{"a", "a", "b"}, endpoint.Targets{"a", "b", "b"}, false},
		{"duplicates equal", endpoint.Targets{"a", "b", "a"}, endpoint.Targets{"a", "a", "b"}, true},
		{"duplicates by case", endpoint.Targets{"a", "A", "b"}, endpoint.Targets{"b", "a", "a"}, true},
		{"eight reversed", many(8, "10.0.0.%d"), reversed(many(8, "10.0.0.%d")), true},
		{"twelve reversed", twelve, reversed(twelve), true},
		{"twelve case", twelve, reversed(twelveUpper), true},
		{"twelve one differs", twelve, reversed(twelveOther), false},
		{"twelve duplicates", twelve, twelveDup, false},
		{"twelve duplicates both", twelveDup2, reversed(twelveDup2), true},
		{"twelve IPv6", many(12, "2001:db8::%x"), reversed(many(12, "2001:DB8:0:0::%x")), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			aBefore, bBefore := slices.Clone(tt.a), slices.Clone(tt.b)
			assert.Equal(t, tt.want, tt.a.Same(tt.b))
			assert.Equal(t, tt.want, tt.b.Same(tt.a), "symmetric")
			assert.Equal(t, aBefore, tt.a, "receiver not modified")
			assert.Equal(t, bBefore, tt.b, "argument not modified")
			if tt.want {
				assert.False(t, tt.a.IsLess(tt.b), "same lists are not less")
				assert.False(t, tt.b.IsLess(tt.a), "same lists are not less")
			}
		})
	}
}

func TestTargetsSameShortListsDoNotAllocate(t *testing.T) {
	a := endpoint.Targets{"192.0.2.1", "lb.example.com", "2001:db8::1", "192.0.2.4"}
	b := endpoint.Targets{"2001:DB8:0::1", "192.0.2.4", "LB.example.com", "192.0.2.1"}
	allocs := testing.AllocsPerRun(100, func() {
		if !a.Same(b) {
			panic("not same")
		}
	})
	assert.Zero(t, allocs)
}

// TestTargetsSameShortAndLongAgree checks that the in-place comparison of
// short lists and the sorting comparison of long lists give the same answer,
// by padding the same pair of lists with a common tail.
func TestTargetsSameShortAndLongAgree(t *testing.T) {
	alphabet := []string{"a", "A", "b", "B", "\u212a", "k", "K", "ſ", "s", "S", "2001:db8::1", "2001:DB8:0::1", "fe80::1%eth0", "fe80::1%ETH0", "\xff", "\xfe", "é", "É"}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(n int) endpoint.Targets {
		out := make(endpoint.Targets, n)
		for i := range out {
			out[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return out
	}
	tail := make(endpoint.Targets, 10)
	for i := range tail {
		tail[i] = fmt.Sprintf("tail-%d", i)
	}
	for range 2000 {
		n := 1 + rng.IntN(4)
		a := pick(n)
		var b endpoint.Targets
		if rng.IntN(2) == 0 {
			b = pick(n)
		} else {
			// A shuffled copy with random case changes is often the same.
			b = slices.Clone(a)
			rng.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
		}
		short := a.Same(b)
		long := append(slices.Clone(a), tail...).Same(append(slices.Clone(tail), b...))
		require.Equal(t, short, long, "Same(%q, %q)", a, b)
		require.Equal(t, short, !a.IsLess(b) && !b.IsLess(a), "IsLess consistent with Same for %q, %q", a, b)
	}
}

func TestTargetsIsLess(t *testing.T) {
	tests := []struct {
		name string
		a, b endpoint.Targets
		want bool
	}{
		{"fewer first", endpoint.Targets{"z"}, endpoint.Targets{"a", "b"}, true},
		{"more last", endpoint.Targets{"a", "b"}, endpoint.Targets{"z"}, false},
		{"empty before one", nil, endpoint.Targets{"a"}, true},
		{"both empty", nil, endpoint.Targets{}, false},
		{"single ordered", endpoint.Targets{"192.0.2.1"}, endpoint.Targets{"192.0.2.2"}, true},
		{"single reversed", endpoint.Targets{"192.0.2.2"}, endpoint.Targets{"192.0.2.1"}, false},
		{"single equal", endpoint.Targets{"a"}, endpoint.Targets{"a"}, false},
		{"single case-insensitive", endpoint.Targets{"B"}, endpoint.Targets{"a"}, false},
		{"single case-insensitive less", endpoint.Targets{"a"}, endpoint.Targets{"B"}, true},
		{"underscore sorts before lower-case letters", endpoint.Targets{"b"}, endpoint.Targets{"_"}, false},
		{"upper case compares lower-cased", endpoint.Targets{"B"}, endpoint.Targets{"_"}, false},
		{"underscore first", endpoint.Targets{"_"}, endpoint.Targets{"B"}, true},
		{"sorted before comparing", endpoint.Targets{"c", "a"}, endpoint.Targets{"b", "d"}, true},
		{"sorted before comparing, reversed", endpoint.Targets{"b", "d"}, endpoint.Targets{"c", "a"}, false},
		{"second element decides", endpoint.Targets{"a", "b"}, endpoint.Targets{"a", "c"}, true},
		{"IPv6 canonical", endpoint.Targets{"2001:DB8::1"}, endpoint.Targets{"2001:db8::2"}, true},
		{"IPv6 canonical equal", endpoint.Targets{"2001:DB8:0::1"}, endpoint.Targets{"2001:db8::1"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.a.IsLess(tt.b))
			if tt.want {
				assert.False(t, tt.b.IsLess(tt.a), "asymmetric")
			}
		})
	}
}

func TestTargetsIsLessDeterministicOrder(t *testing.T) {
	lists := []endpoint.Targets{
		{"b.example.com"},
		{"A.example.com"},
		{"192.0.2.1", "192.0.2.2"},
		{"192.0.2.2", "192.0.2.0"},
		{"2001:db8::1"},
		{"x", "y", "z"},
		{"C.example.com", "a.example.com"},
	}
	want := slices.Clone(lists)
	sort.SliceStable(want, func(i, j int) bool { return want[i].IsLess(want[j]) })
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		got := slices.Clone(lists)
		rng.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		sort.SliceStable(got, func(i, j int) bool { return got[i].IsLess(got[j]) })
		require.Equal(t, want, got)
	}
	assert.Equal(t, []endpoint.Targets{
		{"2001:db8::1"},
		{"A.example.com"},
		{"b.example.com"},
		{"192.0.2.2", "192.0.2.0"},
		{"192.0.2.1", "192.0.2.2"},
		{"C.example.com", "a.example.com"},
		{"x", "y", "z"},
	}, want)
}

func TestCanonicalTarget(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"192.0.2.1", "192.0.2.1"},
		{"lb.example.com", "lb.example.com"},
		{"LB.Example.COM", "lb.example.com"},
		{"2001:DB8:0::1", "2001:db8::1"},
		{"2001:db8:0:0:0:0:0:1", "2001:db8::1"},
		{"::FFFF:192.0.2.1", "::ffff:192.0.2.1"},
		{"fe80::1%ETH0", "fe80::1%eth0"},
		{"not:an:address", "not:an:address"},
		{"\u212a.example", "k.example"},
		{"σ", "Σ"},
		{"ς", "Σ"},
		{"Σ", "Σ"},
		{"ÄÖÜ", "ÄÖÜ"},
		{"äöü", "ÄÖÜ"},
		{"10 MAIL.example.com", "10 mail.example.com"},
		{`"v=spf1 -ALL"`, `"v=spf1 -all"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := endpoint.CanonicalTarget(tt.in)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, got, endpoint.CanonicalTarget(got), "idempotent")
		})
	}
}

func TestCanonicalTargetLowerASCIIDoesNotAllocate(t *testing.T) {
	for _, in := range []string{"192.0.2.1", "lb.example.com", "10 mail.example.com", ""} {
		allocs := testing.AllocsPerRun(100, func() { _ = endpoint.CanonicalTarget(in) })
		assert.Zero(t, allocs, "CanonicalTarget(%q) allocates", in)
	}
}

// FuzzTargetsSame checks that Targets.Same agrees with CanonicalTarget, the
// single definition of target equality, and that IsLess is consistent with
// it. Each argument is a target list, targets separated by newlines.
func FuzzTargetsSame(f *testing.F) {
	f.Add("192.0.2.1\nlb.example.com", "LB.Example.COM\n192.0.2.1")
	f.Add("2001:DB8::1", "2001:db8:0::1")
	f.Add("fe80::1%ETH0\nx", "x\nfe80::1%eth0")
	f.Add("\u212a\nk", "K\nk")
	f.Add("σ\nς", "Σ\nσ")
	f.Add("a\na\nb", "a\nb\nb")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9", "9\n8\n7\n6\n5\n4\n3\n2\n1")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		x, y := endpoint.Targets(strings.Split(a, "\n")), endpoint.Targets(strings.Split(b, "\n"))
		canonical := func(ts endpoint.Targets) []string {
			out := make([]string, len(ts))
			for i, s := range ts {
				out[i] = endpoint.CanonicalTarget(s)
			}
			slices.Sort(out)
			return out
		}
		want := slices.Equal(canonical(x), canonical(y))
		if got := x.Same(y); got != want {
			t.Fatalf("Targets%q.Same(%q) = %v, sorted CanonicalTarget lists equal = %v", x, y, got, want)
		}
		if got := y.Same(x); got != want {
			t.Fatalf("Same is not symmetric for %q and %q", x, y)
		}
		if want && (x.IsLess(y) || y.IsLess(x)) {
			t.Fatalf("%q and %q are the same but one is less", x, y)
		}
		if !want && x.IsLess(y) == y.IsLess(x) && len(x) == len(y) {
			t.Fatalf("%q and %q differ but neither (or both) is less", x, y)
		}
	})
}
