package interop

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	xannotations "sigs.k8s.io/external-dns/source/annotations"
)

// TestMain sets external-dns's process-wide settings once, before any
// test: both annotation prefixes read (zonesync reads both by default;
// external-dns needs --legacy-annotation-prefix for the alpha one), and
// its logs silenced. It stops the API server of the CRD registry tests
// (crd_registry_test.go) when they started one.
func TestMain(m *testing.M) {
	xannotations.SetLegacyAnnotationPrefix(xannotations.LegacyAnnotationPrefix)
	logrus.SetOutput(io.Discard)
	// Istio's generated informers and fake clientset predate watch-list
	// streams: with client-go's WatchListClient on, their reflectors wait
	// for a bookmark the fake never sends. client-go reads this once.
	if err := os.Setenv("KUBE_FEATURE_WatchListClient", "false"); err != nil {
		panic(err)
	}
	os.Exit(apiServer.Main(m))
}

// sourceSeeds are the seeds of the random differential runs: each run
// draws its settings and its objects from one.
func sourceSeeds() []uint64 { return []uint64{1, 2, 3, 4} }

// gen draws the parts every source's objects share: names, annotations,
// labels, namespaces, settings.
type gen struct {
	r    *rand.Rand
	seed uint64
	n    int
}

func newGen(seed uint64) *gen { return &gen{r: rand.New(rand.NewPCG(seed, 0x5eed)), seed: seed} }

func (g *gen) String() string { return fmt.Sprintf("seed %d (math/rand/v2 PCG(seed, 0x5eed))", g.seed) }

// chance reports true with probability 1/n.
func (g *gen) chance(n int) bool { return g.r.IntN(n) == 0 }

// name returns a fresh object name.
func (g *gen) name(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d", prefix, g.n)
}

func (g *gen) namespace() string { return pick(g.r, "default", "default", "team-a", "team-b") }

// meta returns object metadata with random labels and annotations.
func (g *gen) meta(prefix string) metav1.ObjectMeta {
	name := g.name(prefix)
	m := metav1.ObjectMeta{Namespace: g.namespace(), Name: name, Labels: map[string]string{}, Annotations: g.annotations(name)}
	if !g.chance(3) {
		m.Labels["team"] = pick(g.r, "a", "b")
	}
	if g.chance(4) {
		m.Annotations["dns"] = pick(g.r, "public", "private")
	}
	return m
}

// hostname draws one host name for an object, sometimes odd.
func (g *gen) hostname(name string) string {
	switch g.r.IntN(14) {
	case 0:
		return "*." + name + ".example.com"
	case 1:
		return name + ".example.com."
	case 2:
		return strings.ToUpper(name) + ".Example.COM"
	case 3:
		return "bad_host!" + name + ".example.com" // not a valid name
	case 4:
		return name + ".other.org"
	case 5:
		return "sub." + name + ".example.com"
	}
	return name + ".example.com"
}

// target draws one target: an IPv4 or IPv6 address or a host name.
func (g *gen) target() string {
	return pick(g.r, "192.0.2.10", "192.0.2.11", "2001:db8::10", "lb1.example.net", "lb2.example.net.", "198.51.100.7")
}

// setAnn sets external-dns annotation key under a random prefix: the new
// one, the alpha one, or both (with different values, the new one must
// win).
func (g *gen) setAnn(anns map[string]string, key, value string, alt func() string) {
	const newPrefix, alphaPrefix = "external-dns.kubernetes.io/", "external-dns.alpha.kubernetes.io/"
	switch g.r.IntN(5) {
	case 0, 1:
		anns[newPrefix+key] = value
	case 2, 3:
		anns[alphaPrefix+key] = value
	default:
		anns[newPrefix+key] = value
		anns[alphaPrefix+key] = alt()
	}
}

// annotations draws the external-dns annotations of an object.
func (g *gen) annotations(name string) map[string]string {
	anns := map[string]string{}
	if !g.chance(4) {
		var hosts []string
		for range 1 + g.r.IntN(3)*g.r.IntN(2) {
			hosts = append(hosts, g.hostname(name))
		}
		g.setAnn(anns, "hostname", strings.Join(hosts, pick(g.r, ",", ", ")), func() string { return "alpha-" + name + ".example.com" })
	}
	if g.chance(4) {
		var ts []string
		for range 1 + g.r.IntN(2) {
			ts = append(ts, g.target())
		}
		g.setAnn(anns, "target", strings.Join(ts, ","), func() string { return "203.0.113.99" })
	}
	if g.chance(3) {
		g.setAnn(anns, "ttl", pick(g.r, "300", "60", "1m", "0", "-5", "abc", "2147483648", "1.5"), func() string { return "999" })
	}
	if g.chance(5) {
		g.setAnn(anns, "set-identifier", pick(g.r, "s1", "s2"), func() string { return "alpha-set" })
	}
	if g.chance(5) {
		g.setAnn(anns, "aws-weight", pick(g.r, "10", "20"), func() string { return "99" })
	}
	if g.chance(6) {
		g.setAnn(anns, "cloudflare-proxied", pick(g.r, "true", "false"), func() string { return "true" })
	}
	if g.chance(8) {
		g.setAnn(anns, "alias", "true", func() string { return "false" })
	}
	if g.chance(20) {
		g.setAnn(anns, "controller", pick(g.r, "dns-controller", "other"), func() string { return "dns-controller" })
	}
	return anns
}

// settings draws the flags of one run.
func (g *gen) settings() sourceSettings {
	var s sourceSettings
	switch g.r.IntN(6) {
	case 0:
		s.Namespace = "team-a"
	}
	switch g.r.IntN(5) {
	case 0:
		s.AnnotationFilter = "dns in (public)"
	case 1:
		s.AnnotationFilter = "dns notin (private)"
	}
	switch g.r.IntN(5) {
	case 0:
		s.LabelSelector = "team=a"
	case 1:
		s.LabelSelector = "team"
	}
	switch g.r.IntN(3) {
	case 0:
		s.FQDNTemplate = "{{.Name}}.{{.Namespace}}.tmpl.example.com"
		s.CombineFQDN = g.chance(2)
	}
	return s
}
