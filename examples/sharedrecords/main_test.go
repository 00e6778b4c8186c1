package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/clock/clocktest"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(context.Background(), &out, clocktest.New(time.Unix(1795937088, 0))))
	contribution := func(owner, target string) string {
		return `TXT "heritage=external-dns,external-dns/owner=zonesync-shared,external-dns/shared=1,external-dns/shared-owner=` + owner +
			`,external-dns/shared-record=app.example.com,external-dns/shared-refresh=300,external-dns/shared-seen=1795937088,external-dns/shared-targets=` +
			target + `,external-dns/shared-ttl=60,external-dns/shared-type=A"`
	}
	assert.Equal(t, `cluster-east: app.example.com/A: applied: contributed, shared with 1 owner (no other owner contributes yet)
cluster-west: app.example.com/A: applied: contributed, shared with 2 owners
== both clusters contribute
_zs-7ew2ivgyfwxu-a.app.example.com `+contribution("cluster-east", "192.0.2.10")+`
_zs-gic5ztft5ci5-a.app.example.com `+contribution("cluster-west", "198.51.100.20")+`
a-app.example.com TXT "heritage=external-dns,external-dns/owner=zonesync-shared,external-dns/shared=1"
app.example.com A 192.0.2.10 198.51.100.20

== the west cluster left
_zs-7ew2ivgyfwxu-a.app.example.com `+contribution("cluster-east", "192.0.2.10")+`
a-app.example.com TXT "heritage=external-dns,external-dns/owner=zonesync-shared,external-dns/shared=1"
app.example.com A 192.0.2.10

== the last cluster left

`, out.String())
}
