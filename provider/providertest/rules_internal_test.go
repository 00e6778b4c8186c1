package providertest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/internal/contractkit"
)

// Only genuinely optional features can be declared away: with every option
// given, the one rule skipped is SetIdentifier.
func TestOnlyOptionalRulesCanBeSkipped(t *testing.T) {
	cfg := newSuiteConfig(Options{Zone: "zone.test", NoSetIdentifier: true, Upsert: true, Timeout: time.Second, Concurrency: 1})
	var skipped []string
	seen := map[string]bool{}
	for _, r := range rules() {
		require.NotNil(t, r.run, r.name)
		assert.False(t, seen[r.name], "rule %s listed twice", r.name)
		seen[r.name] = true
		if r.skip != nil && r.skip(cfg) != "" {
			skipped = append(skipped, r.name)
		}
		if r.skip != nil {
			assert.Empty(t, r.skip(newSuiteConfig(Options{})), "%s is skipped by default", r.name)
		}
	}
	assert.Equal(t, []string{RuleSetIdentifier}, skipped)
	assert.Len(t, seen, 24)
}

// The rule table of the package documentation lists exactly the rules the
// suite runs, in the order it runs them.
func TestRuleTableMatchesCode(t *testing.T) {
	contractkit.CheckDocItems(t, "doc.go", "Rules", contractkit.Names(rules(), func(r rule) string { return r.name }))
}

func TestSuiteConfigDefaults(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want suiteConfig
	}{
		{
			name: "defaults",
			want: suiteConfig{zone: "example.org", setIdentifier: true, timeout: time.Minute, concurrency: 8},
		},
		{
			name: "zone is canonical, bad numbers are raised",
			opts: Options{Zone: " Zone.TEST. ", Timeout: -1, Concurrency: 1},
			want: suiteConfig{zone: "zone.test", setIdentifier: true, timeout: time.Minute, concurrency: 2},
		},
		{
			name: "punycode zone stays in A-label form",
			opts: Options{Zone: "XN--MNCHEN-3YA.example.", Upsert: true, NoSetIdentifier: true},
			want: suiteConfig{zone: "xn--mnchen-3ya.example", upsert: true, timeout: time.Minute, concurrency: 8},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, *newSuiteConfig(tt.opts))
		})
	}
}

func TestLongTXTValue(t *testing.T) {
	for _, n := range []int{255, 256, 600, 700} {
		v := longTXTValue(n, "zs-long")
		assert.Len(t, v, n)
		assert.Equal(t, `a "q`, v[250:254], "a quote just before the 255-byte boundary")
		assert.Equal(t, byte('.'), v[n-1])
		if n > 260 {
			assert.Equal(t, `"quoted"`, v[252:260])
		}
	}
}

func TestDescribeDiff(t *testing.T) {
	tests := []struct {
		name, got, want, msg string
	}{
		{name: "short", got: `a"`, want: `a`, msg: `got "a\"", want "a"`},
		{name: "long", got: string(make([]byte, 100)) + "x", want: string(make([]byte, 100)) + "y",
			msg: `got 101 bytes, want 101; first difference at byte 100: got "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00x", want "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00y"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.msg, describeDiff(tt.got, tt.want))
		})
	}
}
