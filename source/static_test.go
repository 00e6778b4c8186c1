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

func TestStaticCopies(t *testing.T) {
	given := swA("b.example.com", "192.0.2.2").WithLabel("k", "v")
	s := source.NewStatic(given, nil, swA("a.example.com", "192.0.2.1"))
	given.Targets[0] = "changed at the caller"
	given.Labels.Set("k", "changed")

	first, err := s.Endpoints(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"b.example.com A 192.0.2.2", "a.example.com A 192.0.2.1"}, swNames(first), "construction order, nil dropped, caller's changes not seen")
	assert.Equal(t, "v", labelValue(first[0].Labels, "k"))

	first[0].Targets[0] = "changed by the consumer"
	first[0].Labels.Set("k", "changed")
	first[1] = nil
	second, err := s.Endpoints(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"b.example.com A 192.0.2.2", "a.example.com A 192.0.2.1"}, swNames(second))
	assert.Equal(t, "v", labelValue(second[0].Labels, "k"))

	var zero source.Static
	eps, err := zero.Endpoints(context.Background())
	require.NoError(t, err)
	assert.Empty(t, eps)
	assert.Equal(t, "static (2 endpoints)", s.String())
}

func TestFake(t *testing.T) {
	ctx := context.Background()
	t.Run("stable and reproducible", func(t *testing.T) {
		f := source.NewFake("example.com.", 5, source.FakeSeed(42))
		one, err := f.Endpoints(ctx)
		require.NoError(t, err)
		two, err := f.Endpoints(ctx)
		require.NoError(t, err)
		require.Len(t, one, 5)
		assert.Equal(t, swNames(one), swNames(two))
		other, err := source.NewFake("example.com", 5, source.FakeSeed(42)).Endpoints(ctx)
		require.NoError(t, err)
		assert.Equal(t, swNames(one), swNames(other), "same seed, same endpoints")
		diff, err := source.NewFake("example.com", 5, source.FakeSeed(43)).Endpoints(ctx)
		require.NoError(t, err)
		assert.NotEqual(t, swNames(one), swNames(diff))
		one[0].Targets[0] = "x"
		three, err := f.Endpoints(ctx)
		require.NoError(t, err)
		assert.Equal(t, swNames(two), swNames(three), "returned endpoints are copies")
		for _, ep := range one[1:] {
			require.NoError(t, ep.Validate())
			assert.Regexp(t, `^[a-z0-9]{8}-[0-9]+\.example\.com$`, ep.DNSName)
			assert.Regexp(t, `^10\.`, ep.Targets[0])
		}
	})
	t.Run("varying, reproducible sequence", func(t *testing.T) {
		f1 := source.NewFake("example.com", 3, source.FakeVarying(), source.FakeSeed(7))
		f2 := source.NewFake("example.com", 3, source.FakeVarying(), source.FakeSeed(7))
		a1, _ := f1.Endpoints(ctx)
		b1, _ := f1.Endpoints(ctx)
		a2, _ := f2.Endpoints(ctx)
		b2, _ := f2.Endpoints(ctx)
		assert.NotEqual(t, swNames(a1), swNames(b1))
		assert.Equal(t, swNames(a1), swNames(a2))
		assert.Equal(t, swNames(b1), swNames(b2))
	})
	t.Run("names are unique", func(t *testing.T) {
		eps, err := source.NewFake("example.com", 1000).Endpoints(ctx)
		require.NoError(t, err)
		seen := map[string]bool{}
		for _, ep := range eps {
			assert.False(t, seen[ep.DNSName])
			seen[ep.DNSName] = true
		}
	})
	t.Run("concurrent use", func(t *testing.T) {
		f := source.NewFake("example.com", 10, source.FakeVarying())
		done := make(chan struct{})
		for range 4 {
			go func() {
				defer func() { done <- struct{}{} }()
				_, _ = f.Endpoints(ctx)
			}()
		}
		for range 4 {
			<-done
		}
	})
}
