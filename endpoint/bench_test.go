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

func BenchmarkNormalizeDNSName(b *testing.B) {
	for _, bm := range []struct{ name, in string }{
		{"ASCII", "www.app.example.com"},
		{"ASCIIUpperTrailingDot", "WWW.App.Example.COM."},
		{"Unicode", "FoOoo.Api.Stonks📈.Org"},
		{"Punycode", "shop.xn--bcher-kva.example"},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchName = endpoint.NormalizeDNSName(bm.in)
			}
		})
	}
}

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
