package source_test

import (
	"context"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

func TestTargetFilter(t *testing.T) {
	in := []*endpoint.Endpoint{
		swA("mixed.example.com", "10.1.0.1", "192.0.2.1", "10.2.0.1"),
		swA("private.example.com", "10.1.0.2"),
		endpoint.NewEndpoint("v6.example.com", endpoint.RecordTypeAAAA, "2001:db8::1", "fd00::1"),
		endpoint.NewEndpoint("alias.example.com", endpoint.RecordTypeCNAME, "lb.example.net"),
		endpoint.NewEndpoint("txt.example.com", endpoint.RecordTypeTXT, "v=spf1"),
		swA("odd.example.com", "not-an-ip"),
	}
	for _, tc := range []struct {
		name             string
		include, exclude []netip.Prefix
		allTypes         bool
		want             []string
	}{
		{
			name: "no networks: everything passes",
			want: []string{
				"mixed.example.com A 10.1.0.1;192.0.2.1;10.2.0.1", "private.example.com A 10.1.0.2",
				"v6.example.com AAAA 2001:db8::1;fd00::1", "alias.example.com CNAME lb.example.net",
				"txt.example.com TXT v=spf1", "odd.example.com A not-an-ip",
			},
		},
		{
			name:    "include keeps addresses inside, drops emptied endpoints, other types pass",
			include: prefixes("10.0.0.0/8", "2001:db8::/32"),
			want: []string{
				"mixed.example.com A 10.1.0.1;10.2.0.1", "private.example.com A 10.1.0.2",
				"v6.example.com AAAA 2001:db8::1", "alias.example.com CNAME lb.example.net",
				"txt.example.com TXT v=spf1",
			},
		},
		{
			name:    "exclude wins over include",
			include: prefixes("10.0.0.0/8"),
			exclude: prefixes("10.1.0.0/16"),
			want: []string{
				"mixed.example.com A 10.2.0.1",
				"alias.example.com CNAME lb.example.net", "txt.example.com TXT v=spf1",
			},
		},
		{
			name:    "exclude only; non-addresses kept",
			exclude: prefixes("10.0.0.0/8", "fd00::/8"),
			want: []string{
				"mixed.example.com A 192.0.2.1", "v6.example.com AAAA 2001:db8::1",
				"alias.example.com CNAME lb.example.net", "txt.example.com TXT v=spf1", "odd.example.com A not-an-ip",
			},
		},
		{
			name:    "unmasked prefix is masked",
			include: prefixes("10.1.2.3/16"),
			want: []string{
				"mixed.example.com A 10.1.0.1", "private.example.com A 10.1.0.2",
				"alias.example.com CNAME lb.example.net", "txt.example.com TXT v=spf1",
			},
		},
		{
			name:     "all types, as external-dns: host names are in no network",
			include:  prefixes("10.0.0.0/8", "2001:db8::/32"),
			allTypes: true,
			want: []string{
				"mixed.example.com A 10.1.0.1;10.2.0.1", "private.example.com A 10.1.0.2",
				"v6.example.com AAAA 2001:db8::1",
			},
		},
		{
			name:     "all types with exclude only: host names kept",
			exclude:  prefixes("10.0.0.0/8"),
			allTypes: true,
			want: []string{
				"mixed.example.com A 192.0.2.1", "v6.example.com AAAA 2001:db8::1;fd00::1",
				"alias.example.com CNAME lb.example.net", "txt.example.com TXT v=spf1", "odd.example.com A not-an-ip",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := source.NewTargetFilter(&swStub{eps: in}, source.TargetFilterOptions{Include: tc.include, Exclude: tc.exclude, AllRecordTypes: tc.allTypes}).Endpoints(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tc.want, swNames(got))
		})
	}
}
