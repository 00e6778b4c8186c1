package main

import (
	"context"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const want = `== cycle 1: first sync
ACTION  NAME             TYPE   SET  TTL  TARGETS                WHY
create  api.example.com  CNAME  -    300  www.example.com        -
create  old.example.com  A      -    -    192.0.2.99             -
create  www.example.com  A      -    -    192.0.2.10,192.0.2.11  -

== cycle 2: converged
no changes

== cycle 3: after the source changed
ACTION  NAME             TYPE  SET  TTL  TARGETS                              WHY
update  www.example.com  A     -    -    192.0.2.10,192.0.2.11 -> 192.0.2.20  targets
delete  old.example.com  A     -    -    192.0.2.99                           -

== zone example.com
a-www.example.com TXT "heritage=external-dns,external-dns/owner=quickstart"
api.example.com CNAME www.example.com
cname-api.example.com TXT "heritage=external-dns,external-dns/owner=quickstart"
www.example.com A 192.0.2.20
`

func TestRun(t *testing.T) {
	var out strings.Builder
	var logged []string
	logger := funcr.New(func(prefix, args string) { logged = append(logged, args) }, funcr.Options{})
	require.NoError(t, run(context.Background(), &out, logger))
	assert.Equal(t, want, out.String())
	require.Len(t, logged, 3, "one line per cycle")
	for _, l := range logged {
		assert.Contains(t, l, `"msg"="reconcile cycle finished"`)
	}
	assert.Contains(t, logged[0], `"create"=3`)
}

func TestRunIsDeterministic(t *testing.T) {
	for range 5 {
		var out strings.Builder
		require.NoError(t, run(context.Background(), &out, logr.Discard()))
		require.Equal(t, want, out.String())
	}
}

func TestRunCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out strings.Builder
	err := run(ctx, &out, logr.Discard())
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, out.String())
}
