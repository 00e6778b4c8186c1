package source_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

func TestDefaultTargets(t *testing.T) {
	in := func() []*endpoint.Endpoint {
		return []*endpoint.Endpoint{
			endpoint.NewEndpointWithTTL("empty.example.com", endpoint.RecordTypeA, 120).
				WithSetIdentifier("eu").WithLabel(endpoint.ResourceLabelKey, "service/ns/empty").WithProviderSpecific("alias", "false"),
			swA("full.example.com", "192.0.2.1"),
		}
	}
	defaults := []string{"198.51.100.1", "2001:db8::1", "lb.example.net", "198.51.100.1", "::ffff:198.51.100.2"}

	t.Run("only endpoints without targets", func(t *testing.T) {
		got, err := source.NewDefaultTargets(&swStub{eps: in()}, source.DefaultTargetsOptions{Targets: defaults}).Endpoints(context.Background())
		require.NoError(t, err)
		assert.Equal(t, []string{
			"empty.example.com A 198.51.100.1;198.51.100.2",
			"empty.example.com AAAA 2001:db8::1",
			"empty.example.com CNAME lb.example.net",
			"full.example.com A 192.0.2.1",
		}, swNames(got))
		for _, ep := range got[:3] {
			assert.Equal(t, "eu", ep.SetIdentifier)
			assert.Equal(t, endpoint.TTL(120), ep.RecordTTL)
			assert.Equal(t, "service/ns/empty", labelValue(ep.Labels, endpoint.ResourceLabelKey))
			assert.Equal(t, endpoint.ProviderSpecific{{Name: "alias", Value: "false"}}, ep.ProviderSpecific)
		}
		got[0].Labels.Set("x", "y")
		got[0].Targets[0] = "changed"
		_, leaked := got[1].Labels.Get("x")
		assert.False(t, leaked, "each replacement has its own labels")
		again, err := source.NewDefaultTargets(&swStub{eps: in()}, source.DefaultTargetsOptions{Targets: defaults}).Endpoints(context.Background())
		require.NoError(t, err)
		assert.Equal(t, "198.51.100.1", again[0].Targets[0])
	})
	t.Run("forced", func(t *testing.T) {
		got, err := source.NewDefaultTargets(&swStub{eps: in()}, source.DefaultTargetsOptions{Targets: []string{"198.51.100.1"}, ReplaceExisting: true}).Endpoints(context.Background())
		require.NoError(t, err)
		assert.Equal(t, []string{"empty.example.com A 198.51.100.1", "full.example.com A 198.51.100.1"}, swNames(got))
	})
	t.Run("no defaults: pass-through", func(t *testing.T) {
		got, err := source.NewDefaultTargets(&swStub{eps: in()}, source.DefaultTargetsOptions{Targets: nil, ReplaceExisting: true}).Endpoints(context.Background())
		require.NoError(t, err)
		assert.Equal(t, []string{"empty.example.com A ", "full.example.com A 192.0.2.1"}, swNames(got))
	})
}

// labelValue returns the value of key in l, "" when it is not set.
func labelValue(l endpoint.Labels, key string) string {
	v, _ := l.Get(key)
	return v
}
