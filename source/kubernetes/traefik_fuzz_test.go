package kubernetes

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// externalDNSRuleHosts reads rule hosts the way external-dns v0.23 does,
// with its two regular expressions; it is the oracle traefikRuleHosts is
// checked against.
func externalDNSRuleHosts(rule string) []string {
	call := regexp.MustCompile("(?:HostSNI|HostHeader|Host)\\s*\\(\\s*(`.*?`)\\s*\\)")
	value := regexp.MustCompile("`([^,`]+)`")
	var hosts []string
	for _, c := range call.FindAllString(rule, -1) {
		for _, v := range value.FindAllString(c, -1) {
			if v = strings.Trim(v, "`"); v != "*" && v != "" {
				hosts = append(hosts, v)
			}
		}
	}
	return hosts
}

func TestTraefikRuleHosts(t *testing.T) {
	tests := []struct {
		rule string
		want []string
	}{
		{"Host(`a.example.com`)", []string{"a.example.com"}},
		{"Host(`a.example.com`, `b.example.com`) && PathPrefix(`/api`)", []string{"a.example.com", "b.example.com"}},
		{"Host(`a.example.com`) || Host(`b.example.com`)", []string{"a.example.com", "b.example.com"}},
		{"HostSNI(`tcp.example.com`)", []string{"tcp.example.com"}},
		{"HostSNI(`*`)", nil},
		{"HostHeader(`h.example.com`)", []string{"h.example.com"}},
		{"Host ( `spaced.example.com` ) ", []string{"spaced.example.com"}},
		{"HostRegexp(`{sub:[a-z]+}.example.com`)", nil},
		{"PathPrefix(`/`)", nil},
		{"Host(`a.example.com,b.example.com`)", nil}, // one value with a comma: not a host
		{"Host(`a.example.com`,`b.example.com`)", []string{"a.example.com", "b.example.com"}},
		{"Host(`a.example.com\n`)", nil},                         // the list may not span lines
		{"Host(\n`a.example.com`\n)", []string{"a.example.com"}}, // the spaces around it may
		{"Host(`unclosed.example.com) || Path(`/x`)", []string{"unclosed.example.com) || Path("}},
		{"Host(``)", nil},
		{"Host(`", nil},
		{"", nil},
		{"!Host(`not.example.com`)", []string{"not.example.com"}}, // as external-dns: negation not understood
	}
	for _, tt := range tests {
		assert := func(got []string, who string) {
			t.Helper()
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s(%q) = %q, want %q", who, tt.rule, got, tt.want)
			}
		}
		assert(traefikRuleHosts(tt.rule), "traefikRuleHosts")
		assert(externalDNSRuleHosts(tt.rule), "external-dns")
	}
}

// TestTraefikRuleHostsLinear: a hostile rule (many unclosed calls) is
// read in time linear in its length.
func TestTraefikRuleHostsLinear(t *testing.T) {
	rule := strings.Repeat("Host(`x", 200_000) // 1.4 MB, more than an object may hold
	if got := traefikRuleHosts(rule); got != nil {
		t.Fatalf("got %d hosts", len(got))
	}
	rule = strings.Repeat("HostSNI ( `a`,`b` ) ", 100_000)
	if got := traefikRuleHosts(rule); len(got) != 200_000 {
		t.Fatalf("got %d hosts", len(got))
	}
}

// FuzzTraefikRuleHosts checks the rule parser against external-dns's
// regular expressions on arbitrary rules: same hosts, same order, no
// panic.
func FuzzTraefikRuleHosts(f *testing.F) {
	for _, seed := range []string{
		"Host(`a.example.com`)",
		"Host(`a.example.com`, `b.example.com`) && PathPrefix(`/api`)",
		"HostSNI(`*`) || HostSNI(`t.example.com`)",
		"HostHeader ( `h` )",
		"Host(`a) || Path(`/x`)",
		"Host(`a\n`) Host(`b`)",
		"HostHost(`x`)``,`y`)",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, rule string) {
		got, want := traefikRuleHosts(rule), externalDNSRuleHosts(rule)
		if !slices.Equal(got, want) {
			t.Fatalf("traefikRuleHosts(%q) = %q, external-dns reads %q", rule, got, want)
		}
	})
}
