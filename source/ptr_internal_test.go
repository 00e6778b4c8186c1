package source

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReverseName(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"192.0.2.10", "10.2.0.192.in-addr.arpa", true},
		{"::ffff:192.0.2.10", "10.2.0.192.in-addr.arpa", true},
		{"2001:db8::567:89ab", "b.a.9.8.7.6.5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa", true},
		{"2001:DB8::1", "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa", true},
		{"fe80::1%eth0", "", false},
		{"web.example.com", "", false},
		{"", "", false},
	} {
		got, ok := reverseName(tc.in)
		assert.Equal(t, tc.ok, ok, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}
