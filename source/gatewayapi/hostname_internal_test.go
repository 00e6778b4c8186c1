package gatewayapi

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMatchHost(t *testing.T) {
	tests := []struct {
		listener, route, want string
		ok                    bool
	}{
		{"", "web.example.com", "web.example.com", true},
		{"web.example.com", "", "web.example.com", true},
		{"", "", "", true},
		{"Web.Example.com", "web.example.COM", "web.example.com", true},
		{"*.example.com", "web.example.com", "web.example.com", true},
		{"*.example.com", "a.b.example.com", "a.b.example.com", true},
		{"*.example.com", "example.com", "", false},
		{"web.example.com", "*.example.com", "web.example.com", true},
		{"*.example.com", "*.example.com", "*.example.com", true},
		{"*.example.com", "*.a.example.com", "*.a.example.com", true},
		{"*.a.example.com", "*.b.example.com", "", false},
		{"web.example.com", "api.example.com", "", false},
		{"*.example.com", "web.example.org", "", false},
		{"*.example.com", "xexample.com", "", false},
		{"", "192.0.2.1", "", false},
		{"", "2001:db8::1", "", false},
		{"", "bad_name.example.com", "", false},
		{"", "*", "", false},
		{"", "web.example.com.", "web.example.com.", true}, // one trailing dot is allowed
		{"", "web.example.com..", "", false},
		{"", ".", "", false},
		{"", "-a.example.com", "", false},
	}
	for _, tt := range tests {
		got, ok := matchHost(tt.listener, tt.route)
		assert.Equal(t, tt.ok, ok, "%q ∩ %q", tt.listener, tt.route)
		assert.Equal(t, tt.want, got, "%q ∩ %q", tt.listener, tt.route)
	}
}

func TestProtocolMatches(t *testing.T) {
	tests := []struct {
		route, listener string
		want            bool
	}{
		{"HTTP", "HTTP", true},
		{"HTTP", "HTTPS", true},
		{"HTTPS", "HTTP", true},
		{"HTTP", "TLS", false},
		{"TLS", "TLS", true},
		{"TCP", "TLS", true},
		{"TLS", "TCP", false},
		{"TCP", "TCP", true},
		{"UDP", "UDP", true},
		{"UDP", "TCP", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, protocolMatches(tt.route, tt.listener), "%s on %s", tt.route, tt.listener)
	}
}

// FuzzMatchHost checks the intersection's properties on any pair of names
// (both come from objects users write): it is symmetric, lower-case, and
// one of its inputs whenever both are non-empty.
func FuzzMatchHost(f *testing.F) {
	f.Add("*.example.com", "web.example.com")
	f.Add("", "a.b.example.com")
	f.Add("*.Example.com", "*.a.example.COM")
	f.Add("192.0.2.1", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		got, ok := matchHost(a, b)
		got2, ok2 := matchHost(b, a)
		if ok != ok2 || got != got2 {
			t.Fatalf("not symmetric: %q∩%q=%q,%v but %q∩%q=%q,%v", a, b, got, ok, b, a, got2, ok2)
		}
		if !ok {
			return
		}
		if got != strings.ToLower(got) {
			t.Fatalf("%q∩%q=%q is not lower case", a, b, got)
		}
		if a != "" && b != "" && got != strings.ToLower(a) && got != strings.ToLower(b) {
			t.Fatalf("%q∩%q=%q is neither input", a, b, got)
		}
	})
}
