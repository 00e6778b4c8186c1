package interop_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xannotations "sigs.k8s.io/external-dns/source/annotations"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/interop"
	"github.com/zonesync/zonesync/source"
	"github.com/zonesync/zonesync/source/annotations"
)

// cloudflareAnnotationCases are annotation maps that exercise the naming of
// provider-specific properties: canonical Cloudflare names, the current and
// alpha prefixes, collisions between them, unknown attributes, and the other
// providers' families beside them.
var cloudflareAnnotationCases = []struct {
	name string
	ann  map[string]string
}{
	{name: "none", ann: map[string]string{}},
	{name: "every Cloudflare attribute", ann: map[string]string{
		annotations.Prefix + "cloudflare-proxied":         "true",
		annotations.Prefix + "cloudflare-custom-hostname": "a.example.net,b.example.net",
		annotations.Prefix + "cloudflare-region-key":      "eu",
		annotations.Prefix + "cloudflare-record-comment":  "owned by web",
		annotations.Prefix + "cloudflare-tags":            "env:prod,team:web",
	}},
	{name: "alpha prefix only", ann: map[string]string{
		annotations.AlphaPrefix + "cloudflare-proxied": "false",
		annotations.AlphaPrefix + "cloudflare-tags":    "a",
		annotations.AlphaPrefix + "aws-weight":         "10",
	}},
	{name: "both prefixes collide", ann: map[string]string{
		annotations.Prefix + "cloudflare-proxied":             "true",
		annotations.AlphaPrefix + "cloudflare-proxied":        "false",
		annotations.AlphaPrefix + "cloudflare-record-comment": "alpha only",
		annotations.Prefix + "cloudflare-tags":                "new",
		annotations.AlphaPrefix + "cloudflare-tags":           "old",
	}},
	{name: "unknown and odd attributes", ann: map[string]string{
		annotations.Prefix + "cloudflare-unknown":           "u",
		annotations.Prefix + "cloudflare-Proxied":           "case",
		annotations.Prefix + "cloudflare-region":            "short",
		annotations.Prefix + "cloudflare-x/cloudflare-tags": "slash",
		annotations.Prefix + "cloudflare/proxied":           "not an annotation name",
		"cloudflare/tags":                                    "no prefix",
		"other.example/cloudflare-proxied":                   "other prefix",
		annotations.AlphaPrefix + "cloudflare-custom-domain": "unknown",
	}},
	{name: "mixed providers", ann: map[string]string{
		annotations.Prefix + "alias":                      "true",
		annotations.Prefix + "record-type":                "ptr",
		annotations.Prefix + "aws-weight":                 "10",
		annotations.Prefix + "aws-evaluate-target-health": "true",
		annotations.Prefix + "webhook-cloudflare-tags":    "w",
		annotations.Prefix + "webhook-priority":           "5",
		annotations.Prefix + "coredns-group":              "g",
		annotations.Prefix + "azure-tags":                 "k=v",
		annotations.Prefix + "scw-priority":               "3",
		annotations.Prefix + "aws-cloudflare-proxied":     "true",
		annotations.Prefix + "cloudflare-proxied":         "true",
		annotations.AlphaPrefix + "cloudflare-tags":       "t",
		annotations.AlphaPrefix + "webhook-x":             "y",
		annotations.Prefix + "set-identifier":             "blue",
		annotations.Prefix + "ttl":                        "300",
	}},
}

// providerSpecificLines renders properties as sorted name=value lines, the
// form both sides are compared in (external-dns sorts properties with an
// unstable sort, so equal names may come in any order).
func providerSpecificLines(ps endpoint.ProviderSpecific) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.Name+"="+p.Value)
	}
	slices.Sort(out)
	return out
}

// externalDNSProviderSpecific is what external-dns v0.23's sources attach to
// an endpoint for ann, through interop.ToZonesync. When legacy is true it
// first resolves the alpha prefix as --legacy-annotation-prefix does.
func externalDNSProviderSpecific(t *testing.T, ann map[string]string, legacy bool) endpoint.ProviderSpecific {
	t.Helper()
	ann = maps.Clone(ann)
	if legacy {
		// external-dns keeps the legacy prefix in package state; the
		// tests of this package do not run in parallel.
		xannotations.SetLegacyAnnotationPrefix(annotations.AlphaPrefix)
		defer xannotations.SetLegacyAnnotationPrefix("")
		xannotations.ResolveLegacyAnnotations("Service", "default", "web", ann)
	}
	ps, _ := xannotations.ProviderSpecificAnnotations(ann)
	ep := xendpoint.NewEndpoint("web.example.com", xendpoint.RecordTypeA, "192.0.2.1")
	ep.ProviderSpecific = ps
	return interop.ToZonesync(ep).ProviderSpecific
}

// TestCloudflareAnnotationNames compares the provider-specific properties
// zonesync's annotation parser gives with external-dns's: with the current
// prefix alone (external-dns's default) and with both prefixes (zonesync's
// default, external-dns with --legacy-annotation-prefix set to the alpha
// one).
func TestCloudflareAnnotationNames(t *testing.T) {
	ref := source.ObjectRef{Kind: "Service", Namespace: "default", Name: "web"}
	for _, tc := range cloudflareAnnotationCases {
		for _, mode := range []struct {
			name   string
			cfg    annotations.Config
			legacy bool
		}{
			{name: "current prefix", cfg: annotations.Config{Prefixes: []string{annotations.Prefix}}},
			{name: "both prefixes", cfg: annotations.Config{}, legacy: true},
		} {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				got, err := mode.cfg.Parse(ref, tc.ann)
				require.NoError(t, err)
				want := externalDNSProviderSpecific(t, tc.ann, mode.legacy)
				assert.Equal(t, providerSpecificLines(want), providerSpecificLines(got.ProviderSpecific))
			})
		}
	}
}

// externalDNSPostProcess does to ep what external-dns v0.23's post
// processor (wrappers.NewPostProcessor with WithPostProcessorProvider)
// does to the provider-specific properties: for "cloudflare" it
// normalizes the legacy names, then it retains the provider's properties.
// The wrappers package itself cannot be built in this module (it pulls in
// every external-dns source, and the module proxy does not serve the
// github.com/openshift/api version they need), so the test composes the
// two exported steps post_processor.go calls, in its order.
func externalDNSPostProcess(ep *xendpoint.Endpoint, provider string) {
	if provider == "cloudflare" {
		xannotations.NormalizeProviderSpecific(ep)
	}
	ep.RetainProviderProperties(provider)
}

// TestCloudflarePostProcessor compares zonesync's PostProcessor with
// external-dns's post-processing for several providers, on the properties
// the annotation cases produce and on hand-written property lists with
// legacy names under any prefix, collisions in both orders and duplicates.
func TestCloudflarePostProcessor(t *testing.T) {
	type input struct {
		name  string
		props endpoint.ProviderSpecific
	}
	var inputs []input
	ref := source.ObjectRef{Kind: "Service", Namespace: "default", Name: "web"}
	for _, tc := range cloudflareAnnotationCases {
		v, err := annotations.Config{}.Parse(ref, tc.ann)
		require.NoError(t, err)
		inputs = append(inputs, input{name: "annotations " + tc.name, props: v.ProviderSpecific})
	}
	prop := func(name, value string) endpoint.ProviderSpecificProperty {
		return endpoint.ProviderSpecificProperty{Name: name, Value: value}
	}
	inputs = append(inputs,
		input{name: "legacy names under any prefix", props: endpoint.ProviderSpecific{
			prop(annotations.Prefix+"cloudflare-proxied", "true"),
			prop(annotations.AlphaPrefix+"cloudflare-tags", "a,b"),
			prop("custom.example/cloudflare-record-comment", "c"),
			prop("cloudflare-region-key", "eu"),
			prop("x/y/cloudflare-custom-hostname", "h.example.net"),
		}},
		input{name: "canonical before and after legacy", props: endpoint.ProviderSpecific{
			prop(annotations.Prefix+"cloudflare-proxied", "false"),
			prop(annotations.CloudflareProxiedProperty, "true"),
			prop(annotations.CloudflareTagsProperty, "t"),
			prop(annotations.AlphaPrefix+"cloudflare-tags", "legacy"),
		}},
		input{name: "two legacy names for one property", props: endpoint.ProviderSpecific{
			prop(annotations.AlphaPrefix+"cloudflare-proxied", "first"),
			prop(annotations.Prefix+"cloudflare-proxied", "second"),
		}},
		input{name: "duplicates and unknown attributes", props: endpoint.ProviderSpecific{
			prop(annotations.CloudflareProxiedProperty, "true"),
			prop(annotations.CloudflareProxiedProperty, "false"),
			prop(annotations.Prefix+"cloudflare-proxied", "legacy"),
			prop(annotations.Prefix+"cloudflare-unknown", "u"),
			prop("cloudflare-unknown", "plain"),
			prop("cloudflare/unknown", "canonical-looking"),
			prop("cloudflare/cloudflare-tags", "nested"),
		}},
		input{name: "other providers' names", props: endpoint.ProviderSpecific{
			prop("webhook/cloudflare-tags", "w"),
			prop("webhook/priority", "1"),
			prop("aws/weight", "10"),
			prop("coredns/group", "g"),
			prop("azure/tags", "k=v"),
			prop("alias", "true"),
			prop("record-type", "ptr"),
		}},
	)
	for _, in := range inputs {
		for _, provider := range []string{"cloudflare", "webhook", "aws", "azure", "coredns"} {
			t.Run(in.name+"/"+provider, func(t *testing.T) {
				ep := endpoint.NewEndpoint("web.example.com", endpoint.RecordTypeA, "192.0.2.1")
				ep.ProviderSpecific = slices.Clone(in.props)
				xep := interop.FromZonesync(ep)

				got, err := source.NewPostProcessor(source.NewStatic(ep), source.PostProcessorOptions{Provider: provider}).
					Endpoints(context.Background())
				require.NoError(t, err)
				require.Len(t, got, 1)

				externalDNSPostProcess(xep, provider)
				want := interop.ToZonesync(xep)
				assert.Equal(t, providerSpecificLines(want.ProviderSpecific), providerSpecificLines(got[0].ProviderSpecific))
			})
		}
	}
}
