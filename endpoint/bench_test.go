package endpoint_test

import (
	"testing"

	"github.com/zonesync/zonesync/endpoint"
)

var (
	benchName    string
	benchSame    bool
	benchTargets = endpoint.Targets{"192.0.2.1", "lb.example.com", "2001:db8::1", "192.0.2.4"}
	benchReorder = endpoint.Targets{"2001:DB8::1", "192.0.2.4", "LB.example.com", "192.0.2.1"}
)

var benchNames = []struct{ name, in string }{
	{"ASCII", "www.app.example.com"},
	{"ASCIITrailingDot", "www.app.example.com."},
	{"ASCIIUpperTrailingDot", "WWW.App.Example.COM."},
	{"Unicode", "FoOoo.Api.Stonks📈.Org"},
	{"Punycode", "shop.xn--bcher-kva.example"},
}

func benchmarkNames(b *testing.B, f func(string) string) {
	for _, bm := range benchNames {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchName = f(bm.in)
			}
		})
	}
}

func BenchmarkToUnicode(b *testing.B) { benchmarkNames(b, endpoint.ToUnicode) }

func BenchmarkToALabel(b *testing.B) { benchmarkNames(b, endpoint.ToALabel) }

func BenchmarkTargetsSame(b *testing.B) {
	for _, bm := range []struct {
		name string
		a, o endpoint.Targets
	}{
		{"1", endpoint.Targets{"192.0.2.1"}, endpoint.Targets{"192.0.2.1"}},
		{"1IPv6", endpoint.Targets{"2001:DB8::1"}, endpoint.Targets{"2001:db8:0::1"}},
		{"4InOrder", benchTargets, benchTargets},
		{"4Reordered", benchTargets, benchReorder},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchSame = bm.a.Same(bm.o)
			}
		})
	}
}

var benchLabels endpoint.Labels

// BenchmarkParseLabels: a plain ownership value costs one allocation, the
// slice of labels (none for a text without labels).
func BenchmarkParseLabels(b *testing.B) {
	for _, bm := range []struct{ name, in string }{
		{"Heritage", `"heritage=external-dns"`},
		{"OwnerResource", `"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/web"`},
		{"EightLabels", `"heritage=external-dns,external-dns/a=1,external-dns/b=2,external-dns/c=3,external-dns/d=4,` +
			`external-dns/e=5,external-dns/f=6,external-dns/g=7,external-dns/h=8"`},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchLabels, _ = endpoint.ParseLabels(bm.in)
			}
		})
	}
}

var benchText string

// BenchmarkLabelsSerialize: the text of an ownership TXT, written in key
// order without sorting; one allocation, the string.
func BenchmarkLabelsSerialize(b *testing.B) {
	for _, bm := range []struct {
		name   string
		labels endpoint.Labels
	}{
		{"OwnerResource", endpoint.LabelsFromMap(map[string]string{"owner": "default", "resource": "ingress/default/web"})},
		{"EightLabels", endpoint.LabelsFromMap(map[string]string{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6", "g": "7", "h": "8"})},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchText = bm.labels.Serialize(true)
			}
		})
	}
}
