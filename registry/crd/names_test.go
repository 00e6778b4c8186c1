package crd_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zonesync/zonesync/registry/crd"
)

// The expected names were computed outside Go, from the rule external-dns
// uses (its recordObjectName): the hash with `printf '%s' 'name/TYPE/set' |
// sha256sum`, the readable part by hand.
func TestObjectName(t *testing.T) {
	long := strings.Join([]string{strings.Repeat("a", 60), strings.Repeat("b", 60), strings.Repeat("c", 60),
		strings.Repeat("d", 60), strings.Repeat("e", 50)}, ".") + ".example.com" // 306 characters
	tests := []struct {
		name, dnsName, recordType, setID string
		want                             string
	}{
		{"plain", "www.example.com", "A", "", "www-example-com-2c8f910d"},
		{"case, trailing dot and type case do not matter", "WWW.Example.COM.", "a", "", "www-example-com-2c8f910d"},
		{"set identifier", "weighted.example.com", "A", "blue", "weighted-example-com-26a8b85a"},
		{"another set identifier", "weighted.example.com", "A", "green", "weighted-example-com-d5b1a81e"},
		{"Unicode name: non-ASCII letters become dashes", "bücher.example.com", "A", "", "b-cher-example-com-c0ea16c1"},
		{"the A-label form of the same name", "xn--bcher-kva.example.com", "A", "", "xn-bcher-kva-example-com-3ba34cfb"},
		{"wildcard", "*.apps.example.com", "CNAME", "", "apps-example-com-aeb79f71"},
		{"underscores", "_sip._tcp.example.com", "SRV", "", "sip-tcp-example-com-fc7893d3"},
		// 4×60 letters and 4 dashes are the 244 characters left beside the
		// suffix; the last is a dash, trimmed.
		{"306 characters, cut to fit 253", long, "A", "",
			strings.Repeat("a", 60) + "-" + strings.Repeat("b", 60) + "-" + strings.Repeat("c", 60) + "-" +
				strings.Repeat("d", 60) + "-4166207e"},
		{"nothing but symbols", "*._-.", "TXT", "", "record-f1e67e20"},
		{"empty", "", "A", "", "record-8c24af8e"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := crd.ObjectName(tt.dnsName, tt.recordType, tt.setID)
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, len(got), 253)
		})
	}
}
