package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(context.Background(), &out))
	assert.Equal(t, `ACTION  NAME                  TYPE  SET  TTL  TARGETS       WHY
create  nas.home.example      A     -    -    192.168.1.10  -
create  printer.home.example  A     -    -    192.168.1.20  -
create  router.home.example   A     -    -    192.168.1.1   -

a-nas.home.example TXT "heritage=external-dns,external-dns/owner=hosts"
a-printer.home.example TXT "heritage=external-dns,external-dns/owner=hosts"
a-router.home.example TXT "heritage=external-dns,external-dns/owner=hosts"
nas.home.example A 192.168.1.10
printer.home.example A 192.168.1.20
router.home.example A 192.168.1.1
`, out.String())
}

func TestHostsSource(t *testing.T) {
	tests := []struct {
		name    string
		hosts   map[string]string
		want    []string
		wantErr string
	}{
		{name: "empty", hosts: nil, want: []string{}},
		{
			name:  "sorted by name",
			hosts: map[string]string{"b.home.example": "192.168.1.2", "a.home.example": "192.168.1.1"},
			want:  []string{"a.home.example A 192.168.1.1", "b.home.example A 192.168.1.2"},
		},
		{
			name:    "bad address names the host",
			hosts:   map[string]string{"a.home.example": "not-an-ip"},
			wantErr: "hosts entry a.home.example",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eps, err := hostsSource{hosts: tt.hosts}.Endpoints(context.Background())
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			got := []string{}
			for _, ep := range eps {
				got = append(got, ep.DNSName+" "+ep.RecordType+" "+ep.Targets.String())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestHostsSourceCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := hostsSource{}.Endpoints(ctx)
	require.ErrorIs(t, err, context.Canceled)
}
