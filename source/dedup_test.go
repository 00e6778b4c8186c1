package source_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/internal/workload"
	"github.com/zonesync/zonesync/source"
)

func TestDedup(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []*endpoint.Endpoint
		want []string
	}{
		{
			name: "exact duplicates dropped, first kept in place",
			in:   []*endpoint.Endpoint{swA("b.example.com", "192.0.2.2"), swA("a.example.com", "192.0.2.1"), swA("b.example.com", "192.0.2.2")},
			want: []string{"b.example.com A 192.0.2.2", "a.example.com A 192.0.2.1"},
		},
		{
			name: "case, trailing dot and target order do not make a difference",
			in: []*endpoint.Endpoint{
				swA("web.example.com", "192.0.2.1", "192.0.2.2"),
				swA("WEB.example.com.", "192.0.2.2", "192.0.2.1"),
			},
			want: []string{"web.example.com A 192.0.2.1;192.0.2.2"},
		},
		{
			name: "multi-target endpoint stays whole next to a single-target one",
			in:   []*endpoint.Endpoint{swA("web.example.com", "192.0.2.1", "192.0.2.2"), swA("web.example.com", "192.0.2.1")},
			want: []string{"web.example.com A 192.0.2.1;192.0.2.2", "web.example.com A 192.0.2.1"},
		},
		{
			name: "different TTL, set identifier, type, labels or properties are kept",
			in: []*endpoint.Endpoint{
				swA("web.example.com", "192.0.2.1"),
				endpoint.NewEndpointWithTTL("web.example.com", endpoint.RecordTypeA, 60, "192.0.2.1"),
				swA("web.example.com", "192.0.2.1").WithSetIdentifier("eu"),
				swA("web.example.com", "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, "service/ns/web"),
				swA("web.example.com", "192.0.2.1").WithProviderSpecific("alias", "true"),
				endpoint.NewEndpoint("web.example.com", endpoint.RecordTypeTXT, "192.0.2.1"),
			},
			want: []string{
				"web.example.com A 192.0.2.1", "web.example.com A 192.0.2.1", "web.example.com A 192.0.2.1",
				"web.example.com A 192.0.2.1", "web.example.com A 192.0.2.1", "web.example.com TXT 192.0.2.1",
			},
		},
		{
			name: "properties in another order are duplicates",
			in: []*endpoint.Endpoint{
				swA("web.example.com", "192.0.2.1").WithProviderSpecific("a", "1").WithProviderSpecific("b", "2"),
				swA("web.example.com", "192.0.2.1").WithProviderSpecific("b", "2").WithProviderSpecific("a", "1"),
			},
			want: []string{"web.example.com A 192.0.2.1"},
		},
		{
			name: "nil entries dropped",
			in:   []*endpoint.Endpoint{nil, swA("a.example.com", "192.0.2.1"), nil},
			want: []string{"a.example.com A 192.0.2.1"},
		},
		{name: "empty", in: nil, want: []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := source.NewDedup(&swStub{eps: tc.in}).Endpoints(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tc.want, swNames(got))
		})
	}
}

func TestDedupLabelValueAmbiguity(t *testing.T) {
	// Keys and values that would collide if simply concatenated stay apart.
	x := swA("web.example.com", "192.0.2.1").WithLabel("ab", "c")
	y := swA("web.example.com", "192.0.2.1").WithLabel("a", "bc")
	got, err := source.NewDedup(&swStub{eps: []*endpoint.Endpoint{x, y}}).Endpoints(context.Background())
	require.NoError(t, err)
	assert.Len(t, got, 2)
}

// BenchmarkDedup measures Dedup over the workload W(N) (no duplicates, one
// resource label each); BenchmarkWorkloadSource is the source alone, to
// subtract.
func BenchmarkDedup(b *testing.B) {
	benchWorkload(b, func(n int) source.Source { return source.NewDedup(workload.NewSource(n)) })
}

func BenchmarkWorkloadSource(b *testing.B) {
	benchWorkload(b, func(n int) source.Source { return workload.NewSource(n) })
}

// benchWorkload runs Endpoints of the source build returns for W(N) at
// N = 1k, 10k and 100k, failing unless it yields exactly N endpoints.
func benchWorkload(b *testing.B, build func(n int) source.Source) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			src := build(n)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				eps, err := src.Endpoints(ctx)
				if err != nil || len(eps) != n {
					b.Fatal(len(eps), err)
				}
			}
		})
	}
}
