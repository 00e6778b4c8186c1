package externaldns

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"
)

// TestEveryFlagClassified: every flag of external-dns's parser has a
// place in NewProgram's tables, so that a flag a new external-dns adds is
// reported rather than passed over in silence, and no name in the tables
// is one the parser lacks.
func TestEveryFlagClassified(t *testing.T) {
	parser := map[string]bool{}
	for _, f := range xconfig.App(xconfig.NewConfig()).Model().Flags {
		parser[f.Name] = true
		_, ok := classifyFlag(f.Name)
		assert.True(t, ok, "--%s is in none of NewProgram's tables", f.Name)
	}
	listed := append(append(mappedFlags(), programFlags()...), "crd-source-apiversion", "crd-source-kind", "compatibility", "webhook-server")
	for name := range registryFlags() {
		listed = append(listed, name)
	}
	for name := range providerFlags() {
		listed = append(listed, name)
	}
	for name := range sourceFlags() {
		listed = append(listed, name)
		assert.True(t, slices.Contains(mappedFlags(), name), "--%s: a source flag is one NewProgram maps", name)
	}
	for _, name := range listed {
		assert.True(t, parser[name], "--%s is not a flag of external-dns v0.23", name)
	}
}

// TestClassifyFlag checks the kinds of a few flags of each table.
func TestClassifyFlag(t *testing.T) {
	tests := []struct {
		flag string
		want flagKind
	}{
		{"source", flagMapped},
		{"txt-owner-id", flagMapped},
		{"events-emit", flagMapped},
		{"aws-zone-type", flagProvider},
		{"webhook-provider-url", flagProvider},
		{"zone-id-filter", flagProvider},
		{"tls-ca", flagProvider},
		{"log-level", flagProgram},
		{"kubeconfig", flagProgram},
		{"crd-source-kind", flagUnread},
		{"compatibility", flagUnsupported},
		{"help", flagParser},
		{"txt-prefix", flagRegistry},
		{"dynamodb-table", flagRegistry},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			got, ok := classifyFlag(tt.flag)
			require.True(t, ok)
			assert.Equal(t, tt.want, got)
		})
	}
	_, ok := classifyFlag("no-such-flag")
	assert.False(t, ok)
}

// TestFlagValuesReadOnly: reading a configuration's flags through
// external-dns's parser changes nothing in it.
func TestFlagValuesReadOnly(t *testing.T) {
	args := []string{"--provider=aws", "--source=service", "--aws-sd-create-tag=a=b", "--domain-filter=example.com"}
	cfg, err := ParseFlags(args)
	require.NoError(t, err)
	want, err := ParseFlags(args)
	require.NoError(t, err)
	values := flagValues(cfg)
	assert.Equal(t, want, cfg)
	assert.Equal(t, "aws", values["provider"])
	assert.Equal(t, "example.com", values["domain-filter"])
}

// TestGivenFlags: the flags whose values differ from their defaults,
// sorted, with --provider and --source always among them.
func TestGivenFlags(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--provider=aws", "--source=service"}, []string{"provider", "source"}},
		{[]string{"--provider=aws", "--source=service", "--interval=1m", "--txt-owner-id=default"}, []string{"provider", "source"}},
		{[]string{"--provider=aws", "--source=service", "--interval=2m", "--once", "--no-aws-evaluate-target-health"},
			[]string{"aws-evaluate-target-health", "interval", "once", "provider", "source"}},
		{[]string{"--provider=aws", "--source=service", "--regex-domain-filter=x"}, []string{"provider", "regex-domain-filter", "source"}},
	}
	for _, tt := range tests {
		cfg, err := ParseFlags(tt.args)
		require.NoError(t, err)
		got, err := givenFlags(cfg)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "%v", tt.args)
	}
}

// TestFlagReaders: every provider flag of the parser names the providers
// that read it (but the webhook server's own flags, which none reads), and
// every provider and source in the tables is one external-dns v0.23 has.
func TestFlagReaders(t *testing.T) {
	serverOnly := []string{"webhook-provider-idle-timeout", "webhook-provider-read-header-timeout"}
	for _, f := range xconfig.App(xconfig.NewConfig()).Model().Flags {
		if kind, _ := classifyFlag(f.Name); kind != flagProvider {
			continue
		}
		readers := providerReaders(f.Name)
		if slices.Contains(serverOnly, f.Name) {
			assert.Empty(t, readers, "--%s", f.Name)
			continue
		}
		assert.NotEmpty(t, readers, "--%s", f.Name)
		for _, p := range readers {
			assert.True(t, slices.Contains(xconfig.ProviderNames, p), "--%s: provider %q", f.Name, p)
		}
	}
	for name, readers := range sourceFlags() {
		assert.NotEmpty(t, readers, "--%s", name)
		for _, s := range readers {
			assert.True(t, slices.Contains(xconfig.AllowedSources, s), "--%s: source %q", name, s)
		}
	}
	tests := []struct {
		flag string
		want []string
	}{
		{"aws-zone-type", []string{"aws", "aws-sd"}},
		{"aws-profile", []string{"aws"}},
		{"aws-sd-create-tag", []string{"aws-sd"}},
		{"azure-resource-group", []string{"azure", "azure-dns", "azure-private-dns"}},
		{"coredns-prefix", []string{"coredns", "skydns"}},
		{"tls-ca", []string{"pdns", "rfc2136"}},
		{"webhook-provider-url", []string{"webhook"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, providerReaders(tt.flag), "--%s", tt.flag)
	}
}
