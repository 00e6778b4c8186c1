package gatewayapi_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/source/gatewayapi"
	"github.com/zonesync/zonesync/source/sourcetest"
)

// TestHTTPRouteSourceContract runs the source contract checker on an
// HTTPRoute source over fake clients: a change creates a route, a failure
// creates one whose ttl annotation does not parse.
func TestHTTPRouteSourceContract(t *testing.T) {
	http := gatewayapi.HTTPRouteKind()
	dyn := dynClient(t,
		gw("default", "gw", nil, []string{"192.0.2.1"}, http80),
		rt(http, "default", "web", nil, []string{"web.example.com"}, parent{name: "gw", accepted: yes()}),
		rt(http, "default", "api", nil, []string{"api.example.com"}, parent{name: "gw", accepted: yes()}),
	)
	src, err := gatewayapi.NewHTTPRouteSource(t.Context(), newKube(), dyn, gatewayapi.Config{})
	require.NoError(t, err)
	routes := dyn.Resource(http.GVR).Namespace("default")
	var n atomic.Int32
	sourcetest.TestSource(t, src, sourcetest.Options{
		Timeout: 5 * time.Second,
		// The source also promises what the optional checks check: a
		// stable order and valid endpoints.
		Deterministic:  true,
		ValidEndpoints: true,
		Change: func(ctx context.Context) error {
			name := fmt.Sprintf("new-%d", n.Add(1))
			_, err := routes.Create(ctx, rt(http, "default", name, nil, []string{name + ".example.com"}, parent{name: "gw", accepted: yes()}), createOpts)
			return err
		},
		Fail: func(ctx context.Context) error {
			_, err := routes.Create(ctx, rt(http, "default", "bad", map[string]string{ttlAnn: "soon"}, []string{"bad.example.com"}, parent{name: "gw", accepted: yes()}), createOpts)
			return err
		},
	})
}
