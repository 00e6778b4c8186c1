package sourcetest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source/sourcetest"
)

func swNames(eps []*endpoint.Endpoint) []string {
	out := make([]string, len(eps))
	for i, ep := range eps {
		out[i] = ep.DNSName + " " + ep.RecordType + " " + ep.Targets.String()
	}
	return out
}

func TestFake(t *testing.T) {
	ctx := context.Background()
	t.Run("stable and reproducible", func(t *testing.T) {
		f := sourcetest.NewFake("example.com.", 5, sourcetest.FakeOptions{Seed: 42})
		one, err := f.Endpoints(ctx)
		require.NoError(t, err)
		two, err := f.Endpoints(ctx)
		require.NoError(t, err)
		require.Len(t, one, 5)
		assert.Equal(t, swNames(one), swNames(two))
		other, err := sourcetest.NewFake("example.com", 5, sourcetest.FakeOptions{Seed: 42}).Endpoints(ctx)
		require.NoError(t, err)
		assert.Equal(t, swNames(one), swNames(other), "same seed, same endpoints")
		diff, err := sourcetest.NewFake("example.com", 5, sourcetest.FakeOptions{Seed: 43}).Endpoints(ctx)
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
		f1 := sourcetest.NewFake("example.com", 3, sourcetest.FakeOptions{Seed: 7, Regenerate: true})
		f2 := sourcetest.NewFake("example.com", 3, sourcetest.FakeOptions{Seed: 7, Regenerate: true})
		a1, _ := f1.Endpoints(ctx)
		b1, _ := f1.Endpoints(ctx)
		a2, _ := f2.Endpoints(ctx)
		b2, _ := f2.Endpoints(ctx)
		assert.NotEqual(t, swNames(a1), swNames(b1))
		assert.Equal(t, swNames(a1), swNames(a2))
		assert.Equal(t, swNames(b1), swNames(b2))
	})
	t.Run("names are unique", func(t *testing.T) {
		eps, err := sourcetest.NewFake("example.com", 1000, sourcetest.FakeOptions{}).Endpoints(ctx)
		require.NoError(t, err)
		seen := map[string]bool{}
		for _, ep := range eps {
			assert.False(t, seen[ep.DNSName])
			seen[ep.DNSName] = true
		}
	})
	t.Run("concurrent use", func(t *testing.T) {
		f := sourcetest.NewFake("example.com", 10, sourcetest.FakeOptions{Regenerate: true})
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
