package annotations_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
)

var cloudflareProperties = []string{
	annotations.CloudflareProxiedProperty,
	annotations.CloudflareCustomHostnameProperty,
	annotations.CloudflareRegionProperty,
	annotations.CloudflareRecordCommentProperty,
	annotations.CloudflareTagsProperty,
}

// FuzzParseAnnotations feeds Parse annotation maps built from "key=value"
// lines under a fuzzed extra prefix. Parse must not panic, must be
// deterministic, and whatever it returns must be usable: valid names,
// TTL in range, properties sorted by unique name, Cloudflare properties
// under their canonical names, errors naming the object.
func FuzzParseAnnotations(f *testing.F) {
	p := annotations.Prefix
	f.Add("", p+"hostname=a.example.com,b.example.com.\n"+p+"ttl=5m")
	f.Add("custom/", "custom/target=192.0.2.1, x.example.com\ncustom/ttl=0\n"+p+"aws-weight=1")
	f.Add("", annotations.AlphaPrefix+"cloudflare-proxied=true\n"+p+"controller=other\n"+p+"alias=true")
	f.Add("x/", "x/hostname=a..b\nx/webhook-=v\nx/record-type=")
	f.Add("x/", "x/cloudflare-tags=a\n"+p+"cloudflare-tags=b\nx/cloudflare-x/cloudflare-proxied=c\nx/cloudflare-=d\n"+p+"webhook-cloudflare-tags=e")
	f.Fuzz(func(t *testing.T, prefix, lines string) {
		ann := map[string]string{}
		for _, line := range strings.Split(lines, "\n") {
			k, v, _ := strings.Cut(line, "=")
			ann[k] = v
		}
		cfg := annotations.Config{}
		if prefix != "" {
			cfg.Prefixes = []string{prefix, p}
		}
		got, err := cfg.Parse(webRef, ann)
		again, err2 := cfg.Parse(webRef, ann)
		require.Equal(t, got, again)
		require.Equal(t, err == nil, err2 == nil)
		if err != nil {
			require.ErrorContains(t, err, "Service default/web: annotation ")
			var ae *annotations.Error
			require.True(t, errors.As(err, &ae))
		}
		for _, names := range [][]string{got.Hostnames, got.InternalHostnames} {
			for _, n := range names {
				assert.NoError(t, endpoint.ValidateDNSName(n))
				assert.False(t, strings.HasSuffix(n, "."), "name %q keeps its dot", n)
			}
		}
		assert.GreaterOrEqual(t, got.TTL, endpoint.TTL(0))
		assert.LessOrEqual(t, got.TTL, endpoint.TTL(2147483647))
		assert.True(t, slices.IsSortedFunc(got.ProviderSpecific, func(a, b endpoint.ProviderSpecificProperty) int {
			return strings.Compare(a.Name, b.Name)
		}))
		for i := 1; i < len(got.ProviderSpecific); i++ {
			assert.NotEqual(t, got.ProviderSpecific[i-1].Name, got.ProviderSpecific[i].Name)
		}
		for _, prop := range got.ProviderSpecific {
			// Cloudflare properties only ever get their canonical names.
			if strings.HasPrefix(prop.Name, "cloudflare") {
				assert.Contains(t, cloudflareProperties, prop.Name)
			}
		}
		for _, ep := range source.EndpointsForHostnames(got.Hostnames, got.Targets, got.EndpointMeta(webRef)) {
			assert.NoError(t, endpoint.ValidateDNSName(ep.DNSName))
			assert.NotEmpty(t, ep.Targets)
		}
	})
}
