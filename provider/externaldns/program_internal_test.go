package externaldns

import (
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
	listed := append(append(append(mappedFlags(), providerFlags()...), programFlags()...), "crd-source-apiversion", "crd-source-kind", "compatibility", "webhook-server")
	for name := range registryFlags() {
		listed = append(listed, name)
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
