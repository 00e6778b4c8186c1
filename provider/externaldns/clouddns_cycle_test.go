package externaldns_test

// Whole cycles on Google Cloud DNS: external-dns's google provider,
// constructed through externaldns.New from --provider=google flags, talks
// through the real Cloud DNS SDK (google.golang.org/api/dns/v1) to the
// stand-in of internal/standin/clouddns, which refuses what Cloud DNS
// refuses: a deletion that does not match the record set exactly (412), an
// addition of a record set that exists (409), more additions than the
// per-change quota. See cloudcycle_helpers_test.go for the scenarios.

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"
	"sigs.k8s.io/external-dns/provider/google"

	"github.com/zonesync/zonesync/provider/externaldns"
	"github.com/zonesync/zonesync/provider/externaldns/internal/standin/clouddns"
)

// newCloudDNSProvider constructs external-dns's google provider from cfg
// against the stand-in s: a service account whose token_uri and the Cloud
// DNS API are both reached through a context HTTP client that sends
// Google's hosts to s (see googleSetup in cloud_test.go for why the
// context).
func newCloudDNSProvider(t *testing.T, s *clouddns.Server, cfg *xconfig.Config) *externaldns.Provider {
	t.Helper()
	isolateEnv(t)
	sa, err := json.Marshal(map[string]string{
		"type":           "service_account",
		"project_id":     s.Project(),
		"private_key_id": "standin-key",
		"private_key":    keyPEM(t),
		"client_email":   "external-dns@" + s.Project() + ".iam.gserviceaccount.com",
		"client_id":      "1",
		"token_uri":      "https://oauth2.googleapis.com/token",
	})
	require.NoError(t, err)
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", writeFile(t, "sa.json", string(sa)))
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{
		Transport: redirectTransport(s.URL(), map[string]bool{"oauth2.googleapis.com": true, "dns.googleapis.com": true}),
	})
	p, err := externaldns.New(ctx, google.New, cfg, xendpoint.NewDomainFilter(cfg.DomainFilter))
	require.NoError(t, err)
	return p
}

// cloudDNSView returns the record sets of the stand-in's zone "example"
// but its apex SOA and NS.
func cloudDNSView(s *clouddns.Server) func() []string {
	return func() []string {
		var out []string
		for _, rr := range s.RRsets("example") {
			if rr.Name == "example.com." && (rr.Type == "SOA" || rr.Type == "NS") {
				continue
			}
			out = append(out, rr.String())
		}
		return out
	}
}

func TestCloudDNSWholeCycles(t *testing.T) {
	foreign := `foreign.example.com. A 60 [192.0.2.250]`
	created := []string{
		`a-app.example.com. TXT 300 [` + cycleTXT("ingress/default/app") + `]`,
		`a-web.example.com. TXT 300 [` + cycleTXT("service/default/web") + `]`,
		`app.example.com. A 300 [192.0.2.20]`,
		`cdn.example.com. CNAME 120 [cdn-lb.example.net.]`,
		`cname-cdn.example.com. TXT 300 [` + cycleTXT("ingress/default/cdn") + `]`,
		`cname-lb.example.com. TXT 300 [` + cycleTXT("service/default/lb") + `]`,
		foreign,
		`lb.example.com. CNAME 600 [lb-1234.elb.example.net.]`,
		`web.example.com. A 300 [192.0.2.10]`,
	}
	upserted := replaceView(created, `web.example.com. A 300 [192.0.2.10]`, `web.example.com. A 300 [192.0.2.11]`)
	deleted := replaceView(upserted, `cdn.example.com. CNAME 120 [cdn-lb.example.net.]`, "")
	deleted = replaceView(deleted, `cname-cdn.example.com. TXT 300 [`+cycleTXT("ingress/default/cdn")+`]`, "")
	views := cycleViews{
		created:  created,
		upserted: upserted,
		deleted:  deleted,
		xupdated: replaceView(deleted, `app.example.com. A 300 [192.0.2.20]`, `app.example.com. A 300 [192.0.2.21]`),
	}
	tests := []struct {
		name  string
		geo   bool
		steps []cycleStep
		// changes is how many Cloud DNS changes the scenario creates:
		// with --google-batch-change-size=4 the eight record sets of the
		// first create go in two.
		changes int
	}{
		{name: "zonesync first", geo: true, steps: zonesyncFirstSteps(views, true), changes: 5},
		{name: "external-dns first", steps: externalDNSFirstSteps(views), changes: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := clouddns.Start(t, clouddns.Config{PageSize: 3, MaxAdditions: 4, MaxDeletions: 4})
			s.CreateZone("example", "example.com.")
			s.CreateZone("other", "example.org.")
			s.SetRRset("example", clouddns.RRset{Name: "foreign.example.com.", Type: "A", TTL: 60, Rrdatas: []string{"192.0.2.250"}})
			cfg := parseFlags(t, cycleFlags("--provider=google", "--google-project="+s.Project(), "--google-zone-visibility=public",
				"--google-batch-change-size=4", "--google-batch-change-interval=0s")...)
			kube := newKube(cycleObjects(tt.geo, nil)...)
			wc := newWholeCycle(t, kube, cfg, newCloudDNSProvider(t, s, cfg))
			h := newCycleHarness(t, wc, kube, cloudDNSView(s), func() int { return s.Count(clouddns.OpChangesCreate) })
			h.run(t, tt.steps)

			require.Equal(t, tt.changes, s.Count(clouddns.OpChangesCreate), "changes created: %v", s.Counts())
			require.Zero(t, s.Count(clouddns.OpUnknown), "requests the stand-in has no route for")
			require.Len(t, s.RRsets("other"), 2, "the zone outside the domain filter keeps its SOA and NS only")
		})
	}
}
