package source_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/source"
)

func TestEmpty(t *testing.T) {
	eps, err := source.Empty{}.Endpoints(context.Background())
	require.NoError(t, err)
	assert.NotNil(t, eps)
	assert.Empty(t, eps)
	source.Empty{}.AddEventHandler(context.Background(), func() { t.Error("handler called") })

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = source.Empty{}.Endpoints(ctx)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestStaticCopiesAndSorts(t *testing.T) {
	given := swA("b.example.com", "192.0.2.2").WithLabel("k", "v")
	s := source.NewStatic(given, nil, swA("a.example.com", "192.0.2.1"))
	given.Targets[0] = "changed at the caller"
	given.Labels.Set("k", "changed")

	want := []string{"a.example.com A 192.0.2.1", "b.example.com A 192.0.2.2"}
	first, err := s.Endpoints(context.Background())
	require.NoError(t, err)
	assert.Equal(t, want, swNames(first), "sorted, nil dropped, caller's changes not seen")
	v, _ := first[1].Labels.Get("k")
	assert.Equal(t, "v", v)

	first[1].Targets[0] = "changed by the consumer"
	first[1].Labels.Set("k", "changed")
	first[0] = nil
	second, err := s.Endpoints(context.Background())
	require.NoError(t, err)
	assert.Equal(t, want, swNames(second))
	v, _ = second[1].Labels.Get("k")
	assert.Equal(t, "v", v)

	var zero source.Static
	eps, err := zero.Endpoints(context.Background())
	require.NoError(t, err)
	assert.Empty(t, eps)
	assert.Equal(t, "static (2 endpoints)", s.String())
}

func TestStaticAdd(t *testing.T) {
	s := source.NewStatic(swA("b.example.com", "192.0.2.2"))
	calls := 0
	s.AddEventHandler(context.Background(), func() { calls++ })
	added := swA("a.example.com", "192.0.2.1")
	s.Add(added, nil)
	added.Targets[0] = "changed at the caller"
	got, err := s.Endpoints(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"a.example.com A 192.0.2.1", "b.example.com A 192.0.2.2"}, swNames(got))
	assert.Equal(t, 1, calls)
	s.Set()
	got, err = s.Endpoints(context.Background())
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.Equal(t, 2, calls)
}
