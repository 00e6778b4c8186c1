package externaldns_test

// Whole cycles on Cloudflare: external-dns's cloudflare provider,
// constructed through externaldns.New from --provider=cloudflare flags
// (proxied by default, --cloudflare-proxied), talks through the real
// Cloudflare SDK (github.com/cloudflare/cloudflare-go/v7, whose
// CLOUDFLARE_BASE_URL moves it) to the stand-in of
// internal/standin/cloudflare: one record per target, a proxied flag per
// record, changes sent as one transactional batch per zone, record lists
// paged five at a time. See cloudcycle_helpers_test.go for the scenarios.

import (
	"testing"

	"github.com/stretchr/testify/require"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"
	"sigs.k8s.io/external-dns/provider/cloudflare"

	"github.com/zonesync/zonesync/provider/externaldns"
	cfstandin "github.com/zonesync/zonesync/provider/externaldns/internal/standin/cloudflare"
)

// newCloudflareProvider constructs external-dns's cloudflare provider from
// cfg against the stand-in s.
func newCloudflareProvider(t *testing.T, s *cfstandin.Server, cfg *xconfig.Config) *externaldns.Provider {
	t.Helper()
	isolateEnv(t)
	t.Setenv("CF_API_TOKEN", s.Token())
	t.Setenv("CLOUDFLARE_BASE_URL", s.BaseURL())
	p, err := externaldns.New(t.Context(), cloudflare.New, cfg, xendpoint.NewDomainFilter(cfg.DomainFilter))
	require.NoError(t, err)
	return p
}

// cloudflareWrites counts the stand-in's write requests.
func cloudflareWrites(s *cfstandin.Server) func() int {
	return func() int {
		return s.Count(cfstandin.OpBatch) + s.Count(cfstandin.OpCreate) + s.Count(cfstandin.OpUpdate) + s.Count(cfstandin.OpDelete)
	}
}

func cloudflareView(s *cfstandin.Server) func() []string {
	return func() []string {
		var out []string
		for _, r := range s.Records("example.com") {
			out = append(out, r.String())
		}
		return out
	}
}

func TestCloudflareWholeCycles(t *testing.T) {
	// Proxied records (all but the Ingress "app", which opts out with the
	// annotation) get TTL 1, automatic, whatever their TTL annotation:
	// external-dns's provider drops the TTL of a proxied record. TXT
	// records cannot be proxied.
	created := []string{
		`a-app.example.com 1 TXT ` + cycleTXT("ingress/default/app"),
		`a-web.example.com 1 TXT ` + cycleTXT("service/default/web"),
		`app.example.com 1 A 192.0.2.20`,
		`cdn.example.com 1 CNAME cdn-lb.example.net proxied`,
		`cname-cdn.example.com 1 TXT ` + cycleTXT("ingress/default/cdn"),
		`cname-lb.example.com 1 TXT ` + cycleTXT("service/default/lb"),
		`foreign.example.com 300 A 192.0.2.250`,
		`lb.example.com 1 CNAME lb-1234.elb.example.net proxied`,
		`web.example.com 1 A 192.0.2.10 proxied`,
	}
	upserted := replaceView(created, `web.example.com 1 A 192.0.2.10 proxied`, `web.example.com 1 A 192.0.2.11 proxied`)
	deleted := replaceView(upserted, `cdn.example.com 1 CNAME cdn-lb.example.net proxied`, "")
	deleted = replaceView(deleted, `cname-cdn.example.com 1 TXT `+cycleTXT("ingress/default/cdn"), "")
	views := cycleViews{
		created:  created,
		upserted: upserted,
		deleted:  deleted,
		xupdated: replaceView(deleted, `app.example.com 1 A 192.0.2.20`, `app.example.com 1 A 192.0.2.21`),
	}
	tests := []struct {
		name  string
		geo   bool
		steps []cycleStep
		// writes are the write requests of the scenario: one batch per
		// cycle that changes the zone.
		writes map[string]int
	}{
		{name: "zonesync first", geo: true, steps: zonesyncFirstSteps(views, true), writes: map[string]int{cfstandin.OpBatch: 4}},
		{name: "external-dns first", steps: externalDNSFirstSteps(views), writes: map[string]int{cfstandin.OpBatch: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := cfstandin.Start(t, cfstandin.Config{})
			s.CreateZone("example.com")
			s.CreateZone("example.org")
			s.AddRecord("example.com", cfstandin.Record{Name: "foreign", Type: "A", Content: "192.0.2.250", TTL: 300})
			cfg := parseFlags(t, cycleFlags("--provider=cloudflare", "--cloudflare-proxied", "--cloudflare-dns-records-per-page=5")...)
			kube := newKube(cycleObjects(tt.geo, map[string]string{cycleAnnProxied: "false"})...)
			wc := newWholeCycle(t, kube, cfg, newCloudflareProvider(t, s, cfg))
			h := newCycleHarness(t, wc, kube, cloudflareView(s), cloudflareWrites(s))
			h.run(t, tt.steps)

			got := map[string]int{}
			for _, op := range []string{cfstandin.OpBatch, cfstandin.OpCreate, cfstandin.OpUpdate, cfstandin.OpDelete} {
				if n := s.Count(op); n > 0 {
					got[op] = n
				}
			}
			require.Equal(t, tt.writes, got, "write requests: %v", s.Counts())
			require.Zero(t, s.Count(cfstandin.OpUnknown), "requests the stand-in has no route for")
			require.Empty(t, s.Records("example.org"), "the zone outside the domain filter")
		})
	}
}
