package annotations

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zonesync/zonesync/endpoint"
)

func TestParseTTL(t *testing.T) {
	tests := []struct {
		in   string
		want endpoint.TTL
		ok   bool
	}{
		{"300", 300, true},
		{" 300 ", 300, true},
		{"1", 1, true},
		{"2147483647", 2147483647, true},
		{"5m", 300, true},
		{"1h30m", 5400, true},
		{"1.5s", 1, true},
		{"1.999s", 1, true},
		{"0", 0, false},
		{"-1", 0, false},
		{"", 0, false},
		{"5 m", 0, false},
		{"9999999999999999999999", 0, false},
		{"1.5", 0, false},
	}
	for _, tt := range tests {
		got, err := parseTTL(tt.in)
		assert.Equal(t, tt.want, got, "parseTTL(%q)", tt.in)
		assert.Equal(t, tt.ok, err == nil, "parseTTL(%q) error %v", tt.in, err)
	}
}
