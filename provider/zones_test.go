package provider_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/provider"
)

func TestDomainFilterFromZones(t *testing.T) {
	tests := []struct {
		name        string
		zones       []string
		wantInclude []string
		match       []string
		noMatch     []string
	}{
		{
			name:        "both forms per zone, trailing dot stripped",
			zones:       []string{"api.example.com.", "prod.myapp.io"},
			wantInclude: []string{".api.example.com", ".prod.myapp.io", "api.example.com", "prod.myapp.io"},
			match:       []string{"api.example.com", "x.api.example.com", "PROD.myapp.io.", "a.b.prod.myapp.io"},
			noMatch:     []string{"example.com", "myapi.example.com", "staging.myapp.io"},
		},
		{
			name:        "blank zones ignored",
			zones:       []string{"", " ", "example.org"},
			wantInclude: []string{".example.org", "example.org"},
			match:       []string{"example.org"},
			noMatch:     []string{"example.net"},
		},
		{
			name:    "no zones matches everything",
			zones:   nil,
			match:   []string{"example.org", "anything.example.net"},
			noMatch: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := provider.DomainFilterFromZones(tt.zones)
			require.NotNil(t, f)
			assert.Equal(t, tt.wantInclude, f.Include())
			for _, n := range tt.match {
				assert.True(t, f.Match(n), "should match %q", n)
			}
			for _, n := range tt.noMatch {
				assert.False(t, f.Match(n), "should not match %q", n)
			}
		})
	}
}

func TestDomainFilterFromZoneLister(t *testing.T) {
	f := provider.DomainFilterFromZoneLister(func() ([]string, error) { return []string{"example.org."}, nil })
	assert.Equal(t, []string{".example.org", "example.org"}, f.Include())

	f = provider.DomainFilterFromZoneLister(func() ([]string, error) { return []string{"example.org"}, errors.New("API down") })
	assert.False(t, f.IsConfigured(), "an error gives the empty filter")
	assert.True(t, f.Match("anything.example.net"))

	f = provider.DomainFilterFromZoneLister(nil)
	assert.False(t, f.IsConfigured())
}

func TestZoneMatcher(t *testing.T) {
	m := provider.NewZoneMatcher("example.org.", "Sub.Example.org", "example.net", " example.net ", "xn--bcher-kva.example")
	tests := []struct {
		name     string
		wantZone string
		wantOK   bool
	}{
		{"example.org", "example.org", true},
		{"www.example.org", "example.org", true},
		{"WWW.Example.ORG.", "example.org", true},
		{"sub.example.org", "sub.example.org", true},
		{"a.b.sub.example.org", "sub.example.org", true},
		{"xsub.example.org", "example.org", true},
		{"myexample.org", "", false},
		{"org", "", false},
		{"example.com", "", false},
		{"www.bücher.example", "xn--bcher-kva.example", true},
		{"www.xn--bcher-kva.example", "xn--bcher-kva.example", true},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zone, ok := m.Zone(tt.name)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.wantZone, zone)
		})
	}
	assert.Equal(t, []string{"example.net", "example.org", "sub.example.org", "xn--bcher-kva.example"}, m.Zones())
}

func TestZoneMatcherRootAndEmpty(t *testing.T) {
	m := provider.NewZoneMatcher(".", "example.org")
	zone, ok := m.Zone("www.example.org")
	assert.True(t, ok)
	assert.Equal(t, "example.org", zone)
	zone, ok = m.Zone("www.example.net")
	assert.True(t, ok)
	assert.Equal(t, ".", zone)
	assert.Equal(t, []string{".", "example.org"}, m.Zones())

	var zero provider.ZoneMatcher
	_, ok = zero.Zone("example.org")
	assert.False(t, ok)
	var nilMatcher *provider.ZoneMatcher
	_, ok = nilMatcher.Zone("example.org")
	assert.False(t, ok)
	assert.Nil(t, nilMatcher.Zones())
}

func TestZoneMatcherDoesNotAllocate(t *testing.T) {
	m := provider.NewZoneMatcher("example.org", "sub.example.org")
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := m.Zone("a.b.c.sub.example.org"); !ok {
			t.Fatal("no zone")
		}
	})
	assert.Zero(t, allocs)
}
